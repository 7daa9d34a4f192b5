"""The dropper module in a real kernel: run as root inside the test VM (stdlib only).

    python3 guest_test.py --module dropper.ko --udpflow udpflow

Builds the report's network from network namespaces of the VM,

    snd 192.168.1.2 --- 192.168.1.1 rtr 192.168.2.1 --- 192.168.2.2 rcv (and 192.168.2.3)

with the dropper bound to the router namespace, sends numbered UDP datagrams across it with
udpflow and checks, to the packet, what the module dropped. Prints one line per check,
one ``RESULT {json}`` line with every check and its counts, and ``N passed, M failed``.
Never run it on a host: it loads a module and makes namespaces and addresses.
"""

from __future__ import annotations

import argparse
import ctypes
import errno
import json
import math
import os
import random
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

PROC_DIR = Path("/proc/dropperInfo")
PROC_DROPPER = PROC_DIR / "dropper"
PROC_NUM = PROC_DIR / "numDropped"
SENDER, ROUTER_IN, ROUTER_OUT, RECEIVER, OTHER = (
    "192.168.1.2",
    "192.168.1.1",
    "192.168.2.1",
    "192.168.2.2",
    "192.168.2.3",
)
TARGET = RECEIVER
CLONE_NEWNET = 0x40000000
BOUND = 0.001  # two-sided: the binomial 99.9 % interval
MALFORMED_WRITES = 1000
# Kernel log lines that mean something went wrong (warnings, oopses, leaks, lockups).
BAD_DMESG = re.compile(
    r"WARNING:|BUG:|Oops|general protection|Call Trace|kmemleak|still has objects|"
    r"refcount_t|list_(add|del) corruption|UBSAN|KASAN|stall|soft lockup|hung task|"
    r"Poison overwritten|Redzone|Object padding|double free"
)


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    counts: dict = field(default_factory=dict)


CHECKS: list[Check] = []


def check(name: str, ok: bool, detail: str = "", **counts) -> bool:
    """Record one check and print it at once (the VM's output streams to the host)."""
    CHECKS.append(Check(name, bool(ok), detail, counts))
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}", flush=True)
    return bool(ok)


def run(argv: list[str], ns: str | None = None, timeout: float = 120, **kw):
    """Run a program (in network namespace ``ns``); raise on failure."""
    if ns:
        argv = ["ip", "netns", "exec", ns, *argv]
    return subprocess.run(argv, check=True, timeout=timeout, text=True, capture_output=True, **kw)


# --- the network --------------------------------------------------------------------------


def ip_batch(ns: str | None, commands: str) -> None:
    argv = ["ip", *(["-n", ns] if ns else []), "-batch", "-"]
    subprocess.run(argv, input=commands, check=True, text=True, timeout=60)


def mac(ns: str, dev: str) -> str:
    out = run(["ip", "-n", ns, "-j", "link", "show", dev]).stdout
    return json.loads(out)[0]["address"]


def build_network() -> None:
    """Sender, router and receiver namespaces; static neighbours, so no ARP during a run."""
    for ns in ("snd", "rtr", "rcv"):
        run(["ip", "netns", "add", ns])
    ip_batch(
        None,
        "link add s0 netns snd type veth peer name r0 netns rtr\n"
        "link add r1 netns rtr type veth peer name c0 netns rcv\n",
    )
    ip_batch("snd", f"addr add {SENDER}/24 dev s0\nlink set lo up\nlink set s0 up\n")
    ip_batch(
        "rtr",
        f"addr add {ROUTER_IN}/24 dev r0\naddr add {ROUTER_OUT}/24 dev r1\n"
        "link set lo up\nlink set r0 up\nlink set r1 up\n",
    )
    ip_batch(
        "rcv",
        f"addr add {RECEIVER}/24 dev c0\naddr add {OTHER}/24 dev c0\n"
        "link set lo up\nlink set c0 up\n",
    )
    ip_batch("snd", f"route add default via {ROUTER_IN}\n")
    ip_batch("rcv", f"route add default via {ROUTER_OUT}\n")
    s0, r0, r1, c0 = mac("snd", "s0"), mac("rtr", "r0"), mac("rtr", "r1"), mac("rcv", "c0")
    ip_batch("snd", f"neigh replace {ROUTER_IN} lladdr {r0} dev s0 nud permanent\n")
    ip_batch(
        "rtr",
        f"neigh replace {SENDER} lladdr {s0} dev r0 nud permanent\n"
        f"neigh replace {RECEIVER} lladdr {c0} dev r1 nud permanent\n"
        f"neigh replace {OTHER} lladdr {c0} dev r1 nud permanent\n",
    )
    ip_batch("rcv", f"neigh replace {ROUTER_OUT} lladdr {r1} dev c0 nud permanent\n")
    run(["sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward"], ns="rtr")
    # Room in the per-CPU input queues, so that under emulation no datagram is lost there
    # and every missing one is the dropper's.
    Path("/proc/sys/net/core/netdev_max_backlog").write_text("100000\n")


def enter_netns(ns: str) -> None:
    """Move this process into ``ns``: its /proc writes then bind the dropper there."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {ns}")
    finally:
        os.close(fd)


def netns_id(pid: int | str = "self") -> str:
    return os.readlink(f"/proc/{pid}/ns/net")


# --- the module and its /proc files ----------------------------------------------------------


def insmod(module: str, *params: str) -> subprocess.CompletedProcess:
    return subprocess.run(["insmod", module, *params], text=True, capture_output=True, timeout=60)


def rmmod() -> subprocess.CompletedProcess:
    return subprocess.run(["rmmod", "dropper"], text=True, capture_output=True, timeout=120)


def read_settings() -> dict[str, str]:
    """/proc/dropperInfo/dropper as a dict of its ``key value`` lines."""
    lines = PROC_DROPPER.read_text().splitlines()
    return dict(line.split(" ", 1) for line in lines)


def read_num_dropped() -> int:
    return int(PROC_NUM.read_text())


def write(path: Path, data: bytes | str) -> int:
    """One write(2) of ``data``; 0 or the errno it failed with."""
    raw = data.encode() if isinstance(data, str) else data
    fd = os.open(path, os.O_WRONLY)
    try:
        written = os.write(fd, raw)
        return 0 if written == len(raw) else errno.EIO
    except OSError as err:
        return err.errno
    finally:
        os.close(fd)


def configure(*commands: str) -> None:
    for command in commands:
        err = write(PROC_DROPPER, command + "\n")
        if err:
            raise RuntimeError(f"write {command!r} to {PROC_DROPPER}: {os.strerror(err)}")


def counters() -> tuple[int, int, int]:
    """(target packets seen, drops since load, drops since reset)."""
    settings = read_settings()
    return int(settings["packets"]), int(settings["dropped"]), read_num_dropped()


# --- traffic -------------------------------------------------------------------------------


@dataclass
class Flow:
    count: int
    received: int
    missing: list[int]
    duplicates: int
    foreign: int
    rcvbuf_errors: int


class Flows:
    """Numbered UDP datagrams from one namespace to another, each on a fresh port."""

    def __init__(self, udpflow: str):
        self.udpflow = udpflow
        self.port = 5000

    def start_receiver(self, ns: str, count: int) -> tuple[subprocess.Popen, int]:
        self.port += 1
        recv = subprocess.Popen(
            ["ip", "netns", "exec", ns, self.udpflow, "recv", str(self.port), str(count)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert recv.stdout is not None
        if recv.stdout.readline().strip() != "ready":
            raise RuntimeError("udpflow recv did not start")
        return recv, self.port

    def start_sender(self, ns: str, dst: str, port: int, count: int, pps: int = 0):
        argv = [self.udpflow, "send", dst, str(port), str(count), str(pps)]
        return subprocess.Popen(
            ["ip", "netns", "exec", ns, *argv], stdout=subprocess.PIPE, text=True
        )

    @staticmethod
    def udp_counters(pid: int) -> dict[str, int]:
        """The Udp: line of /proc/PID/net/snmp (the receiver's namespace)."""
        lines = [ln.split() for ln in Path(f"/proc/{pid}/net/snmp").read_text().splitlines()]
        names, values = [ln for ln in lines if ln[0] == "Udp:"][:2]
        return dict(zip(names[1:], map(int, values[1:]), strict=True))

    def finish_receiver(self, recv: subprocess.Popen, count: int) -> Flow:
        """Wait until the receiver's namespace stops taking datagrams, then collect."""
        last, still = -1, 0
        deadline = time.monotonic() + 30
        while still < 3 and time.monotonic() < deadline:
            now = self.udp_counters(recv.pid)["InDatagrams"]
            still = still + 1 if now == last else 0
            last = now
            time.sleep(0.1)
        errors = self.udp_counters(recv.pid)["RcvbufErrors"]
        recv.send_signal(signal.SIGTERM)
        out, _ = recv.communicate(timeout=60)
        head, missing_line = out.strip().splitlines()[-2:]
        numbers = dict(zip(head.split()[::2], map(int, head.split()[1::2]), strict=True))
        missing = [int(x) for x in missing_line.split()[1:]]
        return Flow(
            count, numbers["received"], missing, numbers["duplicates"], numbers["foreign"], errors
        )

    def send(self, count: int, dst: str = TARGET, src: str = "snd", dst_ns: str = "rcv") -> Flow:
        recv, port = self.start_receiver(dst_ns, count)
        sender = self.start_sender(src, dst, port, count)
        sender.communicate(timeout=600)
        if sender.returncode != 0:
            raise RuntimeError(f"udpflow send exited {sender.returncode}")
        return self.finish_receiver(recv, count)


def clean_flow(flow: Flow) -> bool:
    """Every datagram that was not missing arrived once; the receiver lost none itself."""
    return (
        flow.received + len(flow.missing) == flow.count
        and flow.duplicates == 0
        and flow.rcvbuf_errors == 0
    )


# --- statistics ----------------------------------------------------------------------------


def binomial_bounds(n: int, p: float, alpha: float = BOUND) -> tuple[int, int]:
    """Smallest lo and largest hi with P(X < lo) <= alpha/2 and P(X > hi) <= alpha/2."""
    if p <= 0:
        return 0, 0
    if p >= 1:
        return n, n

    def pmf(k: int) -> float:
        logp = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
        return math.exp(logp + k * math.log(p) + (n - k) * math.log1p(-p))

    probs = [pmf(k) for k in range(n + 1)]
    lo, tail = 0, 0.0
    while lo < n and tail + probs[lo] <= alpha / 2:
        tail += probs[lo]
        lo += 1
    hi, tail = n, 0.0
    while hi > 0 and tail + probs[hi] <= alpha / 2:
        tail += probs[hi]
        hi -= 1
    return lo, hi


# --- the checks ----------------------------------------------------------------------------


def test_load_and_proc(module: str, init_ns: str) -> None:
    for bad in ("rate=1.5", "rate=0.1234567891", "target=192.168.2", "mode=nth", "rng=dice"):
        res = insmod(module, bad)
        check(
            f"insmod {bad} refused",
            res.returncode != 0 and not PROC_DIR.exists(),
            res.stderr.strip().splitlines()[-1] if res.stderr.strip() else "",
        )
    res = insmod(module, "rate=0.25", f"target={TARGET}", "mode=random", "every=6")
    if not check("insmod with parameters", res.returncode == 0, res.stderr.strip()):
        raise SystemExit(1)
    settings = read_settings()
    expected = {
        "rate": "0.25",
        "ip": TARGET,
        "mode": "random",
        "every": "6",
        "dropped": "0",
        "cutoff": "16383",
        "packets": "0",
        "rng": "kernel",
        "netns": init_ns,
    }
    check("parameters set the initial values", settings == expected, json.dumps(settings))
    for path in (PROC_DROPPER, PROC_NUM):
        st = path.stat()
        check(
            f"{path} is 0644 root",
            (st.st_mode & 0o777, st.st_uid) == (0o644, 0),
            f"mode {st.st_mode & 0o777:o}, uid {st.st_uid}",
        )
    check("numDropped reads 0", PROC_NUM.read_text() == "0\n", repr(PROC_NUM.read_text()))
    # The VM boots with slub_debug for the module's cache (vmtest.py): red zones, poisoning,
    # and a kernel warning at rmmod for any object the module did not free.
    poison = Path("/sys/kernel/slab/dropper_config/poison")
    check(
        "SLUB debugging armed on the module's cache",
        poison.exists() and poison.read_text().strip() == "1",
        str(poison),
    )


def test_writes(router_ns: str) -> None:
    configure("0.1 192.168.2.2")
    s = read_settings()
    check(
        "write 'RATE IP' (the report's command)",
        (s["rate"], s["ip"], s["cutoff"], s["netns"]) == ("0.1", TARGET, "6553", router_ns),
        f"rate {s['rate']} ip {s['ip']} cutoff {s['cutoff']}, bound to {s['netns']}",
    )
    configure("0.6 10.1.2.3")
    s = read_settings()
    check(
        "write '0.6 10.1.2.3' gives cutoff 39321",
        (s["rate"], s["ip"], s["cutoff"]) == ("0.6", "10.1.2.3", "39321"),
        json.dumps(s),
    )
    configure("mode regular", "every 7")
    s = read_settings()
    check(
        "write 'mode regular' and 'every 7'",
        (s["mode"], s["every"]) == ("regular", "7"),
        f"mode {s['mode']} every {s['every']}",
    )
    configure("mode random", "every 0", "0.000000001 192.168.2.2")
    s = read_settings()
    check(
        "write 'mode random', 'every 0', nine decimals",
        (s["mode"], s["every"], s["rate"], s["cutoff"]) == ("random", "0", "0.000000001", "0"),
        json.dumps(s),
    )
    before = PROC_DROPPER.read_text()
    proc = subprocess.run(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "sh",
            "-c",
            f"echo 0.5 1.2.3.4 > {PROC_DROPPER}",
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    check(
        "a user other than root cannot write",
        proc.returncode != 0 and PROC_DROPPER.read_text() == before,
        proc.stderr.strip(),
    )
    proc = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "cat", str(PROC_NUM)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    check("any user can read", proc.returncode == 0, proc.stdout.strip())


def malformed(rng: random.Random) -> bytes:
    """A write that no reading of the protocol accepts, by construction."""
    valid = ["0.1 192.168.2.2", "mode random", "mode regular", "every 6", "1 10.0.0.1"]
    kind = rng.randrange(6)
    if kind == 0:  # random bytes with one byte no command contains
        data = bytearray(rng.randbytes(rng.randrange(1, 80)))
        data[rng.randrange(len(data))] = rng.choice(b"!#$%&*+,-/:;<=>?@ABCXYZ[]^_{|}~\x00\x01\xff")
        return bytes(data)
    if kind == 1:  # a valid command with one character replaced by a foreign one
        text = bytearray(rng.choice(valid).encode())
        text[rng.randrange(len(text))] = rng.choice(b"-+/:;,xX\x00\x7f\xe9")
        return bytes(text)
    if kind == 2:  # a valid command with a third word, or the first word alone
        cmd = rng.choice(valid)
        return (
            (cmd + " " + rng.choice(["1", "x", "0.1", "192.168.2.2"])).encode()
            if rng.random() < 0.5
            else cmd.split()[0].encode()
        )
    if kind == 3:  # numbers out of range
        return rng.choice(
            [
                f"{rng.randint(2, 9)}.{rng.randint(0, 9)} 192.168.2.2",
                f"1.{rng.randint(1, 999999999):09d} 192.168.2.2",
                f"0.{rng.randint(0, 10**10 - 1):010d} 192.168.2.2",
                f"0.5 192.168.{rng.randint(256, 999)}.2",
                f"every {rng.randint(2**32, 2**40)}",
                f"every -{rng.randint(1, 100)}",
                f"0.5 {'.'.join(str(rng.randint(0, 255)) for _ in range(rng.choice([3, 5])))}",
            ]
        ).encode()
    if kind == 4:  # too long
        return b"0.1 192.168.2.2" + b" " * rng.randint(50, 200) + b"\n"
    return rng.choice(
        [
            b"\n",
            b" ",
            b"\t\n",
            b"0.1 192.168.2.2\n\n",
            b"mode\tregular\r\n",
            b"Mode random",
            b"reset",
            b"every 6\n6",
            b".5 192.168.2.2",
        ]
    )


def test_malformed() -> None:
    configure("0.3 192.168.2.2", "mode random", "every 5")
    before, num_before = PROC_DROPPER.read_text(), PROC_NUM.read_text()
    rng = random.Random(2001)
    refused = changed = 0
    for _ in range(MALFORMED_WRITES):
        data = malformed(rng)
        refused += write(PROC_DROPPER, data) == errno.EINVAL
        changed += PROC_DROPPER.read_text() != before
    check(
        f"{MALFORMED_WRITES} malformed writes to dropper answer EINVAL, change nothing",
        refused == MALFORMED_WRITES and changed == 0,
        f"{refused} refused with EINVAL, {changed} changed the settings",
        case="malformed-writes",
        writes=MALFORMED_WRITES,
        refused=refused,
        changed=changed,
    )
    bad_resets = [
        b"RESET",
        b"reset now",
        b"resett",
        b"reset\n\n",
        b"\n",
        b"0",
        b"reset\x00",
        b"r" * 100,
    ]
    refused = sum(write(PROC_NUM, data) == errno.EINVAL for data in bad_resets * 25)
    check(
        "malformed writes to numDropped answer EINVAL",
        refused == len(bad_resets) * 25 and PROC_NUM.read_text() == num_before,
        f"{refused} of {len(bad_resets) * 25}",
    )


def test_regular(flows: Flows) -> None:
    for every, count in ((6, 3000), (7, 2000), (1, 100), (0, 500)):
        configure("0 192.168.2.2", "mode regular", f"every {every}")
        write(PROC_NUM, "reset")
        seen0, dropped0, _ = counters()
        flow = flows.send(count)
        seen1, dropped1, num = counters()
        expected = [k for k in range(1, count + 1) if every and k % every == 0]
        check(
            f"regular N={every}: dropped exactly the target packets k = N, 2N, ...",
            clean_flow(flow)
            and flow.missing == expected
            and num == len(expected)
            and dropped1 - dropped0 == len(expected)
            and seen1 - seen0 == count,
            f"{count} sent, {flow.received} received, {len(flow.missing)} missing, "
            f"expected {len(expected)}; numDropped {num}, packets seen {seen1 - seen0}",
            case="regular",
            every=every,
            sent=count,
            received=flow.received,
            dropped=len(flow.missing),
            expected=len(expected),
            num_dropped=num,
        )


def test_regular_smp(flows: Flows) -> None:
    """Two senders at once (both CPUs): the shared count still drops exactly 1 in N."""
    every, count = 6, 3000
    configure("0 192.168.2.2", "mode regular", f"every {every}")
    write(PROC_NUM, "reset")
    seen0, _, _ = counters()
    receivers = [flows.start_receiver("rcv", count) for _ in range(2)]
    senders = [flows.start_sender("snd", TARGET, port, count) for _, port in receivers]
    for sender in senders:
        sender.communicate(timeout=600)
    results = [flows.finish_receiver(recv, count) for recv, _ in receivers]
    seen1, _, num = counters()
    missing = sum(len(flow.missing) for flow in results)
    total = 2 * count
    check(
        f"regular N={every}, two concurrent senders: {total // every} drops",
        all(clean_flow(f) for f in results)
        and missing == total // every == num
        and seen1 - seen0 == total,
        f"{total} sent, {missing} missing, numDropped {num}, packets seen {seen1 - seen0}",
        case="regular-2-senders",
        every=every,
        sent=total,
        dropped=missing,
        expected=total // every,
        num_dropped=num,
    )


def test_random(
    flows: Flows, rates=((0.02, 3000), (0.1, 3000), (0.5, 2000), (1, 400)), label: str = "random"
) -> None:
    for rate, count in rates:
        configure(f"{rate} 192.168.2.2", "mode random")
        write(PROC_NUM, "reset")
        cutoff = int(read_settings()["cutoff"])
        seen0, dropped0, _ = counters()
        flow = flows.send(count)
        seen1, dropped1, num = counters()
        p = cutoff / 65536
        lo, hi = binomial_bounds(count, p)
        dropped = len(flow.missing)
        consistent = (
            clean_flow(flow) and num == dropped == dropped1 - dropped0 and seen1 - seen0 == count
        )
        in_bounds = lo <= dropped <= hi
        check(
            f"{label} rate={rate}: drops within binomial 99.9 % bounds",
            consistent and in_bounds,
            f"{count} sent, {dropped} dropped (p = {cutoff}/65536, bounds [{lo}, {hi}]); "
            f"numDropped {num}, packets seen {seen1 - seen0}",
            case=label,
            rate=rate,
            cutoff=cutoff,
            sent=count,
            received=flow.received,
            dropped=dropped,
            lower=lo,
            upper=hi,
            num_dropped=num,
        )


def test_untouched(flows: Flows, init_ns: str, router_ns: str) -> None:
    configure("1 192.168.2.2", "mode random")
    seen0, _, _ = counters()
    other = flows.send(500, dst=OTHER)
    back = flows.send(500, dst=SENDER, src="rcv", dst_ns="snd")
    seen1, _, _ = counters()
    check(
        "packets to another address are untouched",
        clean_flow(other) and not other.missing and seen1 == seen0,
        f"500 sent to {OTHER}, {other.received} received, target packets seen {seen1 - seen0}",
        case="other-address",
        sent=500,
        received=other.received,
    )
    check(
        "packets in the other direction are untouched",
        clean_flow(back) and not back.missing,
        f"500 sent {RECEIVER} -> {SENDER}, {back.received} received",
        case="other-direction",
        sent=500,
        received=back.received,
    )
    # Bound to another namespace (here: by a write from the VM's initial one), the
    # router's packets pass; a write from the router binds it back.
    proc = subprocess.run(
        ["nsenter", "--net=/proc/1/ns/net", "sh", "-c", f"echo 1 {TARGET} > {PROC_DROPPER}"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    bound = read_settings()["netns"]
    away = flows.send(300)
    configure("1 192.168.2.2")
    check(
        "the dropper acts only in the namespace of its last writer",
        proc.returncode == 0
        and bound == init_ns
        and clean_flow(away)
        and not away.missing
        and read_settings()["netns"] == router_ns,
        f"bound to {bound}: 300 of 300 arrived through the router namespace",
    )


def test_unload_under_traffic(module: str, flows: Flows, router_ns: str) -> None:
    """Settings change and the module goes away while a transfer runs."""
    count = 12000
    configure("0.5 192.168.2.2", "mode random")
    recv, port = flows.start_receiver("rcv", count)
    sender = flows.start_sender("snd", TARGET, port, count, pps=3000)
    stop = threading.Event()
    writes, reads, read_errors = [0], [0], []

    def writer() -> None:
        cmds = [
            "0.1 192.168.2.2",
            "mode regular",
            "every 3",
            "mode random",
            "0.9 192.168.2.2",
            "every 0",
            "0.5 192.168.2.2",
        ]
        i = 0
        while not stop.is_set() and i < 400:
            try:
                if write(PROC_DROPPER, cmds[i % len(cmds)]) == 0:
                    writes[0] += 1
            except FileNotFoundError:
                break
            i += 1

    def reader() -> None:
        while not stop.is_set():
            try:
                PROC_DROPPER.read_text()
                PROC_NUM.read_text()
                reads[0] += 1
            except OSError as err:
                read_errors.append(err.errno)
                time.sleep(0.01)

    threads = [threading.Thread(target=writer), threading.Thread(target=reader)]
    for t in threads:
        t.start()
    time.sleep(1.5)
    held = os.open(PROC_DROPPER, os.O_RDONLY)  # an open file across the unload
    res = rmmod()
    unloaded_while_running = sender.poll() is None
    try:
        os.read(held, 100)
        held_read = "read succeeded"
    except OSError as err:
        held_read = os.strerror(err.errno)
    os.close(held)
    stop.set()
    for t in threads:
        t.join(timeout=60)
    sender.communicate(timeout=600)
    flow = flows.finish_receiver(recv, count)
    check(
        "settings changed and rmmod during a running transfer",
        res.returncode == 0
        and writes[0] > 0
        and not PROC_DIR.exists()
        and sender.returncode == 0
        and clean_flow(flow),
        f"{writes[0]} writes and {reads[0]} reads during the transfer, rmmod exit "
        f"{res.returncode} while sending: {unloaded_while_running}; {flow.received} of "
        f"{count} arrived; a file held open across rmmod reads: {held_read}",
        case="rmmod-under-traffic",
        writes=writes[0],
        sent=count,
        received=flow.received,
    )
    after = flows.send(500)
    check(
        "no dropping after rmmod",
        clean_flow(after) and not after.missing,
        f"{after.received} of 500 arrived",
        case="after-rmmod",
        sent=500,
        received=after.received,
    )


def test_tsc(module: str, flows: Flows, rate: float = 0.5, count: int = 2000) -> None:
    """The report's generator: counts must add up; its randomness is only reported."""
    res = insmod(module, "rng=tsc", f"target={TARGET}")
    if not check("insmod rng=tsc", res.returncode == 0, res.stderr.strip()):
        return
    configure(f"{rate} 192.168.2.2", "mode random")
    write(PROC_NUM, "reset")
    flow = flows.send(count)
    num = read_num_dropped()
    dropped = len(flow.missing)
    check(
        f"rng=tsc rate={rate}: counts agree (quality reported, not checked)",
        read_settings()["rng"] == "tsc" and clean_flow(flow) and num == dropped,
        f"{count} sent, {dropped} dropped ({dropped / count:.3f} for rate {rate}), "
        f"numDropped {num}",
        case="tsc",
        rate=rate,
        sent=count,
        dropped=dropped,
        num_dropped=num,
    )
    res = rmmod()
    check("rmmod", res.returncode == 0 and not PROC_DIR.exists(), res.stderr.strip())


def test_dmesg() -> None:
    log = subprocess.run(["dmesg"], capture_output=True, text=True, check=True).stdout
    bad = [line for line in log.splitlines() if BAD_DMESG.search(line)]
    ours = [line for line in log.splitlines() if "dropper" in line]
    check(
        "dmesg: no warning, oops or leak report",
        not bad,
        f"{len(bad)} bad lines"
        + (": " + " | ".join(bad[:5]) if bad else "")
        + f"; module lines: {len(ours)}",
    )
    for line in ours[-4:]:
        print(f"     dmesg: {line}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--module", required=True)
    parser.add_argument("--udpflow", required=True)
    args = parser.parse_args()
    if "virtme" not in Path("/proc/cmdline").read_text() or os.getuid() != 0:
        raise SystemExit("guest_test.py runs as root inside the test VM only (emusim.infra.vm)")
    start = time.monotonic()
    print(f"kernel {os.uname().release}, {os.cpu_count()} CPUs", flush=True)
    subprocess.run(["dmesg", "-C"], check=True)
    init_ns = netns_id()
    build_network()
    flows = Flows(args.udpflow)
    try:
        test_load_and_proc(args.module, init_ns)
        enter_netns("rtr")  # from here on this process writes as the router
        router_ns = netns_id()
        test_writes(router_ns)
        test_malformed()
        test_regular(flows)
        test_regular_smp(flows)
        test_random(flows)
        test_untouched(flows, init_ns, router_ns)
        test_unload_under_traffic(args.module, flows, router_ns)
        test_tsc(args.module, flows)
    except Exception as err:  # report, then still look at the kernel log
        check("test run completed", False, f"{type(err).__name__}: {err}")
        if PROC_DIR.exists():
            rmmod()
    test_dmesg()
    passed = sum(c.ok for c in CHECKS)
    failed = len(CHECKS) - passed
    result = {
        "kernel_release": os.uname().release,
        "elapsed_s": round(time.monotonic() - start, 1),
        "checks": [c.__dict__ for c in CHECKS],
    }
    print("RESULT " + json.dumps(result), flush=True)
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
