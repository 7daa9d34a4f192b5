"""Per-link rates and the CoDel queue of topology.aqm in the Mininet backend: the tc commands
the network is built with and each run's impairment, against commands written out by hand.

The network is built with Mininet's node and link classes replaced by stand-ins that record
what would run in each namespace (`recorded_start`); no root, no kernel.
"""

import json
from pathlib import Path

import pytest
import yaml

from emusim.backends.mininet import network as network_mod
from emusim.backends.mininet.executor import link_metrics
from emusim.backends.mininet.network import NetSpec, Network
from emusim.backends.mininet.plan import BatchError, make_plan
from emusim.backends.mininet.topology import Topology, impaired_link_commands
from emusim.inputs import scenario as sc
from emusim.linux.shaper import codel_counters, codel_leaf, parse_codel
from emusim.linux.tcp import TcpSetup

# --- a network built without Mininet: what each namespace would run --------------------------


class _Node:
    def __init__(self, name, inNamespace=True):  # Mininet's keyword
        self.name = name


def recorded_start(monkeypatch, topo: Topology, delay_us: float = 0.0) -> dict[str, list]:
    """role → the tc commands (and the IFB devices' `ip link`) `Network.start` runs there."""
    monkeypatch.setattr(network_mod, "import_mininet", lambda: (_Node, lambda *a, **k: None))
    monkeypatch.setattr(network_mod, "register", lambda batch_id: None)
    net = Network(NetSpec(topo, "abcd", delay_us, True, TcpSetup()))
    ran: dict[str, list] = {}

    def run(role, argv, check=True, timeout=0):
        links = [{"ifname": dev, "address": "02:00:00:00:00:01"} for dev in net.role_devs(role)]
        return json.dumps(links)

    def script(role, commands, check=True):
        ran.setdefault(role, []).extend(
            " ".join(c) for c in commands if c[0] == "tc" or "ifb" in " ".join(c)
        )
        return ""

    monkeypatch.setattr(net, "run", run)
    monkeypatch.setattr(net, "script", script)
    monkeypatch.setattr(net, "verify", lambda: None)
    net.start()
    return ran


def _htb(dev, rate, limit):
    return [
        f"tc qdisc replace dev {dev} root handle 1: htb default 1",
        f"tc class add dev {dev} parent 1: classid 1:1 htb rate {rate}bit ceil {rate}bit "
        "overhead 24 linklayer ethernet burst 3076b cburst 3076b",
        f"tc qdisc add dev {dev} parent 1:1 handle 10: pfifo limit {limit}",
    ]


def _netem(dev, rate, limit, delay="0us", loss=""):
    head = f"tc qdisc replace dev {dev} root handle 1: netem"
    return f"{head} delay {delay} rate {rate}bit 24 limit {limit}{loss}"


def _stage(dev, ifb):
    return [
        f"ip link add {ifb} type ifb",
        f"ip link set {ifb} up",
        f"tc qdisc replace dev {dev} handle ffff: ingress",
        f"tc filter add dev {dev} parent ffff: protocol all prio 1 matchall action mirred "
        f"egress redirect dev {ifb}",
    ]


LOSSY = Topology.from_settings(sc.load("lossy-link", "quick").settings["topology"])
ECN = Topology.from_settings(sc.load("ecn-marking", "quick").settings["topology"])
S, R, Q, C = "emsimabcds", "emsimabcdr", "emsimabcdq", "emsimabcdc"  # node names, batch abcd


def test_lossy_link_is_built_with_the_commands_it_had(monkeypatch):
    """lossy-link's line (100 Mb/s everywhere, delay 0, queues of 100) as it was built before
    links had rates of their own: the hosts' egresses HTB with a pfifo, every router egress
    netem, the hosts' links' netem stages on the routers' ingress with a limit of 100 plus the
    one frame a delay of 0 holds (ceil(0) + 1)."""
    got = recorded_start(monkeypatch, LOSSY)
    r = 100_000_000
    assert got == {
        "sender": _htb(f"{S}-eth0", r, 100),
        "router": [
            _netem(f"{R}-eth0", r, 100),
            *_stage(f"{R}-eth0", f"{R}-ifb0"),
            _netem(f"{R}-ifb0", r, 101),
            _netem(f"{R}-eth1", r, 100),
        ],
        "router2": [
            _netem(f"{Q}-eth0", r, 100),
            _netem(f"{Q}-eth1", r, 100),
            *_stage(f"{Q}-eth1", f"{Q}-ifb1"),
            _netem(f"{Q}-ifb1", r, 101),
        ],
        "receiver": _htb(f"{C}-eth0", r, 100),
    }


def test_lossy_link_point_commands_are_unchanged():
    """A point of lossy-link (1 % loss, 10 ms) with the calibration's shortfall of 7.16 µs per
    hop on 3 hops (21.48 µs): the point's 10 ms less it, 9978.52 µs, netem's 9979 µs; limit
    100 + ceil(9978.52 / 123.04) + 1 = 100 + 82 + 1 = 183 (123.04 µs: a 1538-byte frame)."""
    devs = {k: f"d-{k}" for k in ("router_in", "router_out", "router2_in", "router2_out")}
    got = impaired_link_commands(LOSSY, devs, "0.01", 10.0, 0.0, 21.48)
    r = 100_000_000
    loss = " loss random 1%"
    assert {role: [" ".join(c) for c in cmds] for role, cmds in got.items()} == {
        "router": [
            _netem("d-router_out", r, 100, loss=loss),
            _netem("d-router_in", r, 183, "9979us"),
        ],
        "router2": [
            _netem("d-router2_in", r, 100, loss=loss),
            _netem("d-router2_out", r, 183, "9979us"),
        ],
    }


# --- the ecn-marking line: 100 - 50 - 100 Mb/s, CoDel at router's egress ---------------------


def test_ecn_marking_topology():
    assert ECN.rate_bps == 50_000_000 and ECN.access_rate_bps == 100_000_000
    assert ECN.link_rates_bps() == [100_000_000, 50_000_000, 100_000_000]
    assert ECN.bottleneck_rate_bps() == 50_000_000
    assert ECN.aqm == {
        "kind": "codel", "target_us": 5000, "interval_us": 100000, "ecn": True,
        "ce_threshold_us": 1000,
    }  # fmt: skip
    # every existing line keeps one rate and no aqm, and its plan the fields it had
    assert LOSSY.link_rates_bps() == [100_000_000] * 3
    assert "access_rate_bps" not in LOSSY.plan_fields() and "aqm" not in LOSSY.plan_fields()


def test_codel_leaf_command():
    aqm = {"kind": "codel", "target_us": 5000, "interval_us": 100000, "ecn": True,
           "ce_threshold_us": 1000}  # fmt: skip
    assert " ".join(codel_leaf("d", 1000, aqm)) == (
        "tc qdisc add dev d parent 1:1 handle 10: codel limit 1000 target 5000us "
        "interval 100000us ecn ce_threshold 1000us"
    )
    plain = {"kind": "codel", "target_us": 5000, "interval_us": 100000, "ecn": False}
    assert " ".join(codel_leaf("d", 10, plain)).endswith(
        "codel limit 10 target 5000us interval 100000us noecn"
    )


def test_ecn_marking_is_built_with_codel_and_the_middle_links_stage_on_router2(monkeypatch):
    """router's egress toward router2: HTB at 50 Mb/s over CoDel (limit 1000), no netem; the
    middle link's netem (its wire time at 50 Mb/s, delay 0) on router2's ingress through an
    IFB whose limit is router's queue plus one frame (1000 + ceil(0) + 1); the access links at
    100 Mb/s as before, router2's reverse egress netem at 50 Mb/s."""
    got = recorded_start(monkeypatch, ECN)
    a, m = 100_000_000, 50_000_000
    assert got == {
        "sender": _htb(f"{S}-eth0", a, 100),
        "router": [
            _netem(f"{R}-eth0", a, 1000),
            *_stage(f"{R}-eth0", f"{R}-ifb0"),
            _netem(f"{R}-ifb0", a, 101),
            *_htb(f"{R}-eth1", m, 1000)[:2],
            f"tc qdisc add dev {R}-eth1 parent 1:1 handle 10: codel limit 1000 target 5000us "
            "interval 100000us ecn ce_threshold 1000us",
        ],
        "router2": [
            _netem(f"{Q}-eth0", m, 1000),
            *_stage(f"{Q}-eth0", f"{Q}-ifb0"),
            _netem(f"{Q}-ifb0", m, 1001),
            _netem(f"{Q}-eth1", a, 1000),
            *_stage(f"{Q}-eth1", f"{Q}-ifb1"),
            _netem(f"{Q}-ifb1", a, 101),
        ],
        "receiver": _htb(f"{C}-eth0", a, 100),
    }


def test_ecn_marking_point_commands():
    """The point (no loss, 10 ms) with a shortfall of 21.48 µs: the delay on the access links'
    egresses after the middle link (router2 toward the receiver, router toward the sender) as
    on lossy-link, 9979 µs with limit 1000 + 83; the middle link's data direction on router2's
    IFB (delay 0, 50 Mb/s, limit 1000 + 1); its ACK direction router2's egress at 50 Mb/s;
    router's CoDel egress is not touched."""
    devs = {k: f"d-{k}" for k in ("router_in", "router_out", "router2_in", "router2_out")}
    got = impaired_link_commands(ECN, devs, "0", 10.0, 0.0, 21.48, 0.0, "d-ifb")
    a, m = 100_000_000, 50_000_000
    assert {role: [" ".join(c) for c in cmds] for role, cmds in got.items()} == {
        "router": [_netem("d-router_in", a, 1083, "9979us")],
        "router2": [
            _netem("d-router2_in", m, 1000),
            _netem("d-ifb", m, 1001),
            _netem("d-router2_out", a, 1083, "9979us"),
        ],
    }
    with pytest.raises(ValueError, match="loss"):
        impaired_link_commands(ECN, devs, "0.01", 10.0, 0.0, 0.0, 0.0, "d-ifb")


# --- CoDel's counters: tc's JSON as read in the VM (Debian 6.1.0-56, iproute2 6.1) ----------

CODEL_SHOW = (
    '[{"kind":"htb","handle":"1:","root":true,"refcnt":2,"options":{"r2q":10,"default":"0x1",'
    '"direct_packets_stat":0,"direct_qlen":1000}},{"kind":"codel","handle":"10:","parent":"1:1",'
    '"options":{"limit":1000,"target":4999,"ce_threshold":999,"interval":99999,"ecn":true}}]'
)
CODEL_STATS = (
    '[{"kind":"htb","handle":"1:","root":true,"refcnt":2,"options":{"r2q":10,"default":"0x1",'
    '"direct_packets_stat":0,"direct_qlen":1000},"bytes":250,"packets":3,"drops":0,'
    '"overlimits":0,"requeues":0,"backlog":0,"qlen":0},{"kind":"codel","handle":"10:",'
    '"parent":"1:1","options":{"limit":1000,"target":4999,"ce_threshold":999,"interval":99999,'
    '"ecn":true},"bytes":0,"packets":0,"drops":0,"overlimits":0,"requeues":0,"backlog":0,'
    '"qlen":0,"count":0,"lastcount":0,"ldelay":0,"drop_next":0,"maxpacket":0,"ecn_mark":0,'
    '"drop_overlimit":0}]'
)


def test_codel_read_back():
    """sch_codel reports its times in its 1024-ns units turned back into whole µs
    (codel_time_to_us): 5000 µs is 4882 units, 4999.168 µs, read as 4999."""
    entry = parse_codel(CODEL_SHOW)
    assert entry["options"] == {
        "limit": 1000, "target": 4999, "ce_threshold": 999, "interval": 99999, "ecn": True,
    }  # fmt: skip
    # iproute2 prints ce_mark only when nonzero: absent reads 0
    assert codel_counters(parse_codel(CODEL_STATS)) == {
        "packets": 0, "drops": 0, "ecn_mark": 0, "ce_mark": 0, "drop_overlimit": 0,
    }  # fmt: skip
    with pytest.raises(ValueError, match="no codel"):
        parse_codel('[{"kind":"netem","root":true}]')


def test_link_metrics_with_marks():
    """Forward: 1000 dequeued and 5 dropped before, 7000 and 9 after, 300 threshold marks and
    2 control-law marks: 6004 packets reached the queue, 4 dropped, 300 and 2 marks."""
    before = {
        "forward": {"packets": 1000, "drops": 5, "ecn_mark": 1, "ce_mark": 10, "drop_overlimit": 0},
        "reverse": {"packets": 50, "drops": 0},
    }
    after = {
        "forward": {
            "packets": 7000,
            "drops": 9,
            "ecn_mark": 3,
            "ce_mark": 310,
            "drop_overlimit": 0,
        },
        "reverse": {"packets": 3050, "drops": 0},
    }
    assert link_metrics(before, after) == {
        "link_packets_forward": 6004, "link_dropped_forward": 4,
        "link_ce_marks_forward": 300, "link_ecn_marks_forward": 2,
        "link_packets_reverse": 3000, "link_dropped_reverse": 0,
    }  # fmt: skip


# --- the plan: bad values name the file, the key and the value ------------------------------


def _ecn_variant(
    tmp_path: Path, name: str, topology: dict, link: dict | None = None
) -> sc.Scenario:
    """scenarios/ecn-marking.yaml with some keys changed, as a file of its own (beside the
    topology presets it names)."""
    data = yaml.safe_load((sc.SCENARIO_DIR / "ecn-marking.yaml").read_text())
    data["topology"].update(topology)
    if link is None:  # a line without router2 has no link to impair
        del data["impairment"]["link"]
    else:
        data["impairment"]["link"].update(link)
    if not (tmp_path / "topologies").exists():
        (tmp_path / "topologies").symlink_to(sc.SCENARIO_DIR / "topologies")
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return sc.load(path, "quick")


def test_aqm_and_access_rate_need_router2(tmp_path):
    three = {"use": "lin2001", "delay": 0}
    bad = _ecn_variant(tmp_path, "ecn-bad.yaml", three)
    with pytest.raises(BatchError, match=r"ecn-bad\.yaml.*'topology.access_rate_Mbps'.*100"):
        make_plan(bad, "linux-6.1", 0.0, "auto", tmp_path)
    bad = _ecn_variant(tmp_path, "ecn-bad2.yaml", {**three, "access_rate_Mbps": 50})
    with pytest.raises(BatchError, match=r"ecn-bad2\.yaml.*'topology.aqm'.*without router2"):
        make_plan(bad, "linux-6.1", 0.0, "auto", tmp_path)


def test_aqm_refuses_link_loss(tmp_path):
    lossy = _ecn_variant(tmp_path, "ecn-lossy.yaml", {}, {"loss": "0.01"})
    with pytest.raises(BatchError, match=r"ecn-lossy\.yaml.*'impairment.link.loss'.*0.01"):
        make_plan(lossy, "linux-6.1", 0.0, "auto", tmp_path)


def test_a_batch_with_aqm_goes_where_codel_is(tmp_path, monkeypatch):
    """This machine's kernel has no sch_codel: an aqm batch goes to the VM, and --place host
    says why."""
    from emusim.backends.mininet import plan as plan_mod
    from emusim.backends.mininet.plan import decide_place

    plan = make_plan(sc.load("ecn-marking", "quick"), "linux-6.1", 0.0, "auto", tmp_path)
    assert plan["topology"]["aqm"]["kind"] == "codel"
    monkeypatch.setattr(plan_mod.os, "geteuid", lambda: 0)
    monkeypatch.setattr(
        plan_mod, "aqm_missing", lambda aqm: ["CoDel (sch_codel) for topology.aqm: unknown qdisc"]
    )
    caps = _all_there()
    where, why = decide_place(plan, "auto", caps)
    assert where == "vm" and "sch_codel" in why
    with pytest.raises(BatchError, match=r"--place host.*sch_codel"):
        decide_place(plan, "host", caps)


def _all_there():
    from emusim.backends.mininet.host import Capabilities

    return Capabilities(
        kernel_release="6.18-test", netem=True, netem_error="", congestion_control={
            "reno": True, "cubic": True, "dctcp": True},
        module_loaded=False, module_loadable=False, module_error="", netfilter=True,
        netfilter_error="",
    )  # fmt: skip
