"""The kernel dropper module: its decision header in userspace, and the module in a real
kernel (``make -C kernel-dropper test`` boots Debian's kernel in a virtme-ng VM).

The counts the VM test printed are checked here against expectations computed independently:
the regular dropper drops exactly floor(sent / N) packets, the random one lands within the
binomial 99.9 % interval of p = cutoff / 65536 (from scipy, not from the test's own code).
"""

import re
import shutil
import subprocess
from fractions import Fraction

import pytest
from scipy.stats import binom

from emusim import vm
from emusim.paths import REPO_ROOT

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


def test_find_kernel_picks_newest_with_modules(tmp_path):
    for release in ("6.1.0-9-amd64", "6.1.0-10-amd64"):
        make_kernel(tmp_path, release)
    make_kernel(tmp_path, "6.1.0-11-amd64", modules=False)  # an image without modules
    kernel = vm.find_kernel(boot_dir=tmp_path / "boot", modules_dir=tmp_path / "lib")
    assert kernel.release == "6.1.0-10-amd64"
    assert kernel.image == tmp_path / "boot" / "vmlinuz-6.1.0-10-amd64"
    assert kernel.build_dir is None


def test_find_kernel_says_what_is_missing(tmp_path):
    (tmp_path / "boot").mkdir()
    with pytest.raises(vm.VMError, match=r"linux-image-amd64.*tools/setup vm"):
        vm.find_kernel(boot_dir=tmp_path / "boot", modules_dir=tmp_path / "lib")
    make_kernel(tmp_path, "6.1.0-9-amd64")
    with pytest.raises(vm.VMError, match=r"no kernel .6\.1\.0-99-amd64.*found: 6\.1\.0-9-amd64"):
        vm.find_kernel("6.1.0-99-amd64", tmp_path / "boot", tmp_path / "lib")


def test_vng_command_is_software_emulation_unless_asked(tmp_path):
    kernel = vm.GuestKernel("6.1.0-9-amd64", tmp_path / "vmlinuz", tmp_path)
    argv = vm.vng_command(["echo", "a b"], kernel, memory_mb=512, cpus=2, cwd=tmp_path)
    assert argv[argv.index("--exec") + 1] == "echo 'a b'"
    assert "--disable-kvm" in argv and "--force-9p" in argv
    assert argv[argv.index("--run") + 1] == str(tmp_path / "vmlinuz")
    assert "--disable-kvm" not in vm.vng_command("true", kernel, kvm=True)
    with pytest.raises(vm.VMError, match="memory_mb"):
        vm.vng_command("true", kernel, memory_mb=64)


@pytest.mark.vm
def test_run_in_vm_returns_exit_code_output_and_release():
    result = vm.run_in_vm("uname -r; echo to-stderr >&2; exit 3", timeout_s=600)
    assert result.returncode == 3
    assert result.kernel_release in result.output and "to-stderr" in result.output
    assert result.kernel_release == vm.find_kernel().release
    assert result.kvm is False


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
