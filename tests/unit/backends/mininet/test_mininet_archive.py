"""An emulated run kept in the archive comes back, with its session's record, only to a batch
that would make the same experiment (plan.run_key; batch.restore_archived; docs/archive.md).
No VM: the plan is computed on the host, and the kernel the VM would boot is named here."""

import copy
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from emusim.backends.mininet import batch as batch_mod
from emusim.backends.mininet.plan import make_plan, run_key
from emusim.infra import archive, code_identity, vm_setup
from emusim.inputs import scenario as sc

TEMPLATE = Path(__file__).parents[3] / "data" / "runs" / "mininet-tcp-blast-timeout.json"
KERNEL = "6.1.0-56-amd64"
CLOCK = {"clock": "guest-icount", "icount_shift": 0, "guest_cpu": "max"}


@pytest.fixture
def booted_kernel(monkeypatch):
    """The kernel the VM would boot, as emusim.infra.vm_setup.find_kernel names it."""
    monkeypatch.setattr(vm_setup, "find_kernel", lambda: SimpleNamespace(release=KERNEL))


def _plan(results: Path, delay_us=71.89):
    rd = sc.load("regular-drop", "quick")
    return make_plan(rd, "linux-6.1", delay_us, "auto", results, repeat_deterministic=False)


def _kept_run(plan: dict, entry: dict, key: str) -> dict:
    """A finished emulated run of this entry (the schema's shape from tests/data/runs)."""
    run = copy.deepcopy(json.loads(TEMPLATE.read_text()))
    run.update(
        scenario=plan["scenario"],
        profile=plan["profile"],
        point=entry["point"],
        params=entry["params"],
        repetition=entry["repetition"],
        status="ok",
    )
    run["provenance"].update(
        scale=plan["scale"], batch_id="b-archived", run_key=key, kernel_release=KERNEL, **CLOCK
    )
    # made by this checkout's code (emusim.infra.code_identity), whose manifest the archive keeps
    run["provenance"]["code_identity"] = code_identity.current("mininet")["digest"]
    return run


def _archive(archive_dir: Path, results: Path, plan: dict, entry: dict, key: str) -> Path:
    relative = Path(entry["path"]).relative_to(results)
    kept = archive.archive_path(archive_dir, plan["scale"], relative)
    kept.parent.mkdir(parents=True)
    kept.write_text(json.dumps(_kept_run(plan, entry, key)))
    code_identity.write_manifest(archive_dir, code_identity.current("mininet"))
    session = kept.parents[1] / "sessions" / "b-archived.json"
    session.parent.mkdir(parents=True, exist_ok=True)
    session.write_text(json.dumps({"batch_id": "b-archived", "started_utc": "2026-11-27T10:00Z"}))
    return kept


def test_a_run_kept_with_its_own_key_is_restored_with_its_session(tmp_path, booted_kernel):
    results, kept_dir = tmp_path / "results", tmp_path / "archive"
    plan = _plan(results)
    first, second = plan["runs"][0], plan["runs"][1]
    kept = _archive(kept_dir, results, plan, first, run_key(plan, first, CLOCK, KERNEL))
    # the second run was kept by a batch with another delay: another experiment
    other = _plan(results, delay_us=80.0)["runs"][1]
    _archive(
        kept_dir, results, plan, second, run_key(plan | {"delay_us": 80.0}, other, CLOCK, KERNEL)
    )

    after = batch_mod.restore_archived(plan, kept_dir, results, CLOCK)

    assert [e["path"] for e in after["skipped"]] == [first["path"]]
    assert [e["path"] for e in after["runs"]] == [e["path"] for e in plan["runs"][1:]]
    restored = json.loads(Path(first["path"]).read_text())
    assert restored["provenance"]["archive"] == {"path": str(kept)}
    assert not Path(second["path"]).exists()
    # the batch can be written from the restored runs alone, its session's record with them
    out = batch_mod.compose_batch([first["path"]], None)
    assert [s["batch_id"] for s in out["sessions"]] == ["b-archived"]


@pytest.mark.parametrize(
    "changed",
    [
        {"clock": {**CLOCK, "guest_cpu": "max,-erms,-fsrm"}},
        {"kernel": "6.1.0-57-amd64"},
    ],
)
def test_another_clock_or_kernel_is_another_experiment(tmp_path, booted_kernel, changed):
    results, kept_dir = tmp_path / "results", tmp_path / "archive"
    plan = _plan(results)
    entry = plan["runs"][0]
    key = run_key(plan, entry, changed.get("clock", CLOCK), changed.get("kernel", KERNEL))
    _archive(kept_dir, results, plan, entry, key)
    after = batch_mod.restore_archived(plan, kept_dir, results, CLOCK)
    assert after["runs"] == plan["runs"] and after["skipped"] == plan["skipped"]


def test_the_key_follows_the_profile_settings_not_only_its_name(tmp_path, monkeypatch):
    plan = _plan(tmp_path)
    entry = plan["runs"][0]
    before = run_key(plan, entry, CLOCK, KERNEL)
    from emusim.backends.mininet import plan as plan_mod

    real = plan_mod.tcp_setup

    def with_frto_off(profile):
        setup = real(profile)
        setup.sysctls["net.ipv4.tcp_frto"] = "0"
        return setup

    monkeypatch.setattr(plan_mod, "tcp_setup", with_frto_off)
    assert run_key(plan, entry, CLOCK, KERNEL) != before


def test_add_keeps_an_emulated_run_with_its_session_record(tmp_path):
    results = tmp_path / "results"
    plan = _plan(results)
    entry = plan["runs"][0]
    run_file = Path(entry["path"])
    run_file.parent.mkdir(parents=True)
    run = _kept_run(plan, entry, "0123456789abcdef")
    run["provenance"]["git_revision"] = "4306763"
    run_file.write_text(json.dumps(run))
    with pytest.raises(archive.ArchiveError, match="session record"):
        archive.add(run_file, tmp_path / "archive", repo=tmp_path)
    record = run_file.parents[1] / "sessions" / "b-archived.json"
    record.parent.mkdir()
    record.write_text('{"batch_id": "b-archived"}')
    target = archive.add(run_file, tmp_path / "archive", repo=tmp_path)
    assert target == tmp_path / "archive" / "quick" / run_file.relative_to(results)
    assert (target.parents[1] / "sessions" / "b-archived.json").read_text() == record.read_text()
    del run["provenance"]["run_key"]
    run_file.write_text(json.dumps(run))
    with pytest.raises(archive.ArchiveError, match="no 'run_key'"):
        archive.add(run_file, tmp_path / "archive2", repo=tmp_path)
    # a traced run is not kept: the tracer is not in the code identity
    run["provenance"]["run_key"] = "0123456789abcdef"
    run["provenance"].setdefault("mininet", {})["trace"] = {"events": 1}
    run_file.write_text(json.dumps(run))
    with pytest.raises(archive.ArchiveError, match=r"mininet\.trace: a traced"):
        archive.add(run_file, tmp_path / "archive3", repo=tmp_path)


def test_a_batch_of_some_cells_only_names_a_selection_that_keeps_none(tmp_path):
    """`--where`: the batch of two cells of the lossy-link sweep runs those cells only."""
    from emusim.backends.mininet.plan import BatchError

    lossy = sc.load("lossy-link", "paper")
    plan = make_plan(
        lossy, "linux-6.1", 0.0, "auto", tmp_path, repetitions=3,
        where={"delay_ms": ["10"], "loss": ["0.01", "0.05"], "variant": ["reno"]},
    )  # fmt: skip
    assert [(e["point"], e["repetition"]) for e in plan["runs"]] == [
        (p, k)
        for p in ("delay_ms=10+loss=0.01+variant=reno", "delay_ms=10+loss=0.05+variant=reno")
        for k in (1, 2, 3)
    ]
    with pytest.raises(BatchError, match=r"--where delay_ms=.*no point of lossy-link"):
        make_plan(lossy, "linux-6.1", 0.0, "auto", tmp_path, where={"delay_ms": ["7"]})


def test_the_batch_command_names_a_selection_that_keeps_nothing(tmp_path, capsys):
    from emusim.backends.mininet import cli

    code = cli.main(
        ["batch", "--scenario", str(sc.SCENARIO_DIR / "lossy-link.yaml"), "--scale", "paper",
         "--profile", "linux-6.1", "--results-dir", str(tmp_path), "--deterministic-once",
         "--where", "delay_ms=10", "--where", "variant=nosuch"]
    )  # fmt: skip
    assert code == 2
    assert "--where delay_ms=10 variant=nosuch: no point of lossy-link" in capsys.readouterr().err
    lossy = str(sc.SCENARIO_DIR / "lossy-link.yaml")
    assert cli.main(["batch", "--scenario", lossy, "--profile", "linux-6.1",
                     "--results-dir", str(tmp_path), "--where", "delay_ms"]) == 2  # fmt: skip
    assert "--where 'delay_ms': expected AXIS=VALUE" in capsys.readouterr().err


def test_the_run_key_of_a_kept_cell_does_not_move():
    """Every archived emulated run is found by its key: a change to what the key digests, or
    to how, orphans them all. This pins the key of one lossy-link cell as the archive's runs
    are made (since 28 November 2026, with the guest's scheduling; the runs made before are in
    data/superseded/). If it must change, move the archived emulated runs out in the same
    commit (docs/archive.md) and update the digest here."""
    lossy = sc.load("lossy-link", "paper")
    where = {"delay_ms": ["10"], "loss": ["0.05"], "variant": ["reno"]}
    plan = make_plan(lossy, "linux-6.1", 0.0, "auto", Path("/results"), repetitions=3, where=where)
    assert run_key(plan, plan["runs"][0], CLOCK, KERNEL) == "b3e243d81706a6b2"


def test_kept_runs_not_used_are_a_line_per_reason_with_lists_cut_short():
    a, b, c = (Path(f"data/archive/paper/mininet/x/p/run{k}.json") for k in (1, 2, 3))
    changed = ", ".join(f"m.py:f{k}" for k in range(1, 8))  # 7 definitions
    lines = batch_mod.unused_lines(
        {
            f"stale: Python changed: {changed}; files differ: emu/blast/tcpblast.c": [a, b],
            "its run_key differs from this run's": [c],
        }
    )
    assert lines == [
        f"mininet: {a} and 1 more not used: stale: Python changed: m.py:f1, m.py:f2, m.py:f3 "
        "and 4 more; files differ: emu/blast/tcpblast.c",
        f"mininet: {c} not used: its run_key differs from this run's",
        "mininet: `python -m emusim.infra.archive status` says what changed for each",
    ]
    assert batch_mod.unused_lines({}) == []
