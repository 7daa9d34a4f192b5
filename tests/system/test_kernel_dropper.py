"""The kernel dropper module: its decision header in userspace, and the module in a real
kernel (``make -C kernel-dropper test`` boots Debian's kernel in a virtme-ng VM).

The counts the VM test printed are checked here against expectations computed independently:
the regular dropper drops exactly floor(sent / N) packets, the random one lands within the
binomial 99.9 % interval of p = cutoff / 65536 (from scipy, not from the test's own code).
"""

import json
import re
import shutil
import subprocess
from fractions import Fraction

import pytest
from scipy.stats import binom

from emusim.core.paths import REPO_ROOT
from emusim.infra import vm, vm_setup

KERNEL_DROPPER = REPO_ROOT / "kernel-dropper"


def parse_counts(output: str) -> list[dict[str, str]]:
    """The ``COUNT key=value ...`` lines of vmtest.py."""
    return [
        dict(field.split("=", 1) for field in line.split()[1:])
        for line in output.splitlines()
        if line.startswith("COUNT ")
    ]


def test_parse_counts():
    out = "vm| noise\nCOUNT case=regular every=6 sent=3000 dropped=500 ok=yes\nKERNEL x\n"
    assert parse_counts(out) == [
        {"case": "regular", "every": "6", "sent": "3000", "dropped": "500", "ok": "yes"}
    ]


def make_kernel(root, release, modules=True):
    (root / "boot").mkdir(exist_ok=True)
    (root / "boot" / f"vmlinuz-{release}").write_text("")
    if modules:
        (root / "lib" / release).mkdir(parents=True)
        (root / "lib" / release / "modules.dep").write_text("")


def test_find_kernel_without_a_pin_picks_newest_with_modules(tmp_path):
    for release in ("6.1.0-9-amd64", "6.1.0-10-amd64"):
        make_kernel(tmp_path, release)
    make_kernel(tmp_path, "6.1.0-11-amd64", modules=False)  # an image without modules
    kernel = vm_setup.find_kernel(
        boot_dir=tmp_path / "boot", modules_dir=tmp_path / "lib", packages=None
    )
    assert kernel.release == "6.1.0-10-amd64"
    assert kernel.image == tmp_path / "boot" / "vmlinuz-6.1.0-10-amd64"
    assert kernel.build_dir is None


def test_find_kernel_boots_the_release_the_package_list_pins(tmp_path):
    for release in ("6.1.0-9-amd64", "6.1.0-10-amd64"):
        make_kernel(tmp_path, release)
    packages = tmp_path / "vm.txt"
    packages.write_text("# the kernel\nlinux-image-6.1.0-9-amd64   # pinned\nqemu-system-x86\n")
    dirs = {"boot_dir": tmp_path / "boot", "modules_dir": tmp_path / "lib"}
    assert vm_setup.pinned_release(packages) == "6.1.0-9-amd64"
    assert vm_setup.find_kernel(**dirs, packages=packages).release == "6.1.0-9-amd64"
    # a release asked for wins over the pin
    assert (
        vm_setup.find_kernel("6.1.0-10-amd64", **dirs, packages=packages).release
        == "6.1.0-10-amd64"
    )
    # Debian's metapackage pins nothing: the newest
    packages.write_text("linux-image-amd64\n")
    assert vm_setup.pinned_release(packages) is None
    assert vm_setup.find_kernel(**dirs, packages=packages).release == "6.1.0-10-amd64"
    # a pinned release not installed: the error names the list, the package and the fix
    packages.write_text("linux-image-6.1.0-99-amd64\n")
    with pytest.raises(
        vm_setup.VMError, match=r"6\.1\.0-99-amd64.*vm\.txt pins it.*tools/setup vm"
    ):
        vm_setup.find_kernel(**dirs, packages=packages)


def test_the_repository_pins_the_kernel_its_archived_runs_were_made_on():
    releases = {
        json.loads(path.read_text())["provenance"]["kernel_release"]
        for path in (REPO_ROOT / "data" / "archive").glob("*/mininet/**/run*.json")
    }
    assert releases == {vm_setup.pinned_release()}


def test_find_kernel_says_what_is_missing(tmp_path):
    (tmp_path / "boot").mkdir()
    with pytest.raises(vm_setup.VMError, match=r"packaged kernel.*tools/setup vm"):
        vm_setup.find_kernel(
            boot_dir=tmp_path / "boot", modules_dir=tmp_path / "lib", packages=None
        )
    make_kernel(tmp_path, "6.1.0-9-amd64")
    with pytest.raises(
        vm_setup.VMError, match=r"no kernel .6\.1\.0-99-amd64.*found: 6\.1\.0-9-amd64"
    ):
        vm_setup.find_kernel("6.1.0-99-amd64", tmp_path / "boot", tmp_path / "lib")


def test_vng_command_is_software_emulation_unless_asked(tmp_path):
    kernel = vm_setup.GuestKernel("6.1.0-9-amd64", tmp_path / "vmlinuz", tmp_path)
    argv = vm.vng_command(["echo", "a b"], kernel, memory_mb=512, cpus=2, cwd=tmp_path)
    assert argv[argv.index("--exec") + 1] == vm.clocked("echo 'a b'")
    assert "--disable-kvm" in argv and "--force-9p" in argv
    # real time unless dilated time is asked for; the CPU model either way (vm.TCG_CPU_MODEL)
    assert "--qemu-opts=-cpu max" in argv
    assert argv[argv.index("--run") + 1] == str(tmp_path / "vmlinuz")
    assert "--disable-kvm" not in vm.vng_command("true", kernel, kvm=True)
    with pytest.raises(vm_setup.VMError, match="memory_mb"):
        vm.vng_command("true", kernel, memory_mb=64)


def test_dilated_time_is_icount_with_one_vcpu(tmp_path, monkeypatch):
    kernel = vm_setup.GuestKernel("6.1.0-9-amd64", tmp_path / "vmlinuz", tmp_path)
    argv = vm.vng_command("true", kernel, icount_shift=2)
    assert "--qemu-opts=-cpu max -icount shift=2,sleep=off -rtc clock=vm" in argv
    monkeypatch.setenv(vm.CPU_ENV, "max,-erms,-fsrm")
    assert "--qemu-opts=-cpu max,-erms,-fsrm -icount shift=2,sleep=off -rtc clock=vm" in (
        vm.vng_command("true", kernel, icount_shift=2)
    )
    monkeypatch.delenv(vm.CPU_ENV)
    assert argv[argv.index("--cpus") + 1] == "1"
    with pytest.raises(vm_setup.VMError, match="one vCPU"):
        vm.vng_command("true", kernel, cpus=2, icount_shift=0)
    # KVM keeps real time and the host's CPU: no icount, no model
    assert not [a for a in vm.vng_command("true", kernel, kvm=True, icount_shift=0)
                if a.startswith("--qemu-opts")]  # fmt: skip
    # the default and the environment
    monkeypatch.delenv(vm.ICOUNT_ENV, raising=False)
    assert vm.icount_requested() == vm.DEFAULT_ICOUNT_SHIFT == 0
    monkeypatch.setenv(vm.ICOUNT_ENV, "off")
    assert vm.icount_requested() is None
    monkeypatch.setenv(vm.ICOUNT_ENV, "3")
    assert vm.icount_requested() == 3
    monkeypatch.setenv(vm.ICOUNT_ENV, "fast")
    with pytest.raises(vm_setup.VMError, match="EMUSIM_VM_ICOUNT_SHIFT='fast'"):
        vm.icount_requested()
    with pytest.raises(vm_setup.VMError, match=r"accepted 0\.\.10"):
        vm.icount_requested(11)


def test_the_clock_lines_are_read_and_kept_out_of_the_output():
    assert vm._clock_line(f"{vm.CLOCK_MARK} 97.64\n") == 97.64
    assert vm._clock_line("97.64") is None
    script = vm.clocked("exit 3")
    proc = subprocess.run(["sh", "-c", script], capture_output=True, text=True)
    assert proc.returncode == 3
    stamps = [vm._clock_line(ln) for ln in proc.stdout.splitlines()]
    assert len(stamps) == 2 and stamps[0] <= stamps[1]


@pytest.mark.vm
def test_run_in_vm_returns_exit_code_output_and_release():
    result = vm.run_in_vm("uname -r; echo to-stderr >&2; exit 3", timeout_s=600)
    assert result.returncode == 3
    assert result.kernel_release in result.output and "to-stderr" in result.output
    assert result.kernel_release == vm_setup.find_kernel().release
    assert result.kvm is False
    # dilated time: the guest's clock is QEMU's instruction count at 1 GHz
    assert result.clock == "guest-icount" and result.icount_shift == 0
    assert result.guest_elapsed_s is not None and result.dilation > 0
    assert vm.CLOCK_MARK not in result.output


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_decision_header_against_shared_vectors():
    proc = subprocess.run(
        ["make", "-s", "-C", str(KERNEL_DROPPER), "unit"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"^\d+ vectors from .*drop_decision_vectors\.csv$", proc.stdout, re.M)
    assert re.search(r"^\d+ passed, 0 failed$", proc.stdout, re.M), proc.stdout


@pytest.fixture(scope="module")
def vm_test_output() -> str:
    proc = subprocess.run(
        ["make", "-C", str(KERNEL_DROPPER), "test"],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    return proc.stdout


@pytest.mark.vm
def test_module_in_vm_all_checks_pass(vm_test_output):
    assert re.search(r"^KERNEL release=\S+ kvm=(yes|no) ", vm_test_output, re.M)
    assert re.search(r"^\d+ passed, 0 failed$", vm_test_output, re.M)


@pytest.mark.vm
def test_regular_mode_counts(vm_test_output):
    regular = [c for c in parse_counts(vm_test_output) if c.get("case") == "regular"]
    assert {int(c["every"]) for c in regular} >= {0, 1, 6}
    for c in regular:
        every, sent = int(c["every"]), int(c["sent"])
        expected = sent // every if every else 0
        assert int(c["dropped"]) == int(c["num_dropped"]) == expected, c
        assert int(c["received"]) == sent - expected, c


@pytest.mark.vm
def test_regular_mode_two_senders(vm_test_output):
    (smp,) = [c for c in parse_counts(vm_test_output) if c.get("case") == "regular-2-senders"]
    assert int(smp["dropped"]) == int(smp["num_dropped"]) == int(smp["sent"]) // int(smp["every"])


@pytest.mark.vm
def test_random_mode_within_binomial_bounds(vm_test_output):
    random_ = [c for c in parse_counts(vm_test_output) if c.get("case") == "random"]
    assert len(random_) >= 3
    for c in random_:
        sent, cutoff, dropped = int(c["sent"]), int(c["cutoff"]), int(c["dropped"])
        assert cutoff == int(Fraction(c["rate"]) * 65535), c  # the spec's floor(rate × 65535)
        p = cutoff / 65536
        lo, hi = binom.ppf(0.0005, sent, p), binom.isf(0.0005, sent, p)
        assert lo <= dropped <= hi, c
        assert dropped == int(c["num_dropped"]), c


@pytest.mark.vm
def test_untouched_traffic_and_malformed_writes(vm_test_output):
    counts = {c.get("case"): c for c in parse_counts(vm_test_output)}
    for case in ("other-address", "other-direction", "after-rmmod"):
        assert counts[case]["received"] == counts[case]["sent"], counts[case]
    malformed = counts["malformed-writes"]
    assert malformed["writes"] == malformed["refused"] == "1000"
    assert malformed["changed"] == "0"
