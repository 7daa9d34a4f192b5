"""The ecn-marking study's claim and numbers, on hand-made comparison rows."""

import pandas as pd

from emusim.inputs import scenario as sc
from emusim.studies import ecn_marking
from emusim.studies.ecn_marking.numbers import ecn_numbers

SPEC = {
    "link_rate_Mbps": 50,
    "access_rate_Mbps": 100,
    "delay_ms": 10,
    "queue_packets": 1000,
    "aqm": {"kind": "codel", "target_us": 5000, "interval_us": 100000, "ecn": True,
            "ce_threshold_us": 1000},
    "transfer_bytes": 6906 * 1448,
    "variants": ["dctcp", "cubic"],
}  # fmt: skip


def test_it_claims_the_scenarios_with_a_queue_that_marks_and_no_other():
    assert ecn_marking.STUDY.claims(sc.load("ecn-marking", "quick"))
    assert not ecn_marking.STUDY.claims(sc.load("lossy-link", "quick"))


def test_numbers_from_the_comparison_rows():
    compare = pd.DataFrame(
        [
            {"variant": "dctcp", "metric": "goodput_Bps", "mininet": 4.0e6, "ns3": 3.9e6,
             "rel_diff": 0.025},
            {"variant": "dctcp", "metric": "link_ce_fraction_forward", "mininet": 0.05,
             "ns3": 0.04, "rel_diff": 0.2},
            {"variant": "cubic", "metric": "goodput_Bps", "mininet": 5.5e6, "ns3": 5.6e6,
             "rel_diff": -0.1 / 5.5},
        ]
    )  # fmt: skip
    got = ecn_numbers("ecn-marking", compare, SPEC)
    assert got["EcnMarkingDctcpGoodputNsThree"] == "3.900"
    assert got["EcnMarkingDctcpGoodputMininet"] == "4.000"
    assert got["EcnMarkingDctcpGoodputRelDiff"] == "0.025"
    # fractions in per cent
    assert got["EcnMarkingDctcpMarkedNsThree"] == "4.00"
    assert got["EcnMarkingDctcpMarkedMininet"] == "5.00"
    assert got["EcnMarkingCubicGoodputRelDiff"] == "-0.018"
    # cubic was not marked: no row, n/a
    assert got["EcnMarkingCubicMarkedNsThree"] == "n/a"
    assert got["EcnMarkingTargetMs"] == "5" and got["EcnMarkingCeThresholdMs"] == "1"
    assert got["EcnMarkingTransferMB"] == "10.0"
    # nothing ran: every result n/a, the design still stated
    none = ecn_numbers("ecn-marking", None, SPEC)
    assert none["EcnMarkingDctcpGoodputNsThree"] == "n/a"
    assert none["EcnMarkingLinkMbps"] == "50"
