"""Every backend's run JSON against src/emusim/schemas/run.schema.json (docs/results-schema.md).

Real runs of each backend are kept small under tests/data/runs/ (README.md there says where each
came from), so the check needs no results on the machine; the ns-3 programs' runs are made
through the wrapper, as the workflow makes them; and where a full study's results are on this
machine (/tmp/paper/results, /tmp/ci/results), a sample of each backend's is checked too. Bad
runs are refused at write time, naming the file, the key and the value.
"""

from __future__ import annotations

import copy
import fnmatch
import json
import re
import sys
import tomllib
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from emusim.backends.ns3 import command as ns3
from emusim.backends.ns3 import model_run
from emusim.core.paths import REPO_ROOT
from emusim.infra import runjson
from emusim.inputs import scenario as sc
from emusim.inputs import tcp_profiles

FIXTURES = Path(__file__).parents[1] / "data" / "runs"
FIXTURE_FILES = sorted(FIXTURES.glob("*.json"))
BACKEND_KEY = {"ns3": "ns3", "ns3-model": "ns3", "mininet": "mininet", "hardware": "hardware"}
"""The key under provenance that holds what the backend's own program said about the run."""

ARCHIVE = REPO_ROOT / "data" / "archive"
"""The run archive (docs/archive.md): runs made here, kept in the repository."""
DELAY_US = 71.8878  # the report's §3.2 value: these runs check the schema, not the fit


def _load(path: Path) -> dict:
    return json.loads(path.read_text())


def _split(run: dict) -> tuple[dict, dict, str]:
    """A run back into what its backend handed runjson.assemble: meta, output, backend key."""
    key = BACKEND_KEY[run["backend"]]
    meta = {k: v for k, v in run.items() if k not in ("status", "metrics", "series")}
    meta["provenance"] = {k: v for k, v in run["provenance"].items() if k != key}
    output = {"status": run["status"], "metrics": run["metrics"]}
    if key in run["provenance"]:
        output[key] = run["provenance"][key]
    if "series" in run:
        output["series"] = run["series"]
    return meta, output, key


def _refusal(doc: object, where: str = "results/x/run1.json") -> str:
    with pytest.raises(runjson.RunSchemaError) as err:
        runjson.validate_run(doc, where)
    return str(err.value)


# --- the schema itself --------------------------------------------------------------------------


def test_the_schema_is_valid_and_shipped_as_package_data():
    path = resources.files("emusim").joinpath("schemas", "run.schema.json")
    schema = json.loads(path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["schema_version"] == {"const": runjson.SCHEMA_VERSION}
    setuptools = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    globs = setuptools["package-data"]["emusim"]
    # every schema of the package (this one, the scenario's, the variants', the inventory's)
    shipped = resources.files("emusim").joinpath("schemas").iterdir()
    for schema_file in shipped:
        if schema_file.name.endswith((".json", ".yaml")):
            where = f"schemas/{schema_file.name}"
            assert any(fnmatch.fnmatch(where, g) for g in globs), (where, globs)


def test_the_doc_names_every_key_and_metric_of_the_schema():
    doc = (REPO_ROOT / "docs" / "results-schema.md").read_text()
    schema = runjson.run_schema()
    named = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_.]*)`", doc))
    for key in schema["properties"]:
        assert key in named, f"docs/results-schema.md does not name the run key {key!r}"
    metrics = schema["$defs"]["metrics"]["properties"]
    missing = sorted(set(metrics) - named)
    assert not missing, f"docs/results-schema.md does not name the metrics {missing}"
    # and every metric of the doc's table has its type in the schema
    table = doc.split("## Metrics", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1] for line in table.splitlines() if line.startswith("| `")]
    in_doc = {name for row in rows for name in re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", row)}
    assert in_doc <= set(metrics), sorted(in_doc - set(metrics))


# --- (a) runs every backend writes are valid ----------------------------------------------------


def test_there_is_a_fixture_of_every_backend():
    backends = {_load(path)["backend"] for path in FIXTURE_FILES}
    assert backends == {"ns3", "ns3-model", "mininet", "hardware"}
    assert any("series" in _load(path) for path in FIXTURE_FILES)  # the multi-flow study
    statuses = {_load(path)["status"] for path in FIXTURE_FILES}
    assert statuses == {"ok", "timeout", "aborted"}


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=[p.stem for p in FIXTURE_FILES])
def test_real_runs_of_every_backend_are_valid(path):
    runjson.validate_run(_load(path), str(path))


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=[p.stem for p in FIXTURE_FILES])
def test_assemble_rebuilds_each_backends_run_and_accepts_it(path):
    """What every backend hands assemble gives back the same, valid run (the round trip is
    what Mininet's batch writer, the testbed's executor and the ns-3 wrapper do)."""
    run = _load(path)
    meta, output, key = _split(run)
    assert runjson.assemble(meta, output, key) == run


def _minimal(backend: str) -> dict:
    """The least a run of `backend` must have: hand-written from docs/results-schema.md."""
    run = {
        "schema_version": 1,
        "scenario": "s",
        "backend": backend,
        "profile": "p",
        "point": "base",
        "params": {},
        "repetition": 1,
        "seed": None,
        "status": "ok",
        "metrics": {},
        "provenance": {"git_revision": "unknown"},
    }
    prov = run["provenance"]
    if backend in ("ns3", "ns3-model"):
        run["seed"] = 1
        prov["ns3"] = {}
    if backend == "ns3-model":
        prov["processing_model"] = {"fit": "fit.json", "fitted_to": "mininet"}
    if backend == "mininet":
        prov |= {
            "kernel_release": "6.1.0-56-amd64",
            "clock": "host",
            "icount_shift": None,
            "place": "host",
            "kvm": False,
            "host_s": 1.0,
            "dilation_guest_s_per_host_s": 1.0,
            "stack_latency_per_hop_us": None,
            "clock_check": {"ok": None, "host_io_irqs": None, "attempts": 1, "rejected": []},
            "batch_id": "b1",
            "dropper_impl": "none",
            "congestion_control": None,
            "wall_s": 1.0,
            "mininet": {},
        }
    if backend == "hardware":
        run["profile"] = "native"
        prov |= {
            "testbed": {"name": "t", "hosts": {}},
            "preflight": {"hosts": {}},
            "session_id": "s1",
            "kernel_release": {"sender": "6.1"},
            "tcp_sysctls": {"sender": {}, "receiver": {}},
            "dropper_impl": "none",
            "dropper_target": "192.168.2.2",
            "consistency": {"ok": True, "attempts": 1, "checks": [], "rejected": []},
            "hardware": {},
            "wall_s": 1.0,
        }
    return run


@pytest.mark.parametrize("backend", ["ns3", "ns3-model", "mininet", "hardware"])
def test_a_minimal_hand_written_run_of_each_backend_is_valid(backend):
    run = _minimal(backend)
    runjson.validate_run(run, "minimal.json")
    # each of those keys is needed: take any one away and the run is refused, naming it
    for key in [k for k in run if k != "provenance"] + list(run["provenance"]):
        bad = copy.deepcopy(run)
        (bad if key in bad else bad["provenance"]).pop(key)
        assert f"'{key}' is a required property" in _refusal(bad), key


def test_a_run_with_series_and_echoes_is_valid():
    run = _minimal("ns3")
    run["metrics"] = {"rtt_us": [178.976, 179.0], "request_size_B": 56}
    run["series"] = {
        k: [0.5, 1.0] for k in ("t_s", "queue_mean_pkts", "queue_min_pkts", "queue_max_pkts")
    }
    run["series"] |= {"buffer_pkts": [100, 100], "drops": [0, 1]}
    run["series"] |= {"flow_Mbps": [[1.0, 2.0]], "flow_queue_pkts": [[0.5, 0.25]]}
    runjson.validate_run(run, "series.json")


def test_the_wrapper_writes_a_valid_run(tmp_path):
    out = tmp_path / "run1.json"
    meta = {k: v for k, v in _minimal("ns3").items() if k not in ("status", "metrics")}
    program = 'print(\'{"status": "ok", "metrics": {"elapsed_s": 1.5}, "ns3": {"run": 1}}\')'
    code = runjson.main(
        ["--meta", json.dumps(meta), "--out", str(out), "--", sys.executable, "-c", program]
    )
    assert code == 0
    runjson.validate_run(_load(out), str(out))


def _ns3_meta(s: sc.Scenario, point: sc.Point, profile: str, cmd: list[str]) -> dict:
    """The identity the workflow gives runjson for an ns-3 run (backends/ns3/run_identity.py)."""
    return {
        "scenario": s.name,
        "backend": "ns3",
        "profile": profile,
        "point": point.id,
        "params": point.values,
        "repetition": 1,
        "seed": ns3.rng_seed(s.name, point.id),
        "provenance": {
            "scale": s.scale,
            "one_way_delay_us": DELAY_US,
            "command": cmd,
            "dropper_impl": "ns3::DropperQueueDisc",
        },
    }


# each program once, its run cut short where that keeps the output's shape: (scenario, point,
# profile, argument overrides)
NS3_RUNS = [
    ("ping-sweep", "request_size_B=56", "linux-2.2", {}),
    ("regular-drop", "drop_rate=0.05+every_n=20", "linux-2.2", {"writes": "200"}),
    ("baseline-udp", "base", "linux-2.2", {"writes": "200"}),
    ("lossy-link", "delay_ms=10+loss=0.05+variant=reno", "linux-6.1", {"writes": "100"}),
    ("router-forwarding", "payload_B=64+path=routed", "linux-2.2", {"durationS": "0.05"}),
    ("multiflow-dynamic-i", "variant=cubic", "linux-6.1-wan", {"durationS": "2", "sampleS": "1"}),
]


@pytest.mark.ns3
@pytest.mark.parametrize(("name", "point_id", "profile", "overrides"), NS3_RUNS)
def test_every_ns3_programs_runs_are_valid(ns3_programs, tmp_path, name, point_id, profile,
                                           overrides):  # fmt: skip
    s = sc.load(name, "quick")
    point = s.point(point_id)
    program = str(ns3_programs / ns3.program_name(s))
    cmd = ns3.command(program, s, point, tcp_profiles.get(profile), 1, DELAY_US)
    for key, value in overrides.items():
        cmd = [a for a in cmd if not a.startswith(f"--{key}=")] + [f"--{key}={value}"]
    out = tmp_path / "run1.json"
    meta = _ns3_meta(s, point, profile, cmd)
    assert runjson.main(["--meta", json.dumps(meta), "--out", str(out), "--", *cmd]) == 0
    run = _load(out)
    runjson.validate_run(run, str(out))
    assert run["provenance"]["ns3"]["version"] and ("series" in run) == (name.startswith("multi"))


@pytest.mark.ns3
def test_an_ns3_model_run_is_valid(ns3_programs, tmp_path):
    fit = {
        "backend": "mininet",
        "shared_cpu": True,
        "queue_packets": 1000,
        "host": {"per_datagram_s": 1.4e-5, "per_extra_frame_s": 0.0, "per_byte_s": 4.3e-8},
        "router": {"per_packet_s": 4.5e-6, "per_byte_s": 0.0},
    }
    (tmp_path / "fit.json").write_text(json.dumps(fit))
    (tmp_path / "delay.json").write_text(json.dumps({"one_way_delay_us": DELAY_US}))
    out = tmp_path / "run1.json"
    code = model_run.main(
        ["--scenario", "router-forwarding", "--scale", "quick", "--profile", "linux-2.2",
         "--point", "payload_B=8192+path=routed", "--rep", "1",
         "--program", str(ns3_programs / "router-forwarding"),
         "--fit", str(tmp_path / "fit.json"), "--delay-json", str(tmp_path / "delay.json"),
         "--out", str(out)]
    )  # fmt: skip
    assert code == 0
    run = _load(out)
    assert run["backend"] == "ns3-model"
    runjson.validate_run(run, str(out))


def test_every_archived_run_is_valid_where_the_workflow_would_write_it():
    """A kept run is restored as it is: it must be a valid run JSON, at the path of its own
    backend, scenario, profile, point and repetition (emusim.infra.archive.archive_path)."""
    kept = sorted(ARCHIVE.glob("*/*/*/*/*/run*.json"))
    for path in kept:
        run = _load(path)
        runjson.validate_run(run, str(path))
        relative = runjson.run_path(
            "", run["backend"], run["scenario"], run["profile"], run["point"], run["repetition"]
        )
        assert path == ARCHIVE / run["provenance"]["scale"] / relative, path


# --- (b) bad runs are refused, naming the file, the key and the value --------------------------

BAD = [
    # (what, change, words the message must have)
    ("missing key", lambda r: r.pop("status"), ["'status' is a required property"]),
    ("wrong type", lambda r: r.update(repetition="1"), ["'repetition'", "'1'", "integer"]),
    ("schema_version 2", lambda r: r.update(schema_version=2), ["'schema_version'", "2"]),
    ("unknown status", lambda r: r.update(status="failed"), ["'status'", "'failed'", "'ok'"]),
    ("unknown backend", lambda r: r.update(backend="qemu"), ["'backend'", "'qemu'"]),
    ("unknown key", lambda r: r.update(metric={}), ["unknown key 'metric'"]),
    ("metric not a number", lambda r: r["metrics"].update(elapsed_s="2.4"),
     ["'metrics.elapsed_s'", "'2.4'", "number"]),
    ("echo not a number", lambda r: r["metrics"].update(rtt_us=[1.0, None]),
     ["'metrics.rtt_us.1'", "None"]),
    ("count below 0", lambda r: r["metrics"].update(packets_dropped=-1),
     ["'metrics.packets_dropped'", "-1", ">= 0"]),
    ("repetition 0", lambda r: r.update(repetition=0), ["'repetition'", "0", ">= 1"]),
    ("ns-3 without a seed", lambda r: r.update(seed=None), ["'seed'", "None", "integer"]),
    ("no git revision", lambda r: r["provenance"].pop("git_revision"),
     ["'provenance'", "'git_revision' is a required property"]),
    ("point not an id", lambda r: r.update(point="drop rate 0.1"), ["'point'", "'drop rate 0.1'"]),
]  # fmt: skip


@pytest.mark.parametrize(("what", "change", "words"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_run_is_refused_naming_file_key_and_value(what, change, words):
    run = _load(FIXTURES / "ns3-tcp-blast-aborted.json")
    change(run)
    message = _refusal(run, "results/ns3/random-drop/ns3-default/drop_rate=0.112/run5.json")
    assert message.startswith("results/ns3/random-drop/ns3-default/drop_rate=0.112/run5.json: ")
    for word in words:
        assert word in message, (what, message)


BAD_BY_BACKEND = [
    ("mininet-tcp-blast-timeout", lambda r: r["provenance"].pop("clock"),
     ["'provenance'", "'clock' is a required property"]),
    ("mininet-tcp-blast-timeout", lambda r: r["provenance"].pop("kernel_release"),
     ["'kernel_release' is a required property"]),
    ("mininet-tcp-blast-timeout", lambda r: r["provenance"].update(clock="wall"),
     ["'provenance.clock'", "'wall'", "'guest-icount'"]),
    ("mininet-ping", lambda r: r.update(seed=7), ["'seed'", "7", "null"]),
    ("hardware-testbed-tcp-blast", lambda r: r.update(profile="linux-2.2"),
     ["'profile'", "'linux-2.2'", "'native'"]),
    ("hardware-testbed-tcp-blast", lambda r: r["provenance"].update(kernel_release="6.1"),
     ["'provenance.kernel_release'", "'6.1'", "object"]),
    ("hardware-testbed-tcp-blast", lambda r: r["provenance"]["preflight"]["hosts"]["router"]
     .pop("clock_offset_ms"), ["'provenance.preflight.hosts.router'", "'clock_offset_ms'"]),
    ("ns3-model-udp-flood", lambda r: r["provenance"].pop("processing_model"),
     ["'processing_model' is a required property"]),
    ("ns3-multiflow-series", lambda r: r["series"].pop("t_s"),
     ["'series'", "'t_s' is a required property"]),
]  # fmt: skip


@pytest.mark.parametrize(("fixture", "change", "words"), BAD_BY_BACKEND)
def test_a_backends_own_keys_are_checked(fixture, change, words):
    run = _load(FIXTURES / f"{fixture}.json")
    change(run)
    message = _refusal(run, f"{fixture}.json")
    assert message.startswith(f"{fixture}.json: ")
    for word in words:
        assert word in message, message


def test_assemble_refuses_a_bad_run_naming_its_path():
    meta, output, key = _split(_load(FIXTURES / "mininet-ping.json"))
    output["metrics"]["rtt_us"] = "181 179"
    with pytest.raises(runjson.RunSchemaError) as err:
        runjson.assemble(meta, output, key)
    assert str(err.value).startswith("mininet/ping-sweep/linux-2.2/request_size_B=56/run1.json: ")
    assert "'metrics.rtt_us'" in str(err.value) and "'181 179'" in str(err.value)


def test_the_wrapper_writes_no_file_for_a_bad_run(tmp_path, capsys):
    out = tmp_path / "run1.json"
    meta = {k: v for k, v in _minimal("ns3").items() if k not in ("status", "metrics")}
    program = 'print(\'{"status": "done", "metrics": {"elapsed_s": 1.5}, "ns3": {}}\')'
    code = runjson.main(
        ["--meta", json.dumps(meta), "--out", str(out), "--", sys.executable, "-c", program]
    )
    assert code == 1
    assert not list(tmp_path.iterdir())
    err = capsys.readouterr().err
    assert f"{out}: " in err and "'status'" in err and "'done'" in err


def test_a_marked_fraction_is_the_marks_over_the_packets_that_reached_the_queue():
    from emusim.analysis.collect import with_ratios

    # 36 of 1 200 packets marked: 0.03, by hand
    got = with_ratios({"link_ce_marks_forward": 36, "link_packets_forward": 1200, "x": 1})
    assert got == {"link_ce_marks_forward": 36, "link_packets_forward": 1200, "x": 1,
                   "link_ce_fraction_forward": 0.03}  # fmt: skip
    # no queue that marks (no marks reported), or nothing reached it: no fraction
    assert "link_ce_fraction_forward" not in with_ratios({"link_packets_forward": 1200})
    assert "link_ce_fraction_forward" not in with_ratios(
        {"link_ce_marks_forward": 0, "link_packets_forward": 0}
    )
