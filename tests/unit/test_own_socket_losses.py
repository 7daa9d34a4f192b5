"""benchmarks/own_socket_losses_traced.py: its reading of bbr_main's probe, on hand-made calls."""

import importlib.util

import pytest

from emusim.core.paths import REPO_ROOT


@pytest.fixture(scope="module")
def bench():
    path = REPO_ROOT / "benchmarks" / "own_socket_losses_traced.py"
    spec = importlib.util.spec_from_file_location("own_socket_losses_traced", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _line(sk, state, cwnd, delivered, losses, acked, prior, next_round, mode):
    return (
        f"  multiflow-1 [000] DBZff 1.0: main: (0x7f0) sk={sk} icsk_ca_state={state} "
        f"snd_cwnd={cwnd} delivered={delivered} losses={losses} acked_sacked={acked} "
        f"prior_delivered={prior} next_rtt_delivered={next_round} mode_word={mode}"
    )


def test_a_wrapped_byte_count_and_probe_rtt_are_told_from_a_round_in_progress(bench):
    mss = bench.MSS_BYTES
    delivered = 3_015_638  # segments: past 2^32 bytes
    # what 32 bits of bytes leave of a sample that started 100 segments ago, in segments
    wrapped = ((delivered - 100) * mss % 2**32) // mss
    text = "\n".join(
        [
            # in Loss: one loss and one delivered on the ACK, a round in progress
            _line("0xa", 4, 4, 5000, 1, 1, 4990, 5000, 2),
            # in Open: PROBE_RTT (mode 3, prev_ca_state 0) with the sample's start wrapped
            _line("0xb", 0, 4, delivered, 0, 2, wrapped, delivered - 50, 3),
            # in Open: PROBE_BW (2), an ordinary round in progress
            _line("0xb", 0, 900, 10_000, 0, 2, 9_990, 10_000, 2 | (3 << 3)),
            "# a comment line is not a call",
        ]
    )
    frame = bench.calls(text)
    assert len(frame) == 3 and frame["sk"].tolist() == ["0xa", "0xb", "0xb"]
    table = bench.summary(frame)
    assert table.loc["Loss", "share_with_losses"] == 1.0
    assert table.loc["Loss", "share_prior_wrapped"] == 0.0
    assert table.loc["Open", "share_probe_rtt"] == 0.5
    assert table.loc["Open", "share_prior_wrapped"] == 0.5
    assert table.loc["Open", "max_delivered_GiB"] == pytest.approx(delivered * mss / 2**30)
    assert table.loc["Open", "max_delivered_GiB"] > 4
