"""The emulation's self-check thresholds and its own latency: the calibration that the delay
split subtracts, the clock's integrity (interrupts while a run measured), and the receive
window the self-check's blast advertises.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence

from emusim.core import constants
from emusim.linux.shaper import byte_time_us, wire_time_us

# --- self-check -------------------------------------------------------------------------------

THROUGHPUT_TOLERANCE = (0.995, 1.005)
"""The self-check's TCP blast must reach this fraction of the line-rate limit (within 0.5 %:
in dilated time the emulation carries 0.9875 of it with a 5 000-write blast, whose handshake
and slow start are in its time; the self-check's blast is long enough that they are not)."""

DELAY_TOLERANCE_REL = 0.05
DELAY_TOLERANCE_US = 1.0
"""The fitted one-way delay may differ from the configured one by the larger of these: 5 %,
or 1 µs, the resolution of iputils' RTTs below 1 ms (a configured delay of 0 is met by an
emulator whose own latency is below it)."""


# --- the emulator's own latency: calibration, and the clock's integrity ------------------------

CALIBRATION_PING_SIZES = (56, 256, 1408, 1472)
"""Request sizes of the calibration's ping sweep: the report's two fitting sizes (256, 1408)
and the ends of its sweep."""
CALIBRATION_PING_COUNT = 10
CALIBRATION_PING_INTERVAL_S = 0.02


def modelled_intercept_us(rates_bps: Sequence[float]) -> float:
    """The intercept of RTT = a·size + b that a line of links at ``rates_bps`` (each link's
    rate, `Topology.link_rates_bps`) with no delay and no latency of its own gives: an echo
    crosses each link twice (request and reply), each time carrying the ICMP and IP headers
    plus Ethernet's 38 bytes on the wire at that link's rate: 2 · Σ_i 66 · 8 / rate_i."""
    ping_header_b = constants.ICMP_HEADER_B + constants.IP_HEADER_B
    return 2 * per_link_sum(lambda rate: wire_time_us(ping_header_b, rate), rates_bps)


def stack_latency_per_hop_us(intercept_us: float, rates_bps: Sequence[float]) -> float:
    """The emulator's own latency per hop (guest stack, veth, qdisc, timers), from the
    intercept of a ping sweep over the shaped links with netem's delay at 0: what the
    intercept holds beyond `modelled_intercept_us`, shared evenly over the 2·links egresses
    an echo crosses."""
    return (intercept_us - modelled_intercept_us(rates_bps)) / (2 * len(rates_bps))


def per_link_sum(f: Callable[[float], float], rates_bps: Sequence[float]) -> float:
    """Σ over the links of f(link's rate), summed per rate as f(rate) × the links at it: where
    every link has one rate this is exactly (links) × f(rate), the arithmetic before links
    had rates of their own, so a line of equal links gives the same bits as before."""
    return sum(n * f(rate) for rate, n in Counter(rates_bps).items())


def two_point_line(sizes, rtts) -> tuple[float, float]:
    """(slope, intercept) of the line through the mean RTT at the report's two fitting sizes:
    `emusim.inputs.delay.two_point_fit`'s arithmetic without numpy and pandas, which the VM would
    read over 9p at great cost (a test checks both agree)."""
    p1, p2 = constants.TWO_POINT_FIT_SIZES_B
    means = {}
    for p in (p1, p2):
        got = [r for s, r in zip(sizes, rtts, strict=True) if s == p]
        if not got:
            raise ValueError(f"two_point_line: no echo of {p} bytes came back")
        means[p] = sum(got) / len(got)
    slope = (means[p2] - means[p1]) / (p2 - p1)
    return slope, means[p1] - slope * p1


LINUX_RMEM_MAX_DEFAULT_B = 212992
"""net.core.rmem_max of a kernel that nobody set it on (SK_RMEM_MAX, include/net/sock.h)."""


def receive_window_scale(tcp_rmem_max_b: int, rmem_max_b: int = LINUX_RMEM_MAX_DEFAULT_B) -> int:
    """The window scale a Linux receiver offers: ilog2 of the larger of tcp_rmem[2] and
    net.core.rmem_max, less 15, within [0, 14] (tcp_select_initial_window,
    net/ipv4/tcp_output.c, 6.1). linux-2.2's profile: 2; linux-6.1's (4 MiB): 7."""
    space = min(max(tcp_rmem_max_b, rmem_max_b), 32767 << 14)  # MAX_TCP_WINDOW
    return min(max(space.bit_length() - 1 - 15, 0), 14)


def whole_segment_window_b(cap_b: int, mss_b: int, wscale: int) -> int:
    """The largest receive window up to ``cap_b`` that is a whole number of ``mss_b`` segments
    and of the window-scale unit 2^wscale (the unit a scaled window is advertised in).

    Why: a receive window that is not a whole number of segments leaves a fraction the sender
    never fills, and a window-limited Linux 6.1 transfer then runs below line rate
    deterministically; measured in the VM (dilated time, three-host line, 40 000 writes):
    23 000 B (15.9 segments) 0.9732 of line rate on both tries, 46 000 B 0.9897, against
    23 168 B (16 segments) 0.9986-0.9999 and 46 336 B (32) 0.9979-0.9999 (docs/mininet.md,
    "The self-check's window"). Linux 2.2 rounded its offered window to whole segments itself
    (__tcp_select_window, net/ipv4/tcp_output.c:444-455 of 2.2.16: "the largest window that
    is a nice multiple of mss"); 6.1 with a window scale only aligns it to 2^wscale."""
    unit = math.lcm(mss_b, 1 << wscale)
    if cap_b < unit:
        raise ValueError(f"a window of {cap_b} B holds no whole {unit}-byte unit")
    return cap_b // unit * unit


def line_rate_fraction(writes: int, elapsed_s: float, rate_bps: float) -> float:
    """Throughput as a fraction of the most the link allows, in the report's accounting:
    throughput_report_Bps = 1526 × writes / elapsed (emusim.analysis.stats) against its limit at
    line rate, rate/8 × 1526/1538 (each write is one 1538-byte-time frame). Equal to the wire
    throughput (1538 × writes / elapsed) over rate/8."""
    report_bps = constants.ETH_FRAME_REPORT_B * writes / elapsed_s
    limit = rate_bps / 8 * constants.ETH_FRAME_REPORT_B / constants.ETH_FRAME_WIRE_B
    return report_bps / limit


def delay_tolerance_us(configured_us: float) -> float:
    return max(DELAY_TOLERANCE_US, DELAY_TOLERANCE_REL * configured_us)


def delay_ok(fitted_us: float, configured_us: float) -> bool:
    return abs(fitted_us - configured_us) <= delay_tolerance_us(configured_us)


def path_delay_us(intercept_us: float, rates_bps: Sequence[float]) -> float:
    """One-way delay of a line of links at ``rates_bps`` from the intercept of a ping sweep's
    line, in the report's accounting (§3.2: each of the 2·links serialisations of an echo
    carries 54 header bytes at its link's rate; the inter-frame gap is inside the delay). For
    two links at one rate this is `emusim.inputs.delay.one_way_delay_us`."""
    header_us = 2 * per_link_sum(
        lambda rate: byte_time_us(constants.PING_OVERHEAD_REPORT_B, rate), rates_bps
    )
    return (intercept_us - header_us) / 2
