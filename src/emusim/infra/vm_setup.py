"""What the VM (emusim.infra.vm) needs on this machine: a packaged kernel to boot, the one
tools/apt/vm.txt pins (`find_kernel`), and the tools that boot it (virtme-ng's vng, QEMU, a
statically linked busybox). Each `find_*` names what is missing and how to install it.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from emusim.core.paths import REPO_ROOT

BOOT_DIR = Path("/boot")


MODULES_DIR = Path("/lib/modules")


SETUP_HINT = "install it with `tools/setup vm` (Debian packages of tools/apt/vm.txt)"


# The Debian packages the VM needs; its `linux-image-RELEASE` line pins the kernel it boots.
GUEST_PACKAGES = REPO_ROOT / "tools" / "apt" / "vm.txt"


_PINNED_IMAGE = re.compile(r"^\s*linux-image-(?P<release>\d\S*)", re.MULTILINE)


class VMError(RuntimeError):
    """The VM could not be started: a missing tool or kernel, or a bad argument."""


@dataclass(frozen=True)
class GuestKernel:
    """A packaged kernel the VM can boot: its image, its modules and (if any) its headers."""

    release: str
    image: Path
    modules_dir: Path

    @property
    def build_dir(self) -> Path | None:
        """The kernel's build tree (``linux-headers-*``), where out-of-tree modules build."""
        path = self.modules_dir / "build"
        return path if path.is_dir() else None


def _release_key(release: str) -> list[tuple[int, str]]:
    """Sort key for kernel releases: numbers compare as numbers (6.1.0-10 after 6.1.0-9)."""
    return [
        (int(part), "") if part.isdigit() else (-1, part) for part in re.split(r"(\d+)", release)
    ]


def list_kernels(boot_dir: Path = BOOT_DIR, modules_dir: Path = MODULES_DIR) -> list[GuestKernel]:
    """Every kernel with both an image in ``boot_dir`` and modules in ``modules_dir``, oldest
    first."""
    kernels = []
    for image in boot_dir.glob("vmlinuz-*"):
        release = image.name.removeprefix("vmlinuz-")
        mods = modules_dir / release
        if (mods / "modules.dep").is_file() or (mods / "kernel").is_dir():
            kernels.append(GuestKernel(release=release, image=image, modules_dir=mods))
    return sorted(kernels, key=lambda k: _release_key(k.release))


def pinned_release(packages: Path | None = GUEST_PACKAGES) -> str | None:
    """The kernel release the package list pins (its ``linux-image-RELEASE`` line), or None
    when it pins none (``linux-image-amd64``, Debian's newest, or no list).

    The pin is what keeps archived emulated runs usable: their key names the kernel release
    (emusim.backends.mininet.plan.run_key), and Debian's ``linux-image-amd64`` moves to a
    new ABI release with every stable update.
    """
    if packages is None or not packages.is_file():
        return None
    match = _PINNED_IMAGE.search(packages.read_text())
    return match["release"] if match else None


def find_kernel(
    release: str | None = None,
    boot_dir: Path = BOOT_DIR,
    modules_dir: Path = MODULES_DIR,
    packages: Path | None = GUEST_PACKAGES,
) -> GuestKernel:
    """The kernel to boot: ``release`` if given, else the one ``packages`` (tools/apt/vm.txt)
    pins, else the newest packaged one.

    Raises VMError naming what is missing and how to install it.
    """
    kernels = list_kernels(boot_dir, modules_dir)
    pinned = release is None
    if pinned:
        release = pinned_release(packages)
    if release is not None:
        for kernel in kernels:
            if kernel.release == release:
                return kernel
        found = ", ".join(k.release for k in kernels) or "none"
        why = f" ({packages} pins it: linux-image-{release})" if pinned else ""
        raise VMError(
            f"no kernel {release!r}{why} with both {boot_dir}/vmlinuz-{release} and "
            f"{modules_dir}/{release}/ (kernels found: {found}); {SETUP_HINT}"
        )
    if not kernels:
        raise VMError(
            f"no bootable kernel: no {boot_dir}/vmlinuz-* with modules in {modules_dir}/; "
            f"the VM boots Debian's packaged kernel, {SETUP_HINT}"
        )
    return kernels[-1]


def tool_dirs() -> list[str]:
    """Where virtme-ng's programs may be: beside this Python (a venv's bin), then PATH."""
    here = str(Path(sys.executable).parent)
    return [here, *os.environ.get("PATH", "").split(os.pathsep)]


def find_vng() -> str:
    """Path of virtme-ng's ``vng``; it calls ``virtme-run``, which must sit beside it."""
    path = os.pathsep.join(tool_dirs())
    vng = shutil.which("vng", path=path)
    if vng is None or shutil.which("virtme-run", path=path) is None:
        raise VMError(
            "virtme-ng is not installed (no `vng`/`virtme-run` beside "
            f"{sys.executable} or on PATH); it is a dependency in pyproject.toml: "
            "`tools/setup vm` installs it into .venv"
        )
    return vng


def find_qemu() -> str:
    """Path of qemu-system-x86_64 (Debian package qemu-system-x86)."""
    qemu = shutil.which("qemu-system-x86_64")
    if qemu is None:
        raise VMError(
            f"qemu-system-x86_64 is missing (Debian package qemu-system-x86); {SETUP_HINT}"
        )
    return qemu


def find_static_busybox() -> str:
    """virtme-ng copies a statically linked busybox into the guest's initramfs."""
    for name in ("busybox-static", "busybox"):
        path = shutil.which(name)
        if path:
            with open(path, "rb") as binary:
                if b"ld-linux" not in binary.read(4096):  # no program interpreter: static
                    return path
    raise VMError(f"no statically linked busybox (Debian package busybox-static); {SETUP_HINT}")
