"""What sets an illinois run's growth: Illinois's own state at every call of its `cong_avoid`,
read from the running module, in ns-3's runs of the paper-scale cell at 1 % loss and 10 ms and
(`--emulated N`) in N emulated runs of a cut of it.

    .venv/bin/python benchmarks/illinois_params_traced.py [--out DIR] [--runs 1-12]
                                                          [--writes N] [--emulated N]

`benchmarks/illinois_spread_traced.py` found that a run's goodput follows how fast its window
grows between losses. Two things in tcp_illinois.c set that growth, and the packet trace sees
neither:

- `alpha`, the segments added per round trip (0.3 … 10), which `update_params` recomputes once
  a round trip from the average queueing delay da against the largest ever seen
  (dm = max_rtt − base_rtt; `max_rtt` never ages): 10 while da ≤ dm / 100, else
  10 dm' / (dm' + da' × 9.7 / 0.3) (dm' and da' less dm / 100); 1 while the window is below
  `win_thresh` (15) and after a timeout (`tcp_illinois_state`). `beta`, the cut, is 1/8 while
  da ≤ dm / 10 and grows to 1/2 at 8 dm / 10;
- `tcp_is_cwnd_limited`: `tcp_illinois_cong_avoid` returns without growing when the last
  window did not fill cwnd.

ns-3: the program runs tcp_illinois.c compiled from Debian's linux-source-6.1 into
`build/ns3/libemusim-ns3.so`. A uprobe (the host kernel's `CONFIG_UPROBE_EVENTS`, tracefs) on
the entry of the module's `tcp_illinois_cong_avoid`, `tcp_illinois_ssthresh` and
`tcp_illinois_state` reads `struct illinois` and the fields of `struct tcp_sock` they use from
the socket. The offsets come from compiling the module's own source against the shim to
assembly (as Kbuild's asm-offsets does), so the probes read what the library holds. Nothing of
the run changes: same program, same seed, so each run's goodput is the kept run's (with
`--writes`, a cut of it). Needs root; about a minute of a core per 1 GB run.

The emulation: `batch --trace all --trace-raw --trace-ca tcp_illinois_cong_avoid` on the cut
(emusim.linux.tcp_tracefs: the kprobe reads the private area whole), decoded with the same
`struct illinois` offsets (fixed-width members: every x86-64 compiler lays them out alike). Its
runs are new draws, not the kept ones. A 1 GB run's trace outgrows the VM's ring buffer, so the
emulation needs `--writes` (207 183 writes, 300 MB: about 25 minutes of a VM with 2 cores busy).

Per run it prints `goodput_kBps` and, over the calls in congestion avoidance (cwnd ≥ ssthresh):
`limited` (share with `is_cwnd_limited`, the calls that may grow), `alpha` (mean alpha of those,
segments per round trip), `alpha_10` (their share at alpha 10), `alpha_1` (at alpha 1: window
below 15 or after a timeout); `timeouts` (Loss entered), `dm_ms_median` and `dm_ms` (over the
calls and at the end), `max_rtt_at` (the fraction of the transfer acknowledged when max_rtt last
grew), `mean_beta` (at the cuts), the kernel and clock; and per backend Spearman's rank
correlation of goodput with each. Writes OUT/illinois_params_traced.csv.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from emusim.analysis import tcp_events
from emusim.backends.ns3 import command as ns3
from emusim.core.paths import REPO_ROOT
from emusim.inputs import scenario, tcp_profiles
from emusim.linux import tracefs_convert

sys.path.insert(0, str(Path(__file__).resolve().parent))
from illinois_spread_traced import PROFILE, decreases, ns3_rows, parser_for, the_point
from lossy_gap_traced import cut_scenario, measured_in

LIBRARY = REPO_ROOT / "build/ns3/libemusim-ns3.so"
MODULE_SOURCE = REPO_ROOT / "build/ns3/linux-source/net/ipv4/tcp_illinois.c"
SHIM = REPO_ROOT / "sim/ns3/linux/shim"
TRACEFS = Path("/sys/kernel/tracing")
GROUP = f"illinois_params_{os.getpid()}"  # another process's probes are its own
EVENTS = ("cong_avoid", "ssthresh", "state")  # the functions tcp_illinois_NAME probed
BUFFER_KB_PER_CPU = 262144
ALPHA_SHIFT = 7  # tcp_illinois.c:22
BETA_SHIFT = 6  # tcp_illinois.c:29
ONE_PERCENT = {"delay_ms": [10], "loss": ["0.01"]}  # the cell, for the emulated cut

# (struct, field, fetch type): what each probe reads from the socket
SOCK_FIELDS = (
    ("tcp_sock", "snd_cwnd", "u32"),
    ("tcp_sock", "snd_ssthresh", "u32"),
    ("tcp_sock", "is_cwnd_limited", "u8"),
)
CA_FIELDS = (
    ("illinois", "alpha", "u32"),
    ("illinois", "beta", "u32"),
    ("illinois", "base_rtt", "u32"),
    ("illinois", "max_rtt", "u32"),
)
STRUCT_OF = {f: s for s, f, _ in (*SOCK_FIELDS, *CA_FIELDS)}


def offsets() -> dict[str, int]:
    """Each field's offset in the shim's socket (an `illinois` field's from the socket's start,
    through `icsk_ca_priv`), from the module's source compiled against the shim to assembly."""
    found = struct_offsets()
    priv = found.pop("icsk_ca_priv")
    return {f: at + (priv if STRUCT_OF[f] == "illinois" else 0) for f, at in found.items()}


def struct_offsets() -> dict[str, int]:
    """Each field's offset in its own structure (`struct illinois`'s as every x86-64 compiler
    lays out its fixed-width members, the kernel's too), and `icsk_ca_priv`'s in the shim's
    socket, from the module's source compiled against the shim to assembly."""
    fields = [*SOCK_FIELDS, *CA_FIELDS, ("inet_connection_sock", "icsk_ca_priv", "")]
    return field_offsets(MODULE_SOURCE, [(s, f) for s, f, _ in fields])


def field_offsets(module_source: Path, fields: list[tuple[str, str]]) -> dict[str, int]:
    """Each (struct, field)'s offset in its structure as the module's source compiled against
    the shim lays it out (to assembly, as Kbuild's asm-offsets does), by field name."""
    lines = [f'#include "{module_source}"', "#include <stddef.h>", "void emusim_offsets(void)", "{"]
    for struct, field in fields:
        where = f"offsetof(struct {struct}, {field})"
        lines.append(f'\tasm volatile("\\n.ascii \\"->{field} %0\\"" : : "i"({where}));')
    lines.append("}")
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp, "offsets.c")
        source.write_text("\n".join(lines) + "\n")
        cmd = ["cc", "-std=gnu11", "-S", "-o", "-", f'-DKBUILD_MODNAME="{module_source.stem}"']
        cmd += ["-I", str(SHIM), "-I", str(REPO_ROOT / "build/ns3/linux-source/include")]
        proc = subprocess.run([*cmd, str(source)], capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"{module_source}: compiling its offsets failed: {proc.stderr[-1500:]}")
    return {m[1]: int(m[2]) for m in re.finditer(r"->(\w+) \$?(\d+)", proc.stdout)}


def symbol_offsets(names: tuple[str, ...]) -> dict[str, int]:
    """The file offset of each function in the library (a uprobe's address): its address, less
    its loadable segment's address, plus the segment's file offset."""
    symbols = {}
    listing = subprocess.run(["nm", str(LIBRARY)], capture_output=True, text=True).stdout
    for line in listing.split("\n"):
        parts = line.split()
        if len(parts) == 3 and parts[2] in names:
            symbols[parts[2]] = int(parts[0], 16)
    missing = set(names) - set(symbols)
    if missing:
        raise SystemExit(f"{LIBRARY}: no symbol {sorted(missing)} (is illinois compiled in?)")
    segments = []
    headers = subprocess.run(["readelf", "-lW", str(LIBRARY)], capture_output=True, text=True)
    for line in headers.stdout.split("\n"):
        parts = line.split()
        if parts[:1] == ["LOAD"]:
            segments.append((int(parts[1], 16), int(parts[2], 16), int(parts[4], 16)))
    result = {}
    for name, address in symbols.items():
        offset, vaddr, _ = next(s for s in segments if s[1] <= address < s[1] + s[2])
        result[name] = address - vaddr + offset
    return result


def probe_definitions() -> list[str]:
    """uprobe_events lines: the socket's fields at each probed function's entry (x86-64: the
    socket in %di, the second argument in %si)."""
    at = offsets()
    where = symbol_offsets(tuple(f"tcp_illinois_{name}" for name in EVENTS))
    reads = " ".join(f"{f}=+{at[f]}(%di):{t}" for _, f, t in (*SOCK_FIELDS, *CA_FIELDS))
    args = {"cong_avoid": f"ack=%si:u32 {reads}", "ssthresh": reads, "state": "state=%si:u8"}
    return [
        f"p:{GROUP}/{name} {LIBRARY}:{where[f'tcp_illinois_{name}']:#x} sk=%di:x64 {args[name]}"
        for name in EVENTS
    ]


def define(line: str) -> None:
    """One line to uprobe_events, appended (opening it to write without O_APPEND clears every
    probe; Python's append mode seeks, which tracefs refuses)."""
    fd = os.open(TRACEFS / "uprobe_events", os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, (line + "\n").encode())
    except OSError as error:
        log = (TRACEFS / "error_log").read_text().strip().split("\n")[-3:]
        raise SystemExit(f"{TRACEFS}/uprobe_events: {line!r}: {error}; {log}") from error
    finally:
        os.close(fd)


class Probes:
    """The probes defined and enabled in a tracefs instance of their own for one process:
    Illinois's, or the uprobe_events `definitions` of group `group` with probes `names`."""

    def __init__(self, definitions=None, group: str = GROUP, names=EVENTS) -> None:
        self.definitions, self.group, self.names = definitions, group, names

    def __enter__(self) -> Probes:
        if not (TRACEFS / "uprobe_events").exists():
            subprocess.run(["mount", "-t", "tracefs", "nodev", str(TRACEFS)], check=False)
        if not (TRACEFS / "uprobe_events").exists():
            raise SystemExit(f"{TRACEFS}/uprobe_events: none (needs root, CONFIG_UPROBE_EVENTS)")
        # not emusim-*: a batch removes those it did not make
        self.instance = TRACEFS / "instances" / f"{self.group}-instance"
        self._remove()
        for line in self.definitions or probe_definitions():
            define(line)
        self.instance.mkdir()
        (self.instance / "buffer_size_kb").write_text(str(BUFFER_KB_PER_CPU))
        return self

    def run(self, cmd: list[str]) -> tuple[int, str, str]:
        """Run `cmd` with the probes recording it alone: (exit status, stdout, stderr). The
        child waits for a line on its stdin until its pid is the instance's only one."""
        proc = subprocess.Popen(
            ["sh", "-c", 'read go; exec "$@" </dev/null', "sh", *cmd],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.record(proc.pid)
        proc.stdin.write("go\n")
        proc.stdin.flush()
        stdout, stderr = proc.communicate()
        return proc.returncode, stdout, stderr

    def record(self, pid: int) -> None:
        (self.instance / "set_event_pid").write_text(str(pid))
        (self.instance / "events" / self.group / "enable").write_text("1")

    def text(self) -> str:
        (self.instance / "events" / self.group / "enable").write_text("0")
        text = (self.instance / "trace").read_text()
        header = re.search(r"entries-in-buffer/entries-written: (\d+)/(\d+)", text)
        if header and header[1] != header[2]:
            kept = f"{header[1]} of {header[2]} events kept"
            raise SystemExit(f"{self.instance}: {kept}; raise BUFFER_KB_PER_CPU")
        return text

    def _remove(self) -> None:
        if self.instance.exists():
            (self.instance / "events" / self.group / "enable").write_text("0")
            self.instance.rmdir()
        defined = (TRACEFS / "uprobe_events").read_text()
        if f"{self.group}/" in defined:
            for name in self.names:
                if f"{self.group}/{name} " in defined:
                    define(f"-:{self.group}/{name}")

    def __exit__(self, *exc: object) -> None:
        self._remove()


def run(out: Path, rep: int, writes: int | None) -> Path:
    """ns-3's run `rep` of the cell with the probes on; the events' text beside its result."""
    s = scenario.load(str(REPO_ROOT / "scenarios/lossy-link.yaml"), "paper")
    binary = str(REPO_ROOT / "build/ns3/lossy-link")
    cmd = ns3.command(binary, s, the_point(s), tcp_profiles.get(PROFILE), rep, 0.0)
    if writes:
        cmd = [a for a in cmd if not a.startswith("--writes=")] + [f"--writes={writes}"]
    events = out / f"run{rep}.events"
    with Probes() as probes:
        status, stdout, stderr = probes.run(cmd)
        if status:
            raise SystemExit(f"ns-3 run {rep}: exit {status}: {stderr[-2000:]}")
        events.write_text(probes.text())
    (out / f"run{rep}.json").write_text(stdout)
    return events


EVENT = re.compile(r"^\s*(\S+)-(\d+)\s.*?\s(cong_avoid|ssthresh|state): \(0x[0-9a-f]+\) (.*)$")


def read_events(path: Path) -> pd.DataFrame:
    """The probes' events of the run's sender socket, in order: `event` and each field read."""
    rows = []
    for line in path.read_text().split("\n"):
        match = EVENT.match(line)
        if match:
            fields = dict(pair.split("=", 1) for pair in match[4].split())
            rows.append({"event": match[3], **fields})
    if not rows:
        raise SystemExit(f"{path}: no probe events")
    events = pd.DataFrame(rows)
    for column in events.columns.drop(["event", "sk"]):
        events[column] = pd.to_numeric(events[column])
    senders = events.loc[events["event"] == "cong_avoid", "sk"].unique()
    if len(senders) != 1:
        raise SystemExit(f"{path}: {len(senders)} sockets ran cong_avoid, not the sender's alone")
    return events[events["sk"] == senders[0]].reset_index(drop=True)


def summary(calls: pd.DataFrame, goodput_Bps: float, timeouts: int) -> dict:
    """A run's row from its `cong_avoid` calls (ack, snd_cwnd, snd_ssthresh, is_cwnd_limited
    and Illinois's alpha, base_rtt and max_rtt before the call)."""
    avoidance = calls[calls["snd_cwnd"] >= calls["snd_ssthresh"]]
    limited = avoidance[avoidance["is_cwnd_limited"] == 1]
    alpha = limited["alpha"] / (1 << ALPHA_SHIFT)
    dm_ms = (calls["max_rtt"] - calls["base_rtt"]).to_numpy() / 1e3
    grew = np.flatnonzero(np.diff(calls["max_rtt"].to_numpy()) > 0)
    acked = ((calls["ack"] - calls["ack"].iloc[0]) % (1 << 32)).to_numpy()
    return {
        "goodput_kBps": round(goodput_Bps / 1e3),
        "limited": round(len(limited) / len(avoidance), 3),
        "alpha": round(float(alpha.mean()), 2),
        "alpha_10": round(float((alpha == 10).mean()), 3),
        "alpha_1": round(float((alpha == 1).mean()), 3),
        "timeouts": timeouts,
        "dm_ms_median": round(float(np.median(dm_ms)), 1),
        "dm_ms": round(float(dm_ms[-1]), 1),
        "max_rtt_at": round(float(acked[grew[-1] + 1] / acked[-1]) if len(grew) else 0.0, 3),
    }


def ns3_row(events_path: Path) -> dict:
    events = read_events(events_path)
    result = json.loads(events_path.with_suffix(".json").read_text())
    cuts = events[events["event"] == "ssthresh"]
    timeouts = (events["event"] == "state") & (events["state"] == tcp_events.STATE_LOSS)
    calls = events[events["event"] == "cong_avoid"]
    return {
        "backend": "ns3",
        "run": events_path.stem,
        **summary(calls, result["metrics"]["goodput_Bps"], int(timeouts.sum())),
        "mean_beta": round(float((cuts["beta"] / (1 << BETA_SHIFT)).mean()), 3),
        **measured_in("ns3", events_path),
    }


def run_emulation(path: Path, out: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "emusim.backends.mininet", "batch", "--scenario", str(path),
         "--scale", "quick", "--profile", PROFILE, "--results-dir", str(out), "--place", "vm",
         "--trace", "all", "--trace-raw", "--trace-ca", "tcp_illinois_cong_avoid"],
        check=True, cwd=REPO_ROOT,
    )  # fmt: skip


def emulated_calls(text: Iterable[str], at: dict[str, int]) -> pd.DataFrame:
    """The `ca` events of an emulated run's tracefs text (emusim.linux.tcp_tracefs), with
    Illinois's members read from the private area's words at their offsets `at`."""
    rows = []
    for event in tracefs_convert.parse(text):
        if event.name != "ca":
            continue
        words = [int(w, 0) for w in event.fields["priv"].strip("{}").split(",")]
        priv = b"".join(w.to_bytes(8, "little") for w in words)
        win = event.int("win")
        row = {"ack": event.int("ack"), "snd_ssthresh": win & 0xFFFFFFFF, "snd_cwnd": win >> 32}
        row["is_cwnd_limited"] = event.int("limited")
        for _, name, _ in CA_FIELDS:
            row[name] = int.from_bytes(priv[at[name] : at[name] + 4], "little")
        rows.append(row)
    if not rows:
        raise SystemExit("the emulated run's tracefs text has no ca events")
    return pd.DataFrame(rows)


def emulated_row(run_json: Path, at: dict[str, int]) -> dict:
    result = json.loads(run_json.read_text())
    base = run_json.with_suffix("")
    with gzip.open(f"{base}.tracefs.txt.gz", "rt") as f:
        calls = emulated_calls(f, at)
    trace = tcp_events.read(f"{base}.csv.gz")
    timeouts = int((trace.loc[trace["event"] == "state", "value"] == tcp_events.STATE_LOSS).sum())
    return {
        "backend": "mininet",
        "run": base.name,
        **summary(calls, result["metrics"]["goodput_Bps"], timeouts),
        "mean_beta": round(float(np.mean(decreases(trace))), 3),
        **measured_in("mininet", Path(f"{base}.csv.gz")),
    }


def main() -> None:
    parser = parser_for(__doc__, "illinois-params")
    parser.add_argument(
        "--emulated", type=int, metavar="N", default=0,
        help="also N emulated runs of the cut (--writes), traced with the ca probe",
    )  # fmt: skip
    args = parser.parse_args()
    rows = ns3_rows(args, "events", run, ns3_row)
    if args.emulated:
        if not args.writes:
            raise SystemExit("--emulated needs --writes: a 1 GB run's trace outgrows the VM")
        runs = sorted(args.out.glob("emulation/mininet/lossy-gap/*/*/run*.json"))
        if not runs:
            path = cut_scenario(args.out, args.writes, args.emulated, ["illinois"], ONE_PERCENT)
            run_emulation(path, args.out / "emulation")
            runs = sorted(args.out.glob("emulation/mininet/lossy-gap/*/*/run*.json"))
        at = struct_offsets()
        rows += [emulated_row(p, at) for p in runs]
    table = pd.DataFrame(rows)
    table.to_csv(args.out / "illinois_params_traced.csv", index=False)
    print(table.to_string(index=False))
    for backend, part in table.groupby("backend"):
        if len(part) > 2:
            others = part.drop(columns=["backend", "run", "goodput_kBps", "kernel", "clock"])
            print(f"\n{backend}: Spearman's rank correlation with goodput:")
            print(others.corrwith(part["goodput_kBps"], method="spearman").round(2).to_string())


if __name__ == "__main__":
    main()
