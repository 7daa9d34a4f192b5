"""Run a command inside a virtual machine that boots Debian's packaged kernel.

The host kernel of our CI machines has neither loadable modules nor netem, so what needs a
real, complete kernel (the dropper module, and later the Mininet backend) runs in a
virtme-ng VM: QEMU boots Debian's packaged kernel (the release tools/apt/vm.txt pins) with
this machine's own userspace (the root filesystem is shared read-only, writes go to an
overlay), runs one command as root and powers off. The guest sees the repository at the
same path as the host.

KVM is not used unless asked for (``use_kvm=True`` or ``EMUSIM_VM_KVM=1``): on our CI
machines ``/dev/kvm`` is a PVM hypervisor (``CONFIG_KVM_PVM``) that runs only guest kernels
built for PVM, and Debian's kernel hangs under it, so the default is software emulation (TCG).

**Dilated time.** Under TCG the guest's clock would follow the host's real time while the
guest computes tens of times slower than the hardware it models: a 100 Mb/s link then carries
0.4-0.75 of its rate and RTTs hold milliseconds of emulator time. So a TCG guest runs under
QEMU's instruction counting (``-icount shift=N,sleep=off`` with ``-rtc clock=vm``): its clock
advances 2^N ns per executed instruction (N = 0: a machine of 10^9 instructions per second,
the fastest stock QEMU offers), whatever the host's speed or load, and with ``sleep=off`` an
idle guest jumps straight to its next timer, so waiting (TCP's timeouts) costs no host time.
This is time dilation as in Gupta et al., "To Infinity and Beyond: Time-Warped Network
Emulation" (NSDI 2006), and the synchronisation SimBricks uses: every guest measurement is in
guest time, which the result records (`VMResult.clock`). icount allows one vCPU only (it
forbids multi-threaded TCG). ``icount_shift=None`` or ``EMUSIM_VM_ICOUNT_SHIFT=off`` turns
it off (real time, as before); a KVM guest always keeps real time.

    from emusim.infra import vm
    result = vm.run_in_vm(["uname", "-r"])
    result.returncode, result.output, result.kernel_release, result.kvm

``python -m emusim.infra.vm [--release R] [--timeout S] -- COMMAND...`` does the same from a shell.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from emusim.core.paths import REPO_ROOT
from emusim.infra.vm_setup import (
    GuestKernel,
    VMError,
    find_kernel,
    find_qemu,
    find_static_busybox,
    find_vng,
    tool_dirs,
)

DEFAULT_TIMEOUT_S = 900.0
DILATED_WALL_FACTOR = 4.0
"""In dilated time a VM's limit is on its CPU seconds, its cost, which other work on the host
does not inflate (a VM given half a core takes twice the wall time, and in dilated time gives
the same results). A VM that stalls without using the CPU is stopped at this many times the
limit in wall seconds: a host oversubscribed 4-fold still finishes."""
LIMIT_PERIOD_S = 5.0
"""How often the limit's watch reads the VM's CPU time."""
DEFAULT_MEMORY_MB = 1024
DEFAULT_CPUS = 1
"""One vCPU: icount runs a single one (and, in real time, one forwarded faster than two)."""
DEFAULT_ICOUNT_SHIFT = 0
"""Guest nanoseconds per instruction, as a power of two: 0 is the fastest guest CPU icount
offers (1 GIPS). Measured through veth + netem at 100 Mb/s, shifts 0, 2 and 3 carry the same
rate; 0 keeps the guest stack's own per-packet cost smallest (docs/mininet.md)."""
TCG_CPU_MODEL = "max"
"""The guest's CPU under software emulation (QEMU's ``-cpu``): virtme-ng's own choice, QEMU's
fullest model. It has ERMS, so the guest kernel copies and clears memory with ``rep movsb`` /
``rep stosb``, one byte per iteration, and icount counts every iteration as an instruction.
``max,-erms,-fsrm`` (``EMUSIM_VM_CPU``) makes those eight bytes an iteration: measured, it
halves the host cost of copying but moves a timeout-bound point of regular-drop by 17 %, so
it is not the default until that is traced (docs/mininet.md, "Cost per component")."""
CPU_ENV = "EMUSIM_VM_CPU"


def guest_cpu_model() -> str:
    """The guest's CPU model under software emulation: $EMUSIM_VM_CPU, else TCG_CPU_MODEL."""
    return os.environ.get(CPU_ENV) or TCG_CPU_MODEL


ICOUNT_SHIFT_MAX = 10
ICOUNT_ENV = "EMUSIM_VM_ICOUNT_SHIFT"
CLOCK_MARK = "EMUSIM-VMCLOCK"
"""Prefix of the lines the wrapped command prints with the guest's monotonic clock."""


class VMTimeout(VMError):
    """The VM did not finish within its time limit (it has been stopped)."""

    def __init__(self, message: str, output: str):
        super().__init__(message)
        self.output = output


@dataclass
class VMResult:
    """What a command in the VM did, where it ran, and in which clock.

    ``clock`` is ``guest-icount`` (dilated time, ``icount_shift``), ``kvm`` or ``tcg-real``
    (undilated software emulation); ``guest_elapsed_s`` is the command's duration on the
    guest's monotonic clock and ``dilation`` guest seconds per host second over it (None when
    the command did not print both clock lines, e.g. it was killed)."""

    returncode: int
    output: str
    kernel_release: str
    kvm: bool
    elapsed_s: float
    argv: list[str] = field(default_factory=list)
    clock: str = "tcg-real"
    icount_shift: int | None = None
    guest_elapsed_s: float | None = None
    dilation: float | None = None
    host_cpu_s: float | None = None
    guest_cpu: str | None = None  # QEMU's -cpu under software emulation; None with KVM

    def clock_facts(self) -> dict:
        """The clock a result measured in this VM was measured in, for its provenance."""
        return {
            "clock": self.clock,
            "icount_shift": self.icount_shift,
            "dilation_guest_s_per_host_s": self.dilation,
            "guest_elapsed_s": self.guest_elapsed_s,
            "host_elapsed_s": round(self.elapsed_s, 3),
            "host_cpu_s": self.host_cpu_s,
            "guest_cpu": self.guest_cpu,
        }


def kvm_requested(use_kvm: bool | None) -> bool:
    """KVM only when asked for: ``use_kvm`` if given, else ``EMUSIM_VM_KVM=1``."""
    if use_kvm is not None:
        return use_kvm
    return os.environ.get("EMUSIM_VM_KVM", "") == "1"


def icount_requested(shift: int | str | None = "env") -> int | None:
    """The icount shift to run a TCG guest with: ``shift`` if given (None: real time), else
    ``EMUSIM_VM_ICOUNT_SHIFT`` (a number, or ``off``), else DEFAULT_ICOUNT_SHIFT."""
    if shift == "env":
        value = os.environ.get(ICOUNT_ENV, "").strip()
        if value == "":
            return DEFAULT_ICOUNT_SHIFT
        if value.lower() in ("off", "none"):
            return None
        try:
            shift = int(value)
        except ValueError:
            raise VMError(
                f"{ICOUNT_ENV}={value!r}: give a whole number 0..{ICOUNT_SHIFT_MAX} or 'off'"
            ) from None
    if shift is not None and not 0 <= int(shift) <= ICOUNT_SHIFT_MAX:
        raise VMError(f"icount shift {shift!r}: accepted 0..{ICOUNT_SHIFT_MAX} or off")
    return None if shift is None else int(shift)


def icount_qemu_opts(shift: int) -> str:
    """QEMU's options for dilated time: the clock follows executed instructions, an idle
    guest skips to its next timer (sleep=off), and the guest's RTC follows the same clock."""
    return f"-icount shift={shift},sleep=off -rtc clock=vm"


def clocked(script: str) -> str:
    """``script`` between two lines that print the guest's monotonic clock (/proc/uptime),
    keeping its exit status."""
    stamp = f'read -r up _ </proc/uptime; echo "{CLOCK_MARK} $up"'
    return f"{stamp}; ( {script} ); rc=$?; {stamp}; exit $rc"


def vng_command(
    command: str | Sequence[str],
    kernel: GuestKernel,
    *,
    kvm: bool = False,
    memory_mb: int = DEFAULT_MEMORY_MB,
    cpus: int = DEFAULT_CPUS,
    cwd: Path | None = None,
    append: Sequence[str] = (),
    vng: str = "vng",
    rwdirs: Sequence[Path] = (),
    icount_shift: int | None = None,
) -> list[str]:
    """The vng command line that boots ``kernel`` and runs ``command`` (a shell string or an
    argument list) as root in ``cwd`` (default: the repository). ``rwdirs`` are host
    directories the guest may write to, at the same paths (the rest of its root is
    read-only). ``icount_shift`` (TCG only) runs the guest in dilated time, one vCPU."""
    if memory_mb < 256 or cpus < 1:
        raise VMError(f"memory_mb must be >= 256 and cpus >= 1 (got {memory_mb}, {cpus})")
    dilated = icount_shift is not None and not kvm
    if dilated and cpus != 1:
        raise VMError(
            f"{cpus} vCPUs asked for in dilated time: QEMU's icount runs one vCPU "
            f"(turn dilation off with {ICOUNT_ENV}=off to have more)"
        )
    script = command if isinstance(command, str) else shlex.join(command)
    argv = [vng, "--run", str(kernel.image), "--user", "root", "--memory", f"{memory_mb}M"]
    # 9p straight away: vng would first try Debian's old virtiofsd, fail, and wait.
    argv += ["--cpus", str(cpus), "--cwd", str(cwd or REPO_ROOT), "--force-9p"]
    if not kvm:
        argv.append("--disable-kvm")
    qemu_opts = [] if kvm else [f"-cpu {guest_cpu_model()}"]  # after virtme's -cpu: it wins
    if dilated:
        qemu_opts.append(icount_qemu_opts(icount_shift))
    if qemu_opts:
        # one word with the option: vng's argparse would read "-cpu ..." as its own -c option
        argv.append(f"--qemu-opts={' '.join(qemu_opts)}")
    for arg in append:
        argv += ["--append", arg]
    for path in rwdirs:
        argv += ["--rwdir", str(path)]
    return [*argv, "--exec", clocked(script)]


class _Limit:
    """Stops a process group (`_stop`) at its limit: ``limit_s`` wall seconds, or, with
    ``cpu``, ``limit_s`` CPU seconds of the group (`group_cpu_s`) and DILATED_WALL_FACTOR times
    as many wall seconds. ``reason`` says which was reached, None while neither was."""

    def __init__(
        self, proc: subprocess.Popen, limit_s: float, cpu: bool, period_s: float = LIMIT_PERIOD_S
    ) -> None:
        self.proc, self.limit_s, self.cpu, self.period_s = proc, limit_s, cpu, period_s
        self.wall_limit_s = limit_s * (DILATED_WALL_FACTOR if cpu else 1.0)
        self.reason: str | None = None
        self._start = time.monotonic()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while True:
            wall_left = self._start + self.wall_limit_s - time.monotonic()
            if self._done.wait(max(0.0, min(self.period_s, wall_left))):
                return
            if time.monotonic() - self._start >= self.wall_limit_s:
                self.reason = f"took longer than {self.wall_limit_s:g} s"
            elif self.cpu and (group_cpu_s(self.proc.pid) or 0.0) > self.limit_s:
                self.reason = f"used more than {self.limit_s:g} CPU-seconds"
            if self.reason is not None:
                _stop(self.proc)
                return

    def cancel(self) -> None:
        self._done.set()
        self._thread.join()


def _stop(proc: subprocess.Popen) -> None:
    """Stop the VM: vng and the QEMU it started share the process group we gave them."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def run_in_vm(
    command: str | Sequence[str],
    *,
    release: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    memory_mb: int = DEFAULT_MEMORY_MB,
    cpus: int = DEFAULT_CPUS,
    cwd: Path | None = None,
    append: Sequence[str] = (),
    use_kvm: bool | None = None,
    on_line: Callable[[str], None] | None = None,
    rwdirs: Sequence[Path] = (),
    icount_shift: int | str | None = "env",
    on_start: Callable[[int], None] | None = None,
) -> VMResult:
    """Boot the packaged kernel (``release``, default the pinned one: find_kernel), run
    ``command`` as root, power off, and return its exit code and output (stdout and stderr merged).

    ``append`` adds kernel command-line arguments; ``on_line`` sees each output line as it
    comes; ``rwdirs`` are host directories the guest may write; ``icount_shift`` the dilated
    time of a TCG guest (default: `icount_requested`; None runs it in real time);
    ``on_start`` gets the VM's process group (`group_cpu_s` reads its CPU time). Raises
    VMError if virtme-ng, QEMU, busybox or the kernel is missing, and VMTimeout (after
    stopping the VM) if it runs longer than ``timeout_s``: in dilated time, if it uses more
    than ``timeout_s`` CPU seconds or runs DILATED_WALL_FACTOR times as long.
    """
    kernel = find_kernel(release)
    if not os.access(kernel.image, os.R_OK):
        raise VMError(f"{kernel.image} is not readable (Debian installs it 0600: run as root)")
    find_qemu()
    find_static_busybox()
    kvm = kvm_requested(use_kvm)
    shift = None if kvm else icount_requested(icount_shift)
    argv = vng_command(
        command,
        kernel,
        kvm=kvm,
        memory_mb=memory_mb,
        cpus=cpus,
        cwd=cwd,
        append=append,
        vng=find_vng(),
        rwdirs=rwdirs,
        icount_shift=shift,
    )
    env = dict(os.environ, PATH=os.pathsep.join(tool_dirs()), LC_ALL="C")
    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        env=env,
        start_new_session=True,
    )
    if on_start is not None:
        on_start(proc.pid)
    # in dilated time the limit is the VM's CPU time (DILATED_WALL_FACTOR)
    limit = _Limit(proc, timeout_s, cpu=shift is not None)
    lines = []
    stamps: list[tuple[float, float]] = []  # (guest clock, host clock) at the clock lines
    try:
        assert proc.stdout is not None
        last_cpu = 0.0
        for line in proc.stdout:
            if time.monotonic() - last_cpu >= 1.0:  # keep the group's CPU time up to date
                group_cpu_s(proc.pid)
                last_cpu = time.monotonic()
            guest = _clock_line(line)
            if guest is not None:
                stamps.append((guest, time.monotonic()))
                continue
            lines.append(line)
            if on_line is not None:
                on_line(line.rstrip("\n"))
        returncode = proc.wait()
    finally:
        limit.cancel()
        if proc.poll() is None:
            _stop(proc)
    output = "".join(lines)
    if limit.reason is not None:
        raise VMTimeout(f"the VM running {command!r} {limit.reason}", output)
    cpu_s = group_cpu_s(proc.pid, final=True)
    guest_s = dilation = None
    if len(stamps) >= 2:
        (g0, h0), (g1, h1) = stamps[0], stamps[-1]
        guest_s = round(g1 - g0, 3)
        dilation = round(guest_s / (h1 - h0), 4) if h1 > h0 else None
    return VMResult(
        returncode=returncode,
        output=output,
        kernel_release=kernel.release,
        kvm=kvm,
        elapsed_s=time.monotonic() - start,
        argv=argv,
        clock="kvm" if kvm else ("guest-icount" if shift is not None else "tcg-real"),
        icount_shift=shift,
        guest_elapsed_s=guest_s,
        dilation=dilation,
        host_cpu_s=cpu_s,
        guest_cpu=None if kvm else guest_cpu_model(),
    )


_CLK_TCK = os.sysconf("SC_CLK_TCK")
_group_cpu: dict[int, float] = {}  # the largest sum seen per group: its processes end


def group_cpu_s(pgid: int, final: bool = False) -> float | None:
    """CPU seconds (user and system) the processes of a process group have used so far: the
    VM's cost on the host, which, unlike its wall time, other work on the host does not
    inflate. Processes that have ended count with what they had at the last call."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # fields after the name: state, ppid, pgrp, ...
            total += (int(fields[11]) + int(fields[12])) / _CLK_TCK
    best = max(total, _group_cpu.get(pgid, 0.0))
    if final:
        _group_cpu.pop(pgid, None)
        return round(best, 2) if best > 0 else None
    _group_cpu[pgid] = best
    return round(best, 2)


def _clock_line(line: str) -> float | None:
    """The guest clock of a line printed by `clocked`, else None."""
    if not line.startswith(CLOCK_MARK):
        return None
    try:
        return float(line.split()[1])
    except (IndexError, ValueError):
        return None


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run a command in the VM, print its output, exit with its code."""
    parser = argparse.ArgumentParser(
        prog="python -m emusim.infra.vm", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--release", help="kernel release to boot (default: the one tools/apt/vm.txt pins)"
    )
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds")
    parser.add_argument("--memory", type=int, default=DEFAULT_MEMORY_MB, help="MiB")
    parser.add_argument("--cpus", type=int, default=DEFAULT_CPUS)
    parser.add_argument("--append", action="append", default=[], help="kernel argument")
    parser.add_argument("--rwdir", action="append", default=[], type=Path, help="writable dir")
    parser.add_argument(
        "--icount-shift",
        default="env",
        help=f"dilated time: 0..{ICOUNT_SHIFT_MAX}, or off (default: ${ICOUNT_ENV}, else "
        f"{DEFAULT_ICOUNT_SHIFT})",
    )
    parser.add_argument("--print-release", action="store_true", help="print it and exit")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARG...]")
    args = parser.parse_args(argv)
    try:
        if args.print_release:
            print(find_kernel(args.release).release)
            return 0
        command = args.command[1:] if args.command[:1] == ["--"] else args.command
        if not command:
            parser.error("no command given (after --)")
        result = run_in_vm(
            command,
            release=args.release,
            timeout_s=args.timeout,
            memory_mb=args.memory,
            cpus=args.cpus,
            append=args.append,
            on_line=print,
            rwdirs=args.rwdir,
            icount_shift=parse_icount_shift(args.icount_shift),
        )
    except VMError as err:
        print(f"emusim.infra.vm: {err}", file=sys.stderr)
        return 125
    print(
        f"emusim.infra.vm: kernel {result.kernel_release}, clock {result.clock}"
        f"{'' if result.icount_shift is None else f' (shift {result.icount_shift})'}, "
        f"exit {result.returncode}, {result.elapsed_s:.1f} s host, "
        f"{result.guest_elapsed_s} s guest, dilation {result.dilation}",
        file=sys.stderr,
    )
    return result.returncode


def parse_icount_shift(value: str) -> int | str | None:
    """A command line's --icount-shift: 'env' (the default), 'off' (None) or a number."""
    if value in ("env", "off"):
        return None if value == "off" else "env"
    try:
        return int(value)
    except ValueError:
        raise VMError(f"--icount-shift {value!r}: a whole number or off") from None


if __name__ == "__main__":
    sys.exit(main())
