"""Analytic TCP throughput: Mathis et al. (1997) and Padhye et al. (1998), beside the runs.

Sources:

- M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The macroscopic behavior of the TCP congestion
  avoidance algorithm", ACM CCR 27(3), 1997: BW = (MSS / RTT) · C / √p with
  C = √(3 / (2b)), b packets acknowledged per ACK (√(3/2) without delayed ACKs, √(3/4) with
  an ACK every second segment). Derived for periodic loss, one loss per cycle of the window's
  sawtooth, and no timeouts.
- J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP throughput: a simple model and
  its empirical validation", ACM SIGCOMM 1998 (PFTK). `pftk_full` is its full model (the
  send rate B(p) with the timeout term and the receiver-window limit, eq. (30) and (31) in
  the SIGCOMM paper, eq. (27)-(28) in the ToN 2000 version).

Units: rates in packets (segments) per second, times in seconds. PFTK's B counts every
segment sent, retransmissions included; `goodput_pps` turns it into segments delivered.

What `p` is for our droppers (the models want a loss *event* rate, one congestion signal per
event, not a count of dropped packets):

- regular dropper, one target packet in N dropped: every N-th packet is lost, so the loss
  events are exactly periodic with p = 1/N. This is Mathis' own assumption.
- random dropper with rate q (drop when a 16-bit uniform number < cutoff, q = cutoff/65536):
  drops are independent, p = q. PFTK treats the packets after a loss in the same round as
  lost too (one event per round); with independent drops a second drop in a window is a
  separate packet loss but often the same event, so p = q overstates the event rate when the
  window holds several packets, most at high q. We keep p = q, the simple, documented choice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from emusim.core import constants


@dataclass(frozen=True)
class PathModel:
    """What the formulas need to know about the path and the TCP.

    rtt_s: round-trip time of a full segment and its ACK; t0_s: the retransmission timeout
    a loss without fast retransmit waits (the profile's minimum RTO on a LAN); w_max: the
    receiver's window in segments; b: segments acknowledged per ACK; line_rate_pps: the link's
    ceiling in full-size frames per second.
    """

    rtt_s: float
    t0_s: float
    w_max: float
    b: int = 2
    line_rate_pps: float = constants.LINK_RATE_bps / (8 * constants.ETH_FRAME_WIRE_B)


def _check_p(p: float) -> None:
    if not 0 < p < 1:
        raise ValueError(f"loss event rate p must be in (0, 1), not {p!r}")


def mathis_pps(p: float, model: PathModel) -> float:
    """Mathis et al.: C / (RTT √p) segments per second, C = √(3 / (2b))."""
    _check_p(p)
    c = math.sqrt(3 / (2 * model.b))
    return c / (model.rtt_s * math.sqrt(p))


def pftk_timeout_factor(p: float) -> float:
    """f(p) = 1 + p + 2p² + 4p³ + 8p⁴ + 16p⁵ + 32p⁶: the mean length of a timeout sequence
    in units of T0, with the backoff doubling up to 64 T0 (PFTK eq. 25)."""
    return sum(2 ** max(k - 1, 0) * p**k for k in range(7))


def pftk_q_hat(p: float, w: float) -> float:
    """Q̂(w): probability that a loss in a window of w segments ends in a timeout (PFTK eq. 24)."""
    _check_p(p)
    if w <= 3:
        return 1.0
    q = 1 - p
    value = (1 - q**3) * (1 + q**3 * (1 - q ** (w - 3))) / (1 - q**w)
    return min(1.0, value)


def pftk_expected_window(p: float, b: int) -> float:
    """E[W_u], the unconstrained mean window at a loss indication (PFTK eq. 13)."""
    _check_p(p)
    k = (2 + b) / (3 * b)
    return k + math.sqrt(8 * (1 - p) / (3 * b * p) + k * k)


def pftk_full_pps(p: float, model: PathModel) -> float:
    """PFTK's full model: the send rate B(p) in segments per second, retransmissions included."""
    _check_p(p)
    b, rtt, t0, w_max = model.b, model.rtt_s, model.t0_s, model.w_max
    f = pftk_timeout_factor(p)
    ew = pftk_expected_window(p, b)
    if ew < w_max:
        q_hat = pftk_q_hat(p, ew)
        segments = (1 - p) / p + ew + q_hat / (1 - p)
        time_s = rtt * (b / 2 * ew + 1) + q_hat * t0 * f / (1 - p)
    else:
        q_hat = pftk_q_hat(p, w_max)
        segments = (1 - p) / p + w_max + q_hat / (1 - p)
        time_s = rtt * (b / 8 * w_max + (1 - p) / (p * w_max) + 2) + q_hat * t0 * f / (1 - p)
    return segments / time_s


def goodput_pps(send_rate_pps: float, p: float, model: PathModel) -> float:
    """Segments delivered per second: the send rate less the fraction p lost, under the line."""
    return min(send_rate_pps * (1 - p), model.line_rate_pps)


def data_rtt_s(one_way_delay_us: float, link_rate_bps: float = constants.LINK_RATE_bps) -> float:
    """RTT of a full data segment and its ACK on the testbed, from the fitted one-way delay.

    The report's delay model (§3.2) charges each frame its size plus the 26-byte wrapper on
    each of the two links: RTT = 2 d + 2 (1526 + 78) · 8 / rate, 78 = a 52-byte ACK (with the
    timestamp option) plus the wrapper.
    """
    ack_frame_b = 52 + constants.ETH_WRAPPER_REPORT_B
    serialisation_s = 2 * (constants.ETH_FRAME_REPORT_B + ack_frame_b) * 8 / link_rate_bps
    return 2 * one_way_delay_us * 1e-6 + serialisation_s


def report_throughput_Bps(goodput: float) -> float:
    """The report's accounting: 1526 bytes per delivered segment (§3.1.1)."""
    return goodput * constants.ETH_FRAME_REPORT_B


# ns-3 3.44's defaults for the attributes the models read, where a profile leaves them alone
# (tcp-socket-base.cc: MinRto 1 s; tcp-socket.cc: RcvBufSize 131072, DelAckCount 2).
NS3_DEFAULTS = {
    "ns3::TcpSocketBase::MinRto": "1s",
    "ns3::TcpSocket::RcvBufSize": "131072",
    "ns3::TcpSocket::DelAckCount": "2",
}


def _seconds(value: str) -> float:
    """An ns-3 time string ("200ms", "1s", "3s") in seconds."""
    for suffix, scale in (("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("s", 1.0)):
        if value.endswith(suffix):
            return float(value[: -len(suffix)]) * scale
    raise ValueError(f"not an ns-3 time: {value!r}")


def path_model(attributes: dict[str, str], rtt_s: float) -> PathModel:
    """The formulas' inputs from a profile's ns-3 attributes: T0 = the minimum RTO (on a LAN
    the RTO sits at its floor), Wmax = the receive buffer in segments, b = DelAckCount."""
    attrs = {**NS3_DEFAULTS, **attributes}
    segment_b = int(attrs["ns3::TcpSocket::SegmentSize"])
    return PathModel(
        rtt_s=rtt_s,
        t0_s=_seconds(attrs["ns3::TcpSocketBase::MinRto"]),
        w_max=int(attrs["ns3::TcpSocket::RcvBufSize"]) // segment_b,
        b=int(attrs["ns3::TcpSocket::DelAckCount"]),
    )


MODELS = {
    "Mathis": lambda p, m: mathis_pps(p, m),
    "PFTK": lambda p, m: goodput_pps(pftk_full_pps(p, m), p, m),
}
"""Goodput in segments/s per model. Mathis' formula already counts delivered segments."""


def curve_rows(
    loss_rates: list[float], model: PathModel, profile: str, models: tuple[str, ...] = ("PFTK",)
) -> list[dict]:
    """Report-accounting throughput of each model at each loss event rate, as table rows."""
    rows = []
    for name in models:
        for p in loss_rates:
            if p <= 0:
                continue
            goodput = min(MODELS[name](p, model), model.line_rate_pps)
            rows.append(
                {
                    "model": name,
                    "profile": profile,
                    "p": p,
                    "goodput_pps": goodput,
                    "throughput_report_Bps": report_throughput_Bps(goodput),
                    "rtt_s": model.rtt_s,
                    "t0_s": model.t0_s,
                    "w_max": model.w_max,
                    "b": model.b,
                }
            )
    return rows
