"""Mathis and PFTK against hand-worked values (the steps are in the comments)."""

import math

import pytest

from emusim.studies.report_2001 import analytic

# RTT 100 ms, T0 1 s, b = 2, p = 0.01: the example worked by hand below.
HAND = analytic.PathModel(rtt_s=0.1, t0_s=1.0, w_max=1000, b=2, line_rate_pps=1e9)


def test_mathis_by_hand():
    # C = sqrt(3/4) = 0.8660254; C / (RTT sqrt(p)) = 0.8660254 / (0.1 x 0.1) = 86.60254 pkt/s
    assert analytic.mathis_pps(0.01, HAND) == pytest.approx(86.60254, rel=1e-6)
    # Quadrupling p halves the rate.
    assert analytic.mathis_pps(0.04, HAND) == pytest.approx(86.60254 / 2, rel=1e-6)


def test_timeout_factor_by_hand():
    # f(p) = 1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6
    assert analytic.pftk_timeout_factor(0.5) == pytest.approx(1 + 0.5 + 0.5 + 0.5 + 0.5 + 0.5 + 0.5)
    assert analytic.pftk_timeout_factor(0.01) == pytest.approx(1.0102040816, rel=1e-9)


def test_pftk_full_by_hand_unconstrained_window():
    # E[W] = 4/6 + sqrt(8 x 0.99 / 0.06 + (4/6)^2) = 0.666667 + sqrt(132.444444) = 12.175118
    assert analytic.pftk_expected_window(0.01, 2) == pytest.approx(12.175118, rel=1e-6)
    # Q(E[W]) = (1 - 0.99^3)(1 + 0.99^3 (1 - 0.99^9.175118)) / (1 - 0.99^12.175118)
    #         = 0.029701 x 1.085473 / 0.115174 = 0.279922
    assert analytic.pftk_q_hat(0.01, 12.175118) == pytest.approx(0.279922, rel=1e-4)
    # numerator   99 + 12.175118 + 0.279922 / 0.99            = 111.457865
    # denominator 0.1 (12.175118 + 1) + 0.279922 x 1.010204 / 0.99 = 1.317512 + 0.285636
    # B = 111.457865 / 1.603148 = 69.5246 pkt/s
    assert analytic.pftk_full_pps(0.01, HAND) == pytest.approx(69.5246, rel=2e-4)


def test_pftk_full_by_hand_window_limited():
    model = analytic.PathModel(rtt_s=0.1, t0_s=1.0, w_max=8, b=2, line_rate_pps=1e9)
    # Q(8) = 0.029701 (1 + 0.970299 (1 - 0.99^5)) / (1 - 0.99^8) = 0.031113 / 0.077255 = 0.402733
    # numerator   99 + 8 + 0.402733 / 0.99 = 107.406801
    # denominator 0.1 (2/8 x 8 + 0.99 / 0.08 + 2) + 0.402733 x 1.010204 / 0.99
    #           = 1.6375 + 0.410948 = 2.048448
    # B = 52.4331 pkt/s
    assert analytic.pftk_full_pps(0.01, model) == pytest.approx(52.4331, rel=2e-4)


def test_q_hat_small_window_always_times_out():
    assert analytic.pftk_q_hat(0.05, 3) == 1.0
    assert analytic.pftk_q_hat(0.05, 2.5) == 1.0


@pytest.mark.parametrize("p", [0.0, 1.0, -0.1, 1.5])
def test_loss_rate_outside_open_interval_is_refused(p):
    with pytest.raises(ValueError, match="loss event rate"):
        analytic.pftk_full_pps(p, HAND)


def test_testbed_rtt_by_hand():
    # 2 x 71.888 us + 2 x (1526 + 78) B x 8 / 1e8 b/s = 143.776 + 256.64 = 400.416 us
    assert analytic.data_rtt_s(71.888) == pytest.approx(400.416e-6, rel=1e-9)


def test_goodput_is_capped_by_the_line():
    model = analytic.PathModel(rtt_s=4e-4, t0_s=0.2, w_max=22)
    # 1e8 / (8 x 1538) = 8127.44 frames/s
    assert model.line_rate_pps == pytest.approx(8127.438, rel=1e-6)
    assert analytic.goodput_pps(1e6, 0.001, model) == pytest.approx(8127.438, rel=1e-6)
    assert analytic.goodput_pps(100.0, 0.1, model) == pytest.approx(90.0)


def test_path_model_from_profile_attributes():
    attrs = {
        "ns3::TcpSocket::SegmentSize": "1448",
        "ns3::TcpSocketBase::MinRto": "200ms",
        "ns3::TcpSocket::RcvBufSize": "31856",
    }
    model = analytic.path_model(attrs, rtt_s=4e-4)
    assert (model.t0_s, model.w_max, model.b) == (0.2, 22, 2)
    # ns-3's defaults where the profile is silent: MinRto 1 s, RcvBufSize 131072 -> 90 segments
    default = analytic.path_model({"ns3::TcpSocket::SegmentSize": "1448"}, rtt_s=4e-4)
    assert (default.t0_s, default.w_max) == (1.0, 90)


def test_curves_fall_with_loss_and_timeouts_dominate_at_high_loss():
    model = analytic.PathModel(rtt_s=4e-4, t0_s=0.2, w_max=22)
    rows = analytic.curve_rows([0.01, 0.05, 0.1], model, "x", models=("PFTK", "Mathis"))
    pftk = [r["goodput_pps"] for r in rows if r["model"] == "PFTK"]
    assert pftk == sorted(pftk, reverse=True)
    # At 10 % loss on a LAN the timeout term dwarfs the RTT term: the rate is near
    # 1 / (T0 p (1 + 32 p^2)) = 1 / (0.2 x 0.1 x 1.32) = 37.9 pkt/s, within the q-hat factor.
    at_10 = next(r for r in rows if r["model"] == "PFTK" and r["p"] == 0.1)
    assert 20 < at_10["goodput_pps"] < 80
    assert math.isclose(at_10["throughput_report_Bps"], at_10["goodput_pps"] * 1526)
