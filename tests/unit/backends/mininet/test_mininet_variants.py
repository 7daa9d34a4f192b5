"""The Mininet backend's four-host line, impaired link and TCP variants, against hand-computed
values (no root): commands, plans, where a batch runs, what a run must prove."""

import json
from pathlib import Path

import pytest
import yaml

from emusim.backends.mininet.executor import link_metrics
from emusim.backends.mininet.host import Capabilities
from emusim.backends.mininet.plan import (
    BatchError,
    _add_congestion_control,
    decide_place,
    make_plan,
    needs_link,
    variant_modules,
)
from emusim.backends.mininet.topology import Topology, impaired_link_commands, node_name
from emusim.inputs import scenario as sc
from emusim.inputs import tcp_profiles, variants
from emusim.linux.shaper import netem_loss_percent, parse_qdisc_stats
from emusim.linux.tcp import LINUX_TCP, tcp_setup
from emusim.workloads.tcp_blast import check_congestion_control
from emusim.workloads.tcp_blast import metrics as tcp_metrics

LOSSY = yaml.safe_load((sc.SCENARIO_DIR / "topologies" / "lossy-link.yaml").read_text())


def test_four_hosts_in_a_line():
    t = Topology.from_settings(LOSSY)
    assert [h.role for h in t.hops()] == ["sender", "router", "router2", "receiver"]
    assert t.links() == [
        (("192.168.1.2", "sender"), ("192.168.1.1", "router_in")),
        (("192.168.2.1", "router_out"), ("192.168.2.2", "router2_in")),
        (("192.168.3.1", "router2_out"), ("192.168.3.2", "receiver")),
    ]
    assert t.routers() == ["router", "router2"]
    assert node_name("ab12", "router2") == "emsimab12q"
    bad = json.loads(json.dumps(LOSSY))
    bad["hosts"]["router2"]["addresses"][0] = "10.1.1.1"
    with pytest.raises(ValueError, match="router_out and router2_in"):
        Topology.from_settings(bad)


def test_netem_loss_is_the_percentage_written_exactly():
    assert netem_loss_percent("0.05") == "5%"
    assert netem_loss_percent("0.125") == "12.5%"
    assert netem_loss_percent("0.25") == "25%"
    assert netem_loss_percent("0.01") == "1%"
    with pytest.raises(ValueError):
        netem_loss_percent("1.5")


def test_the_impaired_link_commands():
    t = Topology.from_settings(LOSSY)
    devs = {k: f"d-{k}" for k in ("router_in", "router_out", "router2_in", "router2_out")}
    cmds = impaired_link_commands(t, devs, "0.05", 10)
    netem = ["tc", "qdisc", "replace", "dev"]
    # the lossy egresses: the router's queue of 100, loss before it, no delay
    lossy = ["root", "handle", "1:", "netem", "delay", "0us", "rate", "100000000bit", "24",
             "limit", "100", "loss", "random", "5%"]  # fmt: skip
    assert cmds["router"][0] == [*netem, "d-router_out", *lossy]
    assert cmds["router2"][0] == [*netem, "d-router2_in", *lossy]
    # the next egresses: 10 ms, and room for the packets on the wire: a full frame takes
    # 1538 x 8 / 10^8 s = 123.04 µs, 10 000 / 123.04 = 81.3 -> 82, plus one: 100 + 83 = 183
    delayed = ["root", "handle", "1:", "netem", "delay", "10000us", "rate", "100000000bit", "24",
               "limit", "183"]  # fmt: skip
    assert cmds["router2"][1] == [*netem, "d-router2_out", *delayed]
    assert cmds["router"][1] == [*netem, "d-router_in", *delayed]
    # 50 ms: 50 000 / 123.04 = 406.4 -> 407, plus one: 508
    assert impaired_link_commands(t, devs, "0", 50)["router"][1][-1] == "508"
    assert "loss" not in impaired_link_commands(t, devs, "0", 50)["router"][0]
    with pytest.raises(ValueError, match="router2"):
        impaired_link_commands(Topology("a", "b", "c", "d", 1, 1, 1), devs, "0", 0)


def test_qdisc_counters_from_real_tc_output():
    # `tc -s -j qdisc show dev ...` of iproute2 6.1, netem at the root
    text = (
        '[{"kind":"netem","handle":"1:","root":true,"refcnt":2,"options":{"limit":100,'
        '"loss-random":{"loss":0.05,"correlation":0}},"bytes":1096260,"packets":727,'
        '"drops":31,"overlimits":0,"requeues":0,"backlog":0,"qlen":0}]'
    )
    assert parse_qdisc_stats(text) == {"packets": 727, "drops": 31}
    before = {"forward": {"packets": 10, "drops": 1}, "reverse": {"packets": 5, "drops": 0}}
    after = {"forward": {"packets": 737, "drops": 32}, "reverse": {"packets": 500, "drops": 30}}
    assert link_metrics(before, after) == {
        "link_packets_forward": 727 + 31,
        "link_dropped_forward": 31,
        "link_packets_reverse": 495 + 30,
        "link_dropped_reverse": 30,
    }


def test_goodput_is_bytes_over_time():
    done = {"completed": True, "elapsed_s": 4.0, "payload_bytes": 1_000_568, "writes": 691,
            "write_size_B": 1448, "packets_sent": 700, "retransmissions": 9, "rto_timeouts": 0,
            "fast_recoveries": 3, "bytes_acked": 1_000_570}  # fmt: skip
    m = tcp_metrics(done, 0)
    assert m["bytes_delivered"] == 1_000_568 and m["goodput_Bps"] == 250_142.0
    # cut by the cap: what the receiver acknowledged, less the SYN's one byte
    cut = {**done, "completed": False, "elapsed_s": 120.0, "bytes_acked": 600_001}
    m = tcp_metrics(cut, 0)
    assert m["bytes_delivered"] == 600_000 and m["goodput_Bps"] == 5000.0


def test_every_linux_6_1_parameter_has_a_linux_mapping():
    params = {p.name for p in tcp_profiles.get("linux-6.1").parameters}
    mapped = set(LINUX_TCP["linux-6.1"])
    assert params - mapped == set(), "map each new profile parameter in LINUX_TCP"
    assert mapped - params == {"features ns-3 lacks"}
    setup = tcp_setup("linux-6.1")
    assert setup.sysctls["net.ipv4.tcp_congestion_control"] == "cubic"
    # Linux's own defaults (include/net/tcp.h, tcp_ipv4.c:3330-3340), as ns-3's TcpLinuxSocket
    # runs them; the ablation steps switch them off
    shipped = {"tcp_recovery": "1", "tcp_early_retrans": "3", "tcp_frto": "2", "tcp_dsack": "1"}
    assert {k: setup.sysctls[f"net.ipv4.{k}"] for k in shipped} == shipped
    off = {k: "0" for k in shipped}
    classic = tcp_setup("linux-6.1-classic").sysctls
    assert {k: classic[f"net.ipv4.{k}"] for k in shipped} == off
    rack = tcp_setup("linux-6.1-rack").sysctls
    assert {k: rack[f"net.ipv4.{k}"] for k in shipped} == {
        **shipped,
        **off,
        "tcp_recovery": "1",
        "tcp_early_retrans": "3",
    }
    # 4 MiB buffer, half offered = the ns-3 profile's 2 MiB receive buffer
    assert setup.sysctls["net.ipv4.tcp_rmem"].split()[2] == str(2 * 2097152)
    assert setup.route == {"rto_min": "200ms", "initcwnd": "10"}


# --- plans and places -------------------------------------------------------------------------


def _plan(tmp_path: Path, sweep: dict, scale: str = "paper", group: int | None = None):
    (tmp_path / "topologies").mkdir(exist_ok=True)
    src = sc.SCENARIO_DIR / "topologies" / "lossy-link.yaml"
    (tmp_path / "topologies" / "lossy-link.yaml").write_text(src.read_text())
    data = yaml.safe_load((sc.SCENARIO_DIR / "lossy-link.yaml").read_text())
    data.update(sweep=sweep, repetitions=2)
    data.pop("scales")
    path = tmp_path / "lossy.yaml"
    path.write_text(yaml.safe_dump(data))
    s = sc.load(path, scale)
    return make_plan(s, "linux-6.1", 0.0, "auto", tmp_path / "r", group=group)


def test_a_plan_makes_the_runs_a_scenario_asks_more_of(tmp_path):
    lossy = sc.load("lossy-link", "paper")  # illinois at 1 % and 10 ms: 12 runs, others 3
    where = {"delay_ms": 10, "loss": ["0.01", "0.05"], "variant": "illinois"}
    # the workflow's paper design passes --repetitions 3, the scenario's own
    plan = make_plan(lossy, "linux-6.1", 0.0, "auto", tmp_path, repetitions=3, where=where)
    reps = {}
    for run in plan["runs"]:
        reps.setdefault(run["point"], []).append(run["repetition"])
    assert reps == {
        "delay_ms=10+loss=0.01+variant=illinois": list(range(1, 13)),
        "delay_ms=10+loss=0.05+variant=illinois": [1, 2, 3],
    }
    thinned = make_plan(lossy, "linux-6.1", 0.0, "auto", tmp_path, repetitions=1, where=where)
    assert len(thinned["runs"]) == 2


def test_a_plan_runs_the_linux_variants_and_lists_the_others(tmp_path):
    plan = _plan(tmp_path, {"loss": ["0", "0.05"], "variant": ["htcp", "newreno", "bbr"]})
    ran = {(r["point"], r["repetition"]) for r in plan["runs"]}
    assert len(ran) == 2 * 2 * 2  # two loss rates x htcp, bbr x two repetitions
    assert {n["point"] for n in plan["not_implemented"]} == {
        "loss=0+variant=newreno",
        "loss=0.05+variant=newreno",
    }
    run = next(r for r in plan["runs"] if r["point"] == "loss=0.05+variant=htcp")
    assert run["congestion_control"] == "htcp" and run["link"] == {"loss": "0.05", "delay_ms": 0}
    assert plan["congestion_controls"] == {
        "htcp": {"module": "tcp_htcp", "module_parameters": {}},
        "bbr": {"module": "tcp_bbr", "module_parameters": {}},
    }
    assert needs_link(plan) and variant_modules(plan) == {
        "htcp": "tcp_htcp",
        "bbr": "tcp_bbr",
    }


def _caps(**kw):
    base = dict(
        kernel_release="6.18-test",
        netem=True,
        netem_error="",
        congestion_control={"reno": True, "cubic": True, "bbr": True},
        module_loaded=False,
        module_loadable=False,
        module_error="kernel 6.18-test cannot load modules",
        netfilter=True,
        netfilter_error="",
    )
    base.update(kw)
    return Capabilities(**base)


def test_a_kernel_without_a_variants_algorithm_sends_the_batch_to_the_vm(tmp_path):
    plan = _plan(tmp_path, {"loss": ["0.05"], "variant": ["bbr"]})
    assert decide_place(plan, "auto", _caps())[0] == "host"
    plan = _plan(tmp_path, {"loss": ["0.05"], "variant": ["bbr", "htcp"]})
    where, why = decide_place(plan, "auto", _caps())
    assert where == "vm" and "'htcp'" in why and "tcp_htcp" in why
    with pytest.raises(BatchError, match="htcp"):
        decide_place(plan, "host", _caps())
    # an impaired link needs netem even at 0 loss and 0 delay
    plan = _plan(tmp_path, {"loss": ["0"], "variant": ["bbr"]})
    assert decide_place(plan, "auto", _caps(netem=False))[0] == "vm"


def test_module_parameters_are_kernel_wide():
    reg = dict(variants.registry())
    reg["htcp-bw"] = variants.Variant(
        "htcp-bw", "H-TCP with bandwidth switching", reg["htcp"].ns3,
        variants.LinuxImplementation("htcp", "tcp_htcp", {"use_bandwidth_switch": "1"}), "test",
    )  # fmt: skip
    ccs: dict = {}
    _add_congestion_control(ccs, reg["htcp"])
    with pytest.raises(BatchError, match="separate batches"):
        _add_congestion_control(ccs, reg["htcp-bw"])


def test_a_run_of_another_algorithm_is_said_so_not_fatal():
    # issue 30: Linux's dctcp falls back to dctcp-reno without ECN; the run is recorded with
    # the reason (status other-algorithm) and the batch goes on
    entry = {"point": "loss=0+variant=dctcp", "repetition": 1, "variant": "dctcp", "ecn": False}
    assert check_congestion_control("dctcp", "dctcp", entry) is None
    why = check_congestion_control("dctcp-reno", "dctcp", entry)
    assert "ran congestion control 'dctcp-reno', not 'dctcp' of variant dctcp" in why
    assert "ECN off" in why
    assert check_congestion_control("bbr", None, {"point": "base", "repetition": 1}) is None


# --- variants of one module with other parameters ------------------------------------------------


def _entry(name, cc, module, **parameters):
    linux = variants.LinuxImplementation(cc, module, dict(parameters))
    return variants.Variant(name=name, description=name, ns3=None, linux=linux, sources="")


def test_parameter_groups_put_conflicting_module_parameters_apart():
    """Hand-worked: cubic and htcp with their defaults share a kernel; cubic without HyStart
    and htcp with its bandwidth switch cannot join them (the same module, other values) but
    can share one with each other; a second value of hystart needs a third kernel."""
    from emusim.backends.mininet.plan import parameter_groups

    cubic = _entry("cubic", "cubic", "tcp_cubic")
    nohystart = _entry("cubic-nohystart", "cubic", "tcp_cubic", hystart="0")
    htcp = _entry("htcp", "htcp", "tcp_htcp")
    htcp_bw = _entry("htcp-bw", "htcp", "tcp_htcp", use_bandwidth_switch="1")
    detect = _entry("cubic-delay", "cubic", "tcp_cubic", hystart_detect="2")
    # parameter-setting variants first in the design: the defaults still make the first group
    groups = parameter_groups([nohystart, htcp_bw, cubic, htcp, cubic, detect])
    assert groups == [["cubic", "htcp"], ["cubic-nohystart", "htcp-bw"], ["cubic-delay"]]
    assert parameter_groups([cubic, htcp]) == [["cubic", "htcp"]]
    assert parameter_groups([]) == []
    # points without a variant run the profile's cubic with its defaults: the first group's,
    # which a parameter variant of cubic cannot join even when no variant cubic is there
    assert parameter_groups([nohystart], default_cc="cubic") == [[], ["cubic-nohystart"]]
    assert parameter_groups([nohystart, htcp], default_cc="cubic") == [
        ["htcp"],
        ["cubic-nohystart"],
    ]
    assert parameter_groups([htcp_bw], default_cc="cubic") == [["htcp-bw"]]


def test_a_batch_with_a_parameter_variant_is_planned_one_group_at_a_time(tmp_path):
    """The shipped registry's cubic-nohystart beside cubic (lossy-link's sweep): without a
    group the plan names both groups; group 0 runs cubic with the module's defaults and group
    1 cubic-nohystart with hystart 0, and together they hold every run of the design once."""
    sweep = {"loss": ["0", "0.05"], "variant": ["cubic", "reno", "cubic-nohystart"]}
    with pytest.raises(BatchError, match=r"cubic, reno \| cubic-nohystart.*kernel-wide"):
        _plan(tmp_path, sweep)
    first, second = (_plan(tmp_path, sweep, group=g) for g in (0, 1))
    assert first["parameter_groups"] == second["parameter_groups"] == 2
    assert {r["point"].split("variant=")[1] for r in first["runs"]} == {"cubic", "reno"}
    assert {r["point"].split("variant=")[1] for r in second["runs"]} == {"cubic-nohystart"}
    assert first["congestion_controls"]["cubic"]["module_parameters"] == {}
    assert second["congestion_controls"] == {
        "cubic": {"module": "tcp_cubic", "module_parameters": {"hystart": "0"}}
    }
    paths = [r["path"] for r in first["runs"] + second["runs"]]
    assert len(paths) == len(set(paths)) == 2 * 3 * 2  # loss rates x variants x repetitions
    with pytest.raises(BatchError, match=r"group 2: .* 2 parameter group"):
        _plan(tmp_path, sweep, group=2)


def test_a_traced_point_is_traced_in_the_session_that_has_it(tmp_path):
    """`batch --trace POINT` on a batch of two sessions (cubic-nohystart beside cubic): each
    session traces the traced points it has, none asks for one it lacks, and a point in
    neither session is refused (before, each session refused the points of the other)."""
    from emusim.backends.mininet.batch import _check_traced, _traced, _within
    from emusim.backends.mininet.tracing import TraceRequest

    sweep = {"loss": ["0.05"], "variant": ["cubic", "reno", "cubic-nohystart"]}
    plans = [_plan(tmp_path, sweep, group=g) for g in (0, 1)]
    reno = next(r["point"] for r in plans[0]["runs"] if r["point"].endswith("variant=reno"))
    request = TraceRequest(frozenset({reno}), None, only=True)
    first, second = (_traced(p, _within(request, p)) for p in plans)
    assert {r["point"] for r in first["runs"] if "trace" in r} == {reno}
    assert first["runs"] and all(r["point"] == reno for r in first["runs"])
    assert second["runs"] == []  # the other session has nothing to trace: the batch skips it
    _check_traced(request, plans)
    with pytest.raises(BatchError, match=r"not in the batch: loss=0\.5\+variant=reno$"):
        _check_traced(TraceRequest(frozenset({reno, "loss=0.5+variant=reno"})), plans)


def test_each_run_records_its_modules_parameters_as_read_back(tmp_path):
    """batch._stamp_runs: a run of cubic-nohystart gets tcp_cubic's parameters as the session
    read them back; a run of htcp in the same session gets none of them."""
    from emusim.backends.mininet.batch import _stamp_runs

    runs = []
    for variant in ("cubic-nohystart", "htcp"):
        path = tmp_path / f"{variant}.json"
        path.write_text(json.dumps({"params": {"variant": variant}, "provenance": {}}))
        runs.append(str(path))
    facts = {"module_parameters": {"tcp_cubic.hystart": "0"}}
    _stamp_runs(runs, "digest", facts)
    nohystart, htcp = (json.loads(Path(p).read_text())["provenance"] for p in runs)
    assert nohystart == {"code_identity": "digest", "module_parameters": {"tcp_cubic.hystart": "0"}}
    assert htcp == {"code_identity": "digest"}


def test_a_batchs_record_joins_its_sessions_variant_facts():
    """batch._joined_variants: two sessions (cubic's defaults with htcp loaded; hystart 0),
    then a third setting hystart 1: each module and algorithm once, a parameter's values as
    the sessions set it (a list where they differ); one session's facts as they are."""
    from emusim.backends.mininet.batch import _joined_variants

    first = {"modules_loaded": ["tcp_htcp"], "available": ["cubic", "htcp", "reno"],
             "module_parameters": {}}  # fmt: skip
    second = {"modules_loaded": [], "available": ["cubic", "reno"],
              "module_parameters": {"tcp_cubic.hystart": "0"}}  # fmt: skip
    third = {**second, "module_parameters": {"tcp_cubic.hystart": "1"}}
    joined = _joined_variants([{"variants": first}, {"variants": second}], second)
    assert joined == {
        "modules_loaded": ["tcp_htcp"],
        "available": ["cubic", "htcp", "reno"],
        "module_parameters": {"tcp_cubic.hystart": "0"},
    }
    sessions = [{"variants": f} for f in (first, second, third)]
    assert _joined_variants(sessions, third)["module_parameters"] == {
        "tcp_cubic.hystart": ["0", "1"]
    }
    assert _joined_variants([{"variants": first}, {"variants": None}], first) is first
