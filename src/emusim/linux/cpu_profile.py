"""Where a Linux machine's CPU time goes during one run, by component of the packet's path.

`record` samples every CPU with perf's ``cpu-clock`` event for as long as its block runs
(``perf record -a``); `symbols` reads the samples back per symbol; `components` sums them
into the path's components by the symbol's name (`COMPONENTS`). In a VM in dilated time the
guest's clock is its instruction count, so a sample every PERIOD_NS of guest time is a sample
every PERIOD_NS instructions (at icount shift 0): the shares are shares of the instructions
the guest executed, which is what the host pays for (docs/mininet.md, "Cost per component").

The components are told apart by the function a sample landed in, not by the namespace or
device it served: one kernel runs every host of the topology, so a qdisc's cost is the sum
over every hop's qdisc, and TCP's send and receive sides are told apart by which functions
only one of them calls (tcp_sendmsg, tcp_write_xmit, tcp_ack... against tcp_rcv_*,
tcp_data_queue, tcp_recvmsg...); what both call (tcp_v4_rcv, the socket lock) is "TCP, both".
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

PERIOD_NS = 100_000
"""One sample per 100 µs of CPU time: 10 000 a second per CPU. A sample costs the guest the
timer interrupt and perf's write of the sample, a few thousand instructions: a few per cent
of the 100 000 between samples (measured: docs/mininet.md, "Cost per component")."""

COMPONENTS: tuple[tuple[str, str], ...] = (
    # (component, regular expression on the symbol), the first match wins
    (
        "idle",
        r"^(default_idle|native_safe_halt|.*cpuidle.*|do_idle|poll_idle|acpi_idle.*|"
        r"arch_cpu_idle.*|cpu_startup_entry|mwait_idle.*)$",
    ),
    ("user space", r"^\[\.\]"),
    ("checksum", r"csum|checksum"),
    (
        "copy to/from user",
        r"^(copy_user_\w+|_copy_(to|from)_user|copyout|copyin|"
        r"__copy_user\w*|rep_movs_alternative|copy_page_\w+)$",
    ),
    (
        "dropper and netfilter",
        r"^(dropper\w*|nf_hook_slow|ipt_do_table|nft_\w+|statistic_mt|xt_\w+|"
        r"nf_\w+|__nf_\w+)$",
    ),
    (
        "qdisc (netem, HTB, FIFO)",
        r"^(netem_\w+|tfifo_\w+|htb_\w+|tbf_\w+|pfifo_\w+|"
        r"bfifo_\w+|__qdisc_\w+|qdisc_\w+|sch_direct_xmit|"
        r"dequeue_skb|dev_qdisc_enqueue|__dev_xmit_skb|"
        r"psched_\w+|fq_codel_\w+)$",
    ),
    ("bridge or switch", r"^(br_\w+|__br_\w+|ovs_\w+|nbp_\w+)$"),
    (
        "veth and device layer",
        r"^(veth_\w+|__veth_\w+|__dev_queue_xmit|dev_queue_xmit\w*|"
        r"dev_hard_start_xmit|netif_\w+|__netif_\w+|napi_\w+|"
        r"__napi_\w+|net_rx_action|process_backlog|"
        r"enqueue_to_backlog|eth_type_trans|validate_xmit_\w+|"
        r"skb_network_protocol|netdev_\w+|dev_\w+|gro_\w+|"
        r"__netif_receive_skb\w*|inet_gro_\w+|tcp4?_gro_\w+)$",
    ),
    (
        "TCP send side",
        r"^(tcp_sendmsg\w*|tcp_write_xmit|__tcp_transmit_skb|"
        r"tcp_transmit_skb|tcp_push\w*|__tcp_push_\w+|tcp_ack\w*|"
        r"tcp_clean_rtx_queue\w*|tcp_rate_\w+|tcp_\w*cwnd\w*|"
        r"tcp_\w*cong\w*|tcp_stream_alloc_skb|tcp_skb_entail|"
        r"tcp_mstamp_refresh|tcp_wfree|tcp_tso_\w+|tcp_small_queue_\w+|"
        r"tcp_established_options|tcp_options_write|tcp_send_mss|"
        r"tcp_current_mss|tcp_schedule_loss_probe|tcp_rearm_rto|"
        r"tcp_event_new_data_sent|tcp_check_space|tcp_new_space|"
        r"tcp_sacktag_\w+|bictcp_\w+|cubictcp_\w+|tcp_reno_\w+|"
        r"tcp_update_pacing_rate|tcp_chrono_\w+|sk_stream_\w+|"
        r"skb_do_copy_data_nocache|tcp_rtt_estimator|tcp_set_rto)$",
    ),
    (
        "TCP receive side",
        r"^(tcp_rcv_\w+|tcp_data_queue\w*|tcp_recvmsg\w*|"
        r"tcp_event_data_recv|__tcp_ack_snd_check|tcp_send_ack|"
        r"__tcp_send_ack\w*|tcp_send_delayed_ack|tcp_cleanup_rbuf|"
        r"tcp_queue_rcv|tcp_rcv_space_adjust|tcp_grow_window|"
        r"tcp_measure_rcv_mss|tcp_try_rmem_schedule|tcp_ofo_queue|"
        r"tcp_urg|tcp_fast_path_check|tcp_update_recv_tstamps|"
        r"skb_copy_datagram_iter|__skb_datagram_iter|simple_copy_to_iter|"
        r"tcp_parse_\w+|tcp_validate_incoming|tcp_rbtree_insert)$",
    ),
    (
        "TCP, both sides",
        r"^(tcp_\w+|__tcp_\w+|inet_\w+|__inet_\w+|sk_\w+|__sk_\w+|sock_\w+|"
        r"__sock_\w+|release_sock|lock_sock\w*|__release_sock)$",
    ),
    (
        "IP and routing",
        r"^(ip_\w+|__ip_\w+|ipv4_\w+|fib\w*|__fib\w*|dst_\w+|neigh_\w+|"
        r"__neigh_\w+|raw_local_deliver|icmp_\w+|ip_route_\w+|rt_\w+)$",
    ),
    (
        "socket buffers and memory",
        r"^(__alloc_skb|alloc_skb\w*|kfree_skb\w*|__kfree_skb|"
        r"skb_\w+|__skb_\w+|consume_skb|kmem_cache_\w+|"
        r"__kmalloc\w*|kmalloc\w*|kfree|__slab_\w+|___slab_\w+|"
        r"page_frag_\w+|__page_frag_\w+|memcg_\w+|"
        r"__mod_\w+|get_page_from_freelist|free_\w*page\w*|"
        r"__free_pages\w*|clear_page_\w+|memcpy\w*|memset\w*|"
        r"memmove\w*|__memcpy\w*|__memset\w*|skb_release_\w+|"
        r"pskb_\w+|__pskb_\w+|build_skb\w*|napi_alloc_\w+)$",
    ),
    (
        "interrupts, timers, scheduler",
        r"^(.*irq.*|.*softirq.*|hrtimer_\w+|__hrtimer_\w+|"
        r".*timer.*|.*sched.*|__schedule|schedule\w*|"
        r"try_to_wake_up|.*wake_up.*|ktime_\w+|"
        r"clockevents_\w+|lapic_\w+|native_apic_\w+|"
        r"tick_\w+|update_\w+|enqueue_\w+|dequeue_\w+|"
        r"pick_next_\w+|finish_task_switch\w*|"
        r"__switch_to\w*|rcu_\w+|__rcu_\w+|finish_task_switch|"
        r"tasklet_\w+|handle_softirqs|_raw_spin_\w+)$",
    ),
    ("system calls and other kernel", r".*"),
)
"""The path's components and the kernel 6.1 functions that are theirs (by name)."""

_PATTERNS = tuple((name, re.compile(rx)) for name, rx in COMPONENTS)
_CLONE_SUFFIX = re.compile(r"(\.(constprop|isra|part|cold|llvm|lto_priv)\.\d+)+$")


def component_of(symbol: str) -> str:
    """The component of a symbol as perf prints it (``[k] tcp_sendmsg``, ``[.] main``)."""
    kind, _, name = symbol.partition(" ")
    if kind == "[.]":
        return "user space"
    # the compiler's clones keep their function's name: tcp_ack.part.0, x.constprop.0.isra.0
    name = _CLONE_SUFFIX.sub("", name.strip() or kind)
    for component, pattern in _PATTERNS:
        if component != "user space" and pattern.search(name):
            return component
    return "system calls and other kernel"


@contextlib.contextmanager
def record(data: Path, period_ns: int = PERIOD_NS) -> Iterator[None]:
    """Sample every CPU (perf's cpu-clock, one sample per ``period_ns``) while the block runs,
    into ``data``. perf starts with its events off (``--delay=-1``) and turns them on and off
    through its control FIFO, each acknowledged, so the samples cover the block and nothing of
    perf's own start (which may wait on a file system) or end."""
    ctl, ack = data.with_suffix(".ctl"), data.with_suffix(".ack")
    for fifo in (ctl, ack):
        os.mkfifo(fifo)
    proc = subprocess.Popen(
        ["perf", "record", "-q", "-a", "-e", "cpu-clock", "-c", str(period_ns), "-o", str(data),
         "--delay=-1", f"--control=fifo:{ctl},{ack}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    # Read and write: a FIFO's reader sees end-of-file while it has no writer, and perf may
    # open its end of the acknowledgements a moment after its end of the commands.
    acks = os.fdopen(os.open(ack, os.O_RDWR), "r")
    control = os.fdopen(_open_fifo(ctl, os.O_WRONLY, proc), "w")
    with control, acks:

        def command(word: str) -> None:
            control.write(word + "\n")
            control.flush()
            reply = acks.readline().strip("\x00 \n")  # perf writes "ack\n" and its NUL
            if reply != "ack":
                raise RuntimeError(f"perf record: {word!r} answered {reply!r}")

        command("enable")
        try:
            yield
        finally:
            command("disable")
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=600)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    if proc.returncode not in (0, -signal.SIGINT):
        raise RuntimeError(f"perf record exited with {proc.returncode}: {proc.stderr.read()}")


def _open_fifo(path: Path, mode: int, proc: subprocess.Popen, timeout_s: float = 600) -> int:
    """Open a FIFO perf holds the other end of, without blocking forever if perf failed: a
    writer's open fails (ENXIO) until the reader is there. Returns a blocking descriptor."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            fd = os.open(path, mode | os.O_NONBLOCK)
            os.set_blocking(fd, True)
            return fd
        except OSError as err:
            if err.errno != errno.ENXIO:
                raise
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"perf record did not start: {proc.stderr.read().strip()}")
        time.sleep(0.05)


def symbols(data: Path) -> dict[str, int]:
    """Samples per symbol (``[k] name`` or ``[.] name``) of a perf.data file."""
    out = subprocess.run(
        ["perf", "report", "-i", str(data), "--stdio", "--no-children", "-n", "--sort", "sym",
         "--percent-limit", "0"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return parse_report(out)


_REPORT_LINE = re.compile(r"^\s*[\d.]+%\s+(\d+)\s+(\[[k.]\]\s+.*?)\s*$")


def parse_report(text: str) -> dict[str, int]:
    """``perf report --stdio -n --sort sym``'s lines: overhead, samples, symbol."""
    counts: dict[str, int] = {}
    for line in text.splitlines():
        m = _REPORT_LINE.match(line)
        if m:
            symbol = re.sub(r"\s+", " ", m.group(2))
            counts[symbol] = counts.get(symbol, 0) + int(m.group(1))
    return counts


def components(counts: dict[str, int]) -> dict[str, int]:
    """Samples per component (`COMPONENTS`' order), from samples per symbol."""
    out = {name: 0 for name, _ in COMPONENTS}
    for symbol, n in counts.items():
        out[component_of(symbol)] += n
    return out


def summary(counts: dict[str, int], period_ns: int = PERIOD_NS, top: int = 25) -> dict:
    """What a run records: the sampling period, samples per component, the top symbols, and
    every symbol's samples (so that the components can be summed again with other rules)."""
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])[:top]
    return {
        "event": "cpu-clock",
        "period_ns": period_ns,
        "samples": sum(counts.values()),
        "components": components(counts),
        "symbols": dict(sorted(counts.items(), key=lambda kv: -kv[1])),
        "top_symbols": [
            {"symbol": s, "samples": n, "component": component_of(s)} for s, n in ranked
        ],
    }
