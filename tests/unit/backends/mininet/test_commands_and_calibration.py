"""The Mininet backend's command builders and tables, against hand-computed values (no root).

Every expected number here is worked out by hand in the comment beside it, not with the
code under test.
"""

import csv
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from emusim.backends.mininet import batch, host
from emusim.backends.mininet.calibration import (
    THROUGHPUT_TOLERANCE,
    delay_ok,
    line_rate_fraction,
    modelled_intercept_us,
    path_delay_us,
    receive_window_scale,
    stack_latency_per_hop_us,
    two_point_line,
    whole_segment_window_b,
)
from emusim.backends.mininet.cli import main
from emusim.backends.mininet.executor import resolve_impl, selfcheck_window_b
from emusim.backends.mininet.host import Capabilities, EmuError, need_root
from emusim.backends.mininet.plan import (
    BatchError,
    decide_place,
    make_plan,
    one_way_delay_us,
    point_is_random,
    run_path,
    scenario_dropper_impl,
)
from emusim.backends.mininet.topology import (
    IFNAMSIZ,
    ROLES,
    Topology,
    intf_name,
    new_batch_id,
    node_name,
    offload_command,
    offloads_still_on,
)
from emusim.backends.mininet.writer import evaluate_selfcheck
from emusim.core.paths import SPEC_DIR
from emusim.inputs import scenario as sc
from emusim.inputs import tcp_profiles
from emusim.linux.dropper import (
    module_rate,
    module_writes,
    netfilter_probability,
    netfilter_rule,
    parse_rule_packets,
)
from emusim.linux.shaper import (
    ETH_HEADER_B,
    QDISC_OVERHEAD_B,
    delay_shortfall_us,
    has_sockets,
    ifb_name,
    ingress_stage_commands,
    ingress_stage_limit,
    netem_delay_arg,
    netem_delay_us,
    shaper_commands,
    wire_time_us,
)
from emusim.linux.tcp import (
    LINUX_TCP,
    ProfileError,
    check_profile,
    normalise_sysctl,
    route_command,
    sysctl_command,
    tcp_setup,
)

# The report's testbed as the scenarios use it (scenarios/topologies/lin2001.yaml).
LIN2001 = {
    **yaml.safe_load((sc.SCENARIO_DIR / "topologies" / "lin2001.yaml").read_text()),
    "delay": "measured",
}


# --- names and topology ---------------------------------------------------------------------


def test_names_fit_ifnamsiz_and_carry_the_prefix():
    for role in ROLES:
        name = node_name("ab12", role)
        assert name.startswith("emsimab12")
        assert len(intf_name(name, 1)) <= 15  # IFNAMSIZ - 1
    assert node_name("ab12", "router") == "emsimab12r"
    assert len(new_batch_id()) == 4


def test_topology_from_the_report_testbed():
    t = Topology.from_settings(LIN2001)
    assert (t.sender, t.router_in, t.router_out, t.receiver) == (
        "192.168.1.2",
        "192.168.1.1",
        "192.168.2.1",
        "192.168.2.2",
    )
    assert t.rate_bps == 100_000_000 and t.router_queue == 100 and t.host_queue == 100


def test_topology_refuses_addresses_that_one_link_cannot_join():
    bad = json.loads(json.dumps(LIN2001))
    bad["hosts"]["receiver"]["address"] = "10.0.0.2"
    with pytest.raises(ValueError, match="router_out and receiver"):
        Topology.from_settings(bad)


# --- shaper ---------------------------------------------------------------------------------


def test_qdisc_overhead_makes_a_full_frame_1538_byte_times():
    # a qdisc on a veth sees 1500 (IP) + 14 (MAC header) = 1514 bytes; 8 + 4 + 12 are missing
    assert QDISC_OVERHEAD_B == 24
    assert 1500 + ETH_HEADER_B + QDISC_OVERHEAD_B == 1538
    # 1538 byte-times at 10^8 bit/s = 1538 * 8 / 100 µs = 123.04 µs; an ACK (52 B) 90 B = 7.2 µs
    assert wire_time_us(1500, 100_000_000) == pytest.approx(123.04)
    assert wire_time_us(52, 100_000_000) == pytest.approx(7.2)


def test_htb_shaper_commands():
    cmds = shaper_commands("x-eth0", 100_000_000, 100, 0.0, netem=False)
    assert cmds == [
        ["tc", "qdisc", "replace", "dev", "x-eth0", "root", "handle", "1:", "htb", "default", "1"],
        [
            "tc",
            "class",
            "add",
            "dev",
            "x-eth0",
            "parent",
            "1:",
            "classid",
            "1:1",
            "htb",
            "rate",
            "100000000bit",
            "ceil",
            "100000000bit",
            "overhead",
            "24",
            "linklayer",
            "ethernet",
            "burst",
            "3076b",
            "cburst",
            "3076b",
        ],  # burst: two frames, 2 x 1538
        [
            "tc",
            "qdisc",
            "add",
            "dev",
            "x-eth0",
            "parent",
            "1:1",
            "handle",
            "10:",
            "pfifo",
            "limit",
            "100",
        ],
    ]


def test_htb_cannot_delay():
    with pytest.raises(ValueError, match="netem"):
        shaper_commands("x-eth0", 100_000_000, 100, 35.0, netem=False)


def test_netem_shaper_command():
    cmds = shaper_commands("x-eth1", 100_000_000, 100, 34.98, netem=True)
    assert cmds == [
        [
            "tc",
            "qdisc",
            "replace",
            "dev",
            "x-eth1",
            "root",
            "handle",
            "1:",
            "netem",
            "delay",
            "35us",
            "rate",
            "100000000bit",
            "24",
            "limit",
            "100",
        ]
    ]


def test_host_link_stage_is_on_the_routers_ingress():
    # only end hosts hold sockets that a full queue must block
    assert has_sockets("sender") and has_sockets("receiver")
    assert not has_sockets("router") and not has_sockets("router2")
    assert ifb_name("emsim3f9ar-eth0") == "emsim3f9ar-ifb0"
    assert len(ifb_name("emsim3f9ar-eth1")) <= IFNAMSIZ
    with pytest.raises(ValueError, match="eth"):
        ifb_name("lo")
    cmds = ingress_stage_commands("r-eth0", "r-ifb0", 100_000_000, 101, 34.98)
    assert cmds[:4] == [
        ["ip", "link", "add", "r-ifb0", "type", "ifb"],
        ["ip", "link", "set", "r-ifb0", "up"],
        ["tc", "qdisc", "replace", "dev", "r-eth0", "handle", "ffff:", "ingress"],
        [
            "tc",
            "filter",
            "add",
            "dev",
            "r-eth0",
            "parent",
            "ffff:",
            "protocol",
            "all",
            "prio",
            "1",
            "matchall",
            "action",
            "mirred",
            "egress",
            "redirect",
            "dev",
            "r-ifb0",
        ],
    ]
    # the IFB carries the link's netem stage, the egress shaper checked argv by argv above
    assert cmds[4:] == shaper_commands("r-ifb0", 100_000_000, 101, 34.98, netem=True)


def test_ingress_stage_limit_holds_the_queue_and_the_wire():
    # 35 µs over 123.04-µs frames: ceil(0.28) + 1 = 2 frames in flight; 10 ms: ceil(81.3) + 1
    assert ingress_stage_limit(100, 35.0, 100_000_000) == 102
    assert ingress_stage_limit(100, 10_000.0, 100_000_000) == 100 + 82 + 1


def test_delay_split_per_link():
    # d = 71.8878 µs (the report's): d/2 = 35.9439, minus the gap 12 B = 0.96 µs -> 34.9839
    assert netem_delay_us(71.8878, 100_000_000) == pytest.approx(34.9839)
    assert netem_delay_us(0.0, 100_000_000) == 0.0
    # tc reads whole µs (35) and the kernel keeps 64-ns ticks: 35000 // 64 = 546 -> 34.944 µs
    assert netem_delay_arg(34.9839) == ("35us", 34.944)
    assert netem_delay_arg(100.0) == ("100us", 99.968)  # 1562 ticks


def test_netem_delay_reproduces_the_report_intercept():
    # per hop: netem delay + (L + 38) / rate; the model: (L + 26) / rate + d/2; with L = s + 28
    d, rate = 71.8878, 100_000_000
    per_hop = netem_delay_us(d, rate)
    for s in (56, 1472):
        model = (s + 28 + 26) * 8 / 100 + d / 2
        emulated = per_hop + wire_time_us(s + 28, rate)
        assert emulated == pytest.approx(model)


# --- offloads -------------------------------------------------------------------------------


ETHTOOL_K = """Features for x-eth0:
rx-checksumming: off
tx-checksumming: off
\ttx-checksum-ip-generic: off
scatter-gather: off
tcp-segmentation-offload: off
generic-segmentation-offload: off
generic-receive-offload: on
large-receive-offload: off [fixed]
"""


def test_offload_command_and_check():
    assert offload_command("d") == [
        "ethtool", "-K", "d", "tso", "off", "gso", "off", "gro", "off", "lro", "off",
        "tx", "off", "rx", "off", "sg", "off",
    ]  # fmt: skip
    assert offloads_still_on(ETHTOOL_K) == ["generic-receive-offload"]
    assert offloads_still_on(ETHTOOL_K.replace(": on", ": off")) == []
    # a feature ethtool does not report counts as not switched off
    assert "scatter-gather" in offloads_still_on("Features for d:\n")


# --- dropper --------------------------------------------------------------------------------


def iptables_threshold(rate: str) -> int:
    """xt_statistic's 31-bit threshold iptables computes from p: lround(p × 2^31)."""
    return round(Fraction(netfilter_probability(rate)) * 2**31)


def test_netfilter_probability_is_cutoff_over_65536():
    # rate 0.1: cutoff = floor(0.1 * 65535) = 6553; p = 6553 / 65536 = 0.0999908447265625
    assert netfilter_probability("0.1") == "0.0999908447265625"
    # iptables: lround(p * 2^31) = 6553 * 32768 = 214728704 (what iptables-nft installs)
    assert iptables_threshold("0.1") == 214_728_704
    # 0.6: cutoff 39321 (not 39320), p = 39321 / 65536
    assert Fraction(netfilter_probability("0.6")) == Fraction(39321, 65536)


def test_iptables_threshold_for_every_shared_cutoff_vector():
    path = SPEC_DIR / "drop_decision_vectors.csv"
    rows = [r for r in csv.reader(ln for ln in path.open() if not ln.startswith("#"))]
    cutoffs = [(r[1], int(r[3])) for r in rows if r and r[0] == "cutoff"]
    assert cutoffs
    for rate, cutoff in cutoffs:
        assert iptables_threshold(rate) == cutoff * 32768, rate


def test_netfilter_rules():
    random = netfilter_rule({"mode": "random", "rate": "0.02"}, "192.168.2.2")
    # 0.02 * 65535 = 1310.7 -> 1310; 1310 / 65536 = 0.019989013671875
    assert random == [
        "-t",
        "mangle",
        "-A",
        "POSTROUTING",
        "-d",
        "192.168.2.2/32",
        "-m",
        "statistic",
        "--mode",
        "random",
        "--probability",
        "0.019989013671875",
        "-j",
        "DROP",
    ]
    regular = netfilter_rule({"mode": "regular", "every_n": 10}, "192.168.2.2")
    # packets N, 2N, ...: --packet N-1 (spec/drop-decision.md)
    assert regular[-10:] == [
        "-m",
        "statistic",
        "--mode",
        "nth",
        "--every",
        "10",
        "--packet",
        "9",
        "-j",
        "DROP",
    ]
    assert netfilter_rule({"mode": "random", "rate": "0"}, "x") is None
    assert netfilter_rule({"mode": "random", "rate": "0.00001"}, "x") is None  # cutoff 0
    assert netfilter_rule({"mode": "regular", "every_n": 0}, "x") is None
    assert netfilter_rule({"mode": "off"}, "x") is None


def test_rule_counter_parsing():
    save = (
        "*mangle\n:POSTROUTING ACCEPT [40:2400]\n"
        "[2222:3330000] -A POSTROUTING -d 192.168.2.2/32 -m statistic --mode nth "
        "--every 10 --packet 9 -j DROP\nCOMMIT\n"
    )
    assert parse_rule_packets(save) == 2222
    assert parse_rule_packets("*mangle\nCOMMIT\n") == 0


def test_module_writes():
    assert module_writes({"mode": "random", "rate": "0.10"}, "192.168.2.2") == [
        "mode random",
        "0.1 192.168.2.2",
    ]
    assert module_writes({"mode": "regular", "every_n": 6}, "t") == ["mode regular", "every 6"]
    assert module_writes({"mode": "off"}, "t") == ["mode random", "0 t"]
    assert module_rate("1.0") == "1" and module_rate("0.166667") == "0.166667"
    with pytest.raises(ValueError, match="9 decimals"):
        module_rate("0.1234567891")


# --- TCP profiles ---------------------------------------------------------------------------


def test_every_linux_2_2_parameter_has_a_linux_mapping():
    params = {p.name for p in tcp_profiles.get("linux-2.2").parameters}
    mapped = set(LINUX_TCP["linux-2.2"])
    assert params - mapped == set(), "map each new profile parameter in LINUX_TCP"
    assert mapped - params == {"features 2.2 did not have"}
    for name, m in LINUX_TCP["linux-2.2"].items():
        assert m.note, name
        assert m.settings or not m.exact or name == "segment size", name


def test_linux_2_2_settings():
    setup = tcp_setup("linux-2.2")
    s = setup.sysctls
    assert s["net.ipv4.tcp_congestion_control"] == "reno"
    assert s["net.ipv4.tcp_sack"] == s["net.ipv4.tcp_timestamps"] == "1"
    assert s["net.ipv4.tcp_window_scaling"] == "1"
    assert s["net.ipv4.tcp_recovery"] == s["net.ipv4.tcp_early_retrans"] == "0"
    assert s["net.ipv4.tcp_frto"] == "0" and s["net.ipv4.tcp_no_metrics_save"] == "1"
    assert s["net.ipv4.tcp_moderate_rcvbuf"] == "0"
    assert setup.route == {"rto_min": "200ms", "initcwnd": "2"}
    # 65535 with tcp_adv_win_scale 1: half, 32767, in whole segments: 22 x 1448 = 31856
    assert s["net.ipv4.tcp_rmem"] == "4096 65535 65535"
    assert setup.socket == {"TCP_WINDOW_CLAMP": "31856"}
    values = {p.name: p.value for p in tcp_profiles.get("linux-2.2").parameters}
    assert values["receive buffer"].startswith("31856")
    assert values["send buffer"].startswith("65535")
    assert s["net.ipv4.tcp_wmem"].split()[1] == "65535"
    assert route_command("192.168.1.1", "d", setup.route) == (
        [
            "ip",
            "route",
            "replace",
            "default",
            "via",
            "192.168.1.1",
            "dev",
            "d",
            "rto_min",
            "200ms",
            "initcwnd",
            "2",
        ]
    )


def test_linux_default_sets_nothing():
    setup = tcp_setup("linux-default")
    assert setup.sysctls == {} and setup.route == {} and setup.socket == {}


def test_every_linux_profile_is_a_registered_tcp_profile():
    # linux-default (the kernel's own settings) is the emulation's alone
    assert set(LINUX_TCP) - {"linux-default"} <= set(tcp_profiles.registry())


@pytest.mark.parametrize("name", ["ns3-default", "linux-2.4", ""])
def test_unknown_or_ns3_profiles_are_refused(name):
    with pytest.raises(ProfileError, match=r"linux-2\.2, linux-6\.1, linux-default"):
        check_profile(name)


def test_ns3_default_refusal_says_why():
    with pytest.raises(ProfileError, match="ns-3's TCP"):
        check_profile("ns3-default")


def test_sysctl_command_and_normalising():
    assert sysctl_command({"a.b": "1", "c.d": "4096 65535 65535"}) == [
        "sysctl", "-q", "-w", "a.b=1", "c.d=4096 65535 65535",
    ]  # fmt: skip
    assert normalise_sysctl("4096\t65535\t65535") == "4096 65535 65535"


# --- self-check -----------------------------------------------------------------------------


def test_line_rate_fraction():
    # 100 000 writes at line rate take 100 000 x 1538 x 8 / 10^8 = 12.304 s: fraction 1
    assert line_rate_fraction(100_000, 12.304, 100_000_000) == pytest.approx(1.0)
    # the hardware's 12.311 s (Table 4.1)
    assert line_rate_fraction(100_000, 12.311, 100_000_000) == pytest.approx(0.999431, 1e-5)
    # report accounting: 1526 x 100000 / 12.304 = 12 402 470.7 B/s, the limit
    assert pytest.approx(100e6 / 8 * 1526 / 1538) == 1526 * 100_000 / 12.304


def test_delay_tolerance():
    # 5 % of 71.9 = 3.595 µs
    assert delay_ok(75.0, 71.9)
    assert not delay_ok(75.6, 71.9)
    assert not delay_ok(68.2, 71.9)
    # a configured 0 is met within iputils' 1-µs resolution
    assert delay_ok(0.9, 0.0)
    assert not delay_ok(5.0, 0.0)


def test_throughput_tolerance_is_half_a_percent():
    assert THROUGHPUT_TOLERANCE == (0.995, 1.005)


def test_calibration_arithmetic_by_hand():
    rate = 100_000_000  # 12.5 B/µs
    # an echo over 2 links crosses 4 egresses, each carrying 8 + 20 + 14 + 24 = 66 bytes of
    # headers on the wire: 4 x 66 / 12.5 = 21.12 µs of intercept with no delay
    assert modelled_intercept_us([rate] * 2) == pytest.approx(21.12)
    # 3 links: 6 x 5.28
    assert modelled_intercept_us([rate] * 3) == pytest.approx(31.68)
    # an intercept of 45.9 µs with netem at 0 leaves (45.9 - 21.12) / 4 = 6.195 µs per hop
    assert stack_latency_per_hop_us(45.9, [rate] * 2) == pytest.approx(6.195)
    # the report's d = 71.8878: netem per hop 71.8878 / 2 - 12 / 12.5 - 6.195 = 28.7889
    assert netem_delay_us(71.8878, rate, 6.195) == pytest.approx(28.7889)
    assert delay_shortfall_us(71.8878, rate, 6.195) == 0.0
    # delay 0: nothing to take the latency off; each hop falls short by it plus the gap
    assert netem_delay_us(0.0, rate, 6.195) == 0.0
    assert delay_shortfall_us(0.0, rate, 6.195) == pytest.approx(6.195 + 0.96)


def test_calibration_with_a_slower_middle_link_by_hand():
    """The ecn-marking line: 100, 50 and 100 Mb/s. Each echo crosses every link twice with 66
    header bytes on the wire (8 ICMP + 20 IP + 14 MAC + 24 of Ethernet): 66 x 8 / 100 =
    5.28 µs on an access link, 66 x 8 / 50 = 10.56 µs on the middle one."""
    rates = [100_000_000, 50_000_000, 100_000_000]
    # 2 x (5.28 + 10.56 + 5.28) = 42.24 µs (one rate for all three: 31.68)
    assert modelled_intercept_us(rates) == pytest.approx(42.24)
    # an intercept of 80 µs leaves (80 - 42.24) / 6 = 6.29333 µs for each of the 6 egresses
    assert stack_latency_per_hop_us(80.0, rates) == pytest.approx(37.76 / 6)
    # the report's 54 header bytes per serialisation: 4.32 µs at 100, 8.64 µs at 50 Mb/s;
    # an intercept of 2 x 10 000 + 2 x (4.32 + 8.64 + 4.32) = 20 034.56 µs is 10 000 µs one way
    assert path_delay_us(20_034.56, rates) == pytest.approx(10_000)


def test_one_rate_per_link_is_the_old_arithmetic_to_the_bit():
    """Lines whose links share one rate (every scenario before access_rate_Mbps) give the
    very same floats as the single-rate formulas did: links x f(rate), not a sum."""
    rate = 100_000_000
    for links in (2, 3):
        assert modelled_intercept_us([rate] * links) == 2 * links * 5.28
        assert path_delay_us(161.0556, [rate] * links) == (161.0556 - 2 * links * 4.32) / 2


def test_path_delay_is_the_reports_for_two_links():
    from emusim.inputs import delay

    rate = 100_000_000
    # the report's intercept 161.0556 µs gives 71.8878 µs (§3.2)
    assert path_delay_us(161.0556, [rate] * 2) == pytest.approx(
        delay.delay_from_intercept_us(161.0556)
    )
    assert path_delay_us(161.0556, [rate] * 2) == pytest.approx(71.8878, abs=1e-4)
    # three links: six serialisations of 54 bytes = 25.92 µs
    assert path_delay_us(25.92 + 2 * 10_000, [rate] * 3) == pytest.approx(10_000)


def test_two_point_line_is_the_reports_fit():
    from emusim.inputs import delay

    sizes = [56, 256, 256, 1408, 1408, 1472]
    rtts = [63.0, 128.0, 129.0, 500.0, 501.0, 520.0]
    # by hand: means 128.5 and 500.5, slope 372 / 1152 = 0.322917, intercept 128.5 - 82.667
    slope, intercept = two_point_line(sizes, rtts)
    assert slope == pytest.approx(372 / 1152)
    assert intercept == pytest.approx(128.5 - 256 * 372 / 1152)
    assert (slope, intercept) == pytest.approx(delay.two_point_fit(sizes, rtts))
    with pytest.raises(ValueError, match="1408"):
        two_point_line([256], [128.0])


# --- plan and place -------------------------------------------------------------------------


def _caps(**kw):
    base = dict(
        kernel_release="6.18-test",
        netem=False,
        netem_error="Specified qdisc kind is unknown.",
        congestion_control={"reno": True},
        module_loaded=False,
        module_loadable=False,
        module_error="kernel 6.18-test cannot load modules",
        netfilter=True,
        netfilter_error="",
    )
    base.update(kw)
    return Capabilities(**base)


def _scenario(tmp_path: Path, delay, dropper="{mode: regular, every_n: 10}") -> sc.Scenario:
    topo = json.loads(json.dumps(LIN2001))
    topo["delay"] = delay
    path = tmp_path / "t.yaml"
    path.write_text(
        json.dumps(
            {
                "description": "test",
                "topology": topo,
                "workload": {"kind": "tcp-blast", "writes": 100, "write_size_B": 1448},
                "impairment": {"dropper": {"mode": "regular", "every_n": 10}},
                "profiles": ["linux-2.2"],
                "repetitions": 2,
            }
        )
    )
    return sc.load(path, "paper")


def test_measured_delay_goes_to_the_vm_and_host_refuses(tmp_path):
    s = _scenario(tmp_path, "measured")
    delay_json = tmp_path / "d.json"
    delay_json.write_text('{"one_way_delay_us": 71.8878}')
    delay = one_way_delay_us(s, delay_json)
    plan = make_plan(s, "linux-2.2", delay, "auto", tmp_path / "r")
    where, why = decide_place(plan, "auto", _caps())
    assert where == "vm" and "netem" in why
    with pytest.raises(BatchError, match=r"--place host.*lacks netem"):
        decide_place(plan, "host", _caps())
    assert decide_place(plan, "auto", _caps(netem=True))[0] == "host"


def test_zero_delay_stays_on_the_host_unless_the_module_is_asked_for(tmp_path):
    s = _scenario(tmp_path, 0)
    plan = make_plan(s, "linux-2.2", 0.0, "auto", tmp_path / "r")
    assert decide_place(plan, "auto", _caps())[0] == "host"
    plan = make_plan(s, "linux-2.2", 0.0, "module", tmp_path / "r")
    assert decide_place(plan, "auto", _caps())[0] == "vm"
    with pytest.raises(BatchError, match="dropper module"):
        decide_place(plan, "host", _caps())
    assert decide_place(plan, "vm", _caps())[0] == "vm"


def test_measured_delay_needs_the_fitted_file(tmp_path):
    s = _scenario(tmp_path, "measured")
    with pytest.raises(BatchError, match="--delay-json"):
        one_way_delay_us(s, None)


def test_plan_skips_runs_already_written(tmp_path):
    s = _scenario(tmp_path, 0)
    results = tmp_path / "r"
    done = run_path(results, s.name, "linux-2.2", "base", 1)
    done.parent.mkdir(parents=True)
    done.write_text("{}")
    plan = make_plan(s, "linux-2.2", 0.0, "auto", results)
    assert [(r["point"], r["repetition"]) for r in plan["runs"]] == [("base", 2)]
    assert [r["path"] for r in plan["skipped"]] == [str(done)]
    assert plan["runs"][0]["path"].endswith("mininet/t/linux-2.2/base/run2.json")


def test_deterministic_points_once_random_ones_every_repetition(tmp_path):
    from emusim.inputs import scenario as sc

    rd = sc.load("random-drop", "quick")  # rate 0 draws nothing; 0.02, 0.06, 0.1 do
    plan = make_plan(rd, "linux-2.2", 71.89, "auto", tmp_path / "r", repeat_deterministic=False)
    reps = {}
    for r in plan["runs"]:
        reps[r["point"]] = reps.get(r["point"], 0) + 1
    assert reps == {"drop_rate=0": 1, "drop_rate=0.02": 2, "drop_rate=0.06": 2, "drop_rate=0.1": 2}
    # a regular dropper draws nothing: every point once
    reg = sc.load("regular-drop", "quick")
    plan = make_plan(reg, "linux-2.2", 71.89, "auto", tmp_path / "r", repeat_deterministic=False)
    assert len(plan["runs"]) == len(reg.points)
    # asked to, every repetition
    plan = make_plan(reg, "linux-2.2", 71.89, "auto", tmp_path / "r")
    assert len(plan["runs"]) == len(reg.points) * reg.repetitions
    # BBR draws its own random numbers; UDP floods are kept for the forwarding fit's spread
    assert point_is_random(reg.points[0], True) and not point_is_random(reg.points[0])
    fwd = sc.load("router-forwarding", "quick")
    assert all(point_is_random(p) for p in fwd.points)


def test_dropper_impl_from_the_scenario_when_present(tmp_path):
    s = _scenario(tmp_path, 0)
    assert scenario_dropper_impl(s, None) == "auto"
    assert scenario_dropper_impl(s, "netfilter") == "netfilter"
    s.settings["impairment"]["dropper"]["impl"] = "module"
    assert scenario_dropper_impl(s, None) == "module"


def test_resolve_impl():
    assert resolve_impl("auto", _caps(), "host") == "netfilter"
    assert resolve_impl("auto", _caps(module_loadable=True), "vm") == "module"
    with pytest.raises(BatchError, match="cannot load modules"):
        resolve_impl("module", _caps(), "host")
    with pytest.raises(BatchError, match="netfilter"):
        resolve_impl("netfilter", _caps(netfilter=False, netfilter_error="no"), "host")


def test_selfcheck_evaluation_with_the_report_model():
    # RTTs exactly on the report's line with d = 70: RTT = 2d + 4 (s + 54) / 12.5
    rtts = {str(s): [140 + 4 * (s + 54) / 12.5] * 3 for s in (56, 256, 1408, 1472)}
    raw = {
        "tcp": {"writes": 5000, "elapsed_s": 5000 * 1538 * 8 / 1e8, "completed": True},
        "ping_rtt_us": rtts,
        "wall_s": 1.0,
    }
    plan = {"topology": {"rate_bps": 100_000_000}, "delay_us": 70.0}
    out = evaluate_selfcheck(raw, plan)
    assert out["throughput"]["fraction_of_line_rate"] == pytest.approx(1.0)
    assert out["throughput"]["ok"] is True
    assert out["delay"]["fitted_two_point_us"] == pytest.approx(70.0)
    assert out["delay"]["ok"] is True
    assert evaluate_selfcheck(raw, plan, "htb")["delay"]["ok"] is None


def test_without_root_the_error_says_so(monkeypatch):
    monkeypatch.setattr(host.os, "geteuid", lambda: 1000)
    with pytest.raises(EmuError, match="needs root"):
        need_root()
    assert main(["cleanup"]) == 2


def test_receive_window_scale_follows_tcp_select_initial_window():
    # ilog2(max(tcp_rmem[2], rmem_max)) - 15: max(65535, 212992) = 212992, ilog2 17 -> 2
    assert receive_window_scale(65535) == 2
    assert receive_window_scale(4194304) == 7  # 2^22 -> 7
    assert receive_window_scale(65535, 65535) == 0  # 2^15 - 1: ilog2 15 -> 0
    # MAX_TCP_WINDOW, 32767 << 14 = 536854528 < 2^29, caps it: ilog2 28 -> 13
    assert receive_window_scale(1 << 40, 1 << 40) == 13


def test_whole_segment_window_is_whole_segments_and_scale_units():
    # lcm(1448, 2^7) = 128 x 181 = 23168 (16 segments); 65535 // 23168 = 2 -> 46336
    assert whole_segment_window_b(65535, 1448, 7) == 46336
    assert whole_segment_window_b(31856, 1448, 2) == 31856  # 22 x 1448, a multiple of 4
    assert whole_segment_window_b(65535, 1448, 0) == 45 * 1448
    with pytest.raises(ValueError, match="23168"):
        whole_segment_window_b(23000, 1448, 7)


def test_selfcheck_window_reads_the_kernels_rmem_max(tmp_path):
    rmem_max = tmp_path / "rmem_max"
    rmem_max.write_text("212992\n")  # a kernel nobody tuned: the guest's
    assert selfcheck_window_b(tcp_setup("linux-2.2"), rmem_max) == 31856
    assert selfcheck_window_b(tcp_setup("linux-6.1"), rmem_max) == 46336
    rmem_max.write_text("4194304\n")  # scale 7 for the 2.2 profile too: 31856 is 248.9 units
    assert selfcheck_window_b(tcp_setup("linux-2.2"), rmem_max) == 23168


def test_the_guest_looks_for_the_module_in_the_batchs_own_checkout(tmp_path):
    """The guest inherits no environment: its command must name the checkout (EMUSIM_ROOT) the
    batch runs in, else the executor looks for dropper.ko in the tree of the editable install,
    built for another kernel (CI on 5 December: a workflow copy's batch fell back to
    netfilter). Run here, the guest command's environment gives the batch's module path."""
    checkout = tmp_path / "checkout"
    command = subprocess.run(
        [sys.executable, "-c",
         "import sys; from pathlib import Path; from emusim.backends.mininet import batch; "
         "print('\\0'.join(batch._guest_command(Path(sys.argv[1]))))", "plan.json"],
        env={"PATH": "/usr/bin:/bin", "EMUSIM_ROOT": str(checkout),
             "PYTHONPATH": str(Path(batch.__file__).resolve().parents[3])},
        capture_output=True, text=True, check=True,
    ).stdout.strip().split("\0")  # fmt: skip
    env_part = command[: command.index(sys.executable)]
    probe = [
        sys.executable,
        "-c",
        "from emusim.backends.mininet import host; print(host.MODULE_PATH)",
    ]
    out = subprocess.run(
        [*env_part, *probe],
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert out == str(checkout / "kernel-dropper" / "dropper.ko")


@pytest.mark.parametrize(
    ("send_path", "ca"), [(False, None), (True, None), (False, "tcp_illinois_cong_avoid")]
)
def test_the_guests_tracer_adds_further_probes_only_when_asked(send_path, ca):
    """`--trace-send-path` and `--trace-ca` reach the tracer in the guest through its command's
    environment (the guest inherits none): a session made there defines those probes or not."""
    command = batch._guest_command(Path("plan.json"), batch.tracer_probes(send_path, ca))
    env_part = command[: command.index(sys.executable)]
    session = (
        "from emusim.linux import tcp_tracefs; s = tcp_tracefs.Session('x', 1); "
        "print(s.send_path, s.ca_function)"
    )
    probe = [sys.executable, "-c", session]
    out = subprocess.run(
        [*env_part, *probe], env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
        check=True,
    ).stdout.strip()  # fmt: skip
    assert out == f"{send_path} {ca}"


@pytest.mark.parametrize("option", ["--trace-send-path", "--trace-ca"])
def test_further_probes_without_a_raw_trace_are_refused(option):
    from emusim.backends.mininet import cli

    asked = {"--trace-send-path": (True, None), "--trace-ca": (False, "f")}[option]
    with pytest.raises(batch.BatchError, match=f"{option} needs --trace and --trace-raw"):
        cli._probes(*asked, ["all"], raw=False)
    with pytest.raises(batch.BatchError, match=option):
        cli._probes(*asked, None, raw=True)
    assert cli._probes(*asked, ["all"], raw=True) == batch.tracer_probes(*asked)
    assert cli._probes(False, None, None, raw=False) == {}
