"""The run archive keeps a finished run with its cost and gives it back only to the command that
made it (emusim.infra.archive; docs/archive.md)."""

import json

import pytest

from emusim.infra import archive, code_identity, runjson

COMMAND = ["build/ns3/multiflow", "--durationS=300", "--seed=7595477", "--run=1"]
RELATIVE = "ns3/multiflow-dynamic-i/linux-6.1-wan/variant=fast/run1.json"


def _run(status="ok", revision="4306763", command=COMMAND):
    meta = {
        "scenario": "multiflow-dynamic-i",
        "backend": "ns3",
        "profile": "linux-6.1-wan",
        "point": "variant=fast",
        "params": {"variant": "fast"},
        "repetition": 1,
        "seed": 7595477,
        "provenance": {
            "git_revision": revision,
            "scale": "paper",
            "command": command,
            # made by this checkout's code (emusim.infra.code_identity)
            "code_identity": code_identity.current("ns3")["digest"],
        },
    }
    output = {
        "status": status,
        "metrics": {"goodput_Bps": 99_000_000.0},
        "ns3": {"version": "3.44", "seed": 7595477, "run": 1, "simulated_s": 300.0},
    }
    return runjson.assemble(meta, output, "ns3")


def _write(path, run):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(run))
    return path


def test_add_keeps_the_run_under_its_results_path_with_its_cost(tmp_path):
    repo = tmp_path
    made = _write(repo / "results" / RELATIVE, _run())
    timing = repo / "logs" / "timing" / RELATIVE.replace(".json", ".tsv")
    timing.parent.mkdir(parents=True)
    # Snakemake's benchmark file: a header and one row (seconds, ..., cpu_time)
    timing.write_text("s\th:m:s\tmax_rss\tcpu_time\n2014.5\t0:33:34\t812.3\t1375.25\n")
    target = archive.add(made, repo / "data" / "archive", repo=repo)
    assert target == repo / "data" / "archive" / "paper" / RELATIVE
    kept = json.loads(target.read_text())
    assert kept["provenance"]["archive"] == {
        "cost": {"wall_s": 2014.5, "cpu_s": 1375.25, "max_rss_MB": 812.3}
    }
    assert kept["metrics"] == _run()["metrics"]
    assert archive.listing(repo / "data" / "archive") == [
        {"file": str(target), "git_revision": "4306763", "lasted_s": 300.0, "cpu_s": 1375.25}
    ]


@pytest.mark.parametrize(
    ("run", "named"),
    [
        (_run(status="aborted"), "status 'aborted'"),
        (_run(status="other-algorithm"), "status 'other-algorithm'"),
        (_run(revision="unknown"), "provenance.git_revision is 'unknown'"),
    ],
)
def test_add_refuses_a_run_it_could_not_vouch_for(tmp_path, run, named):
    made = _write(tmp_path / "results" / RELATIVE, run)
    with pytest.raises(archive.ArchiveError, match=named) as err:
        archive.add(made, tmp_path / "archive", repo=tmp_path)
    assert str(made) in str(err.value)
    assert not (tmp_path / "archive").exists()


def test_add_keeps_a_run_the_cap_ended(tmp_path):
    # a capped run is the design's result (the lossy-link cells at 5 % all reach the cap)
    made = _write(tmp_path / "results" / RELATIVE, _run(status="timeout"))
    kept = archive.add(made, tmp_path / "archive", repo=tmp_path)
    assert json.loads(kept.read_text())["status"] == "timeout"
    assert archive.matches(kept, COMMAND, tmp_path / "archive") == (
        True,
        f"{kept}: archived at 4306763",
    )


def test_add_does_not_replace_a_run_made_by_another_command(tmp_path):
    kept = _write(tmp_path / "archive" / "paper" / RELATIVE, _run())
    before = kept.read_text()
    other = _write(tmp_path / "results" / RELATIVE, _run(command=[*COMMAND, "--sampleS=0.1"]))
    with pytest.raises(archive.ArchiveError, match="another experiment"):
        archive.add(other, tmp_path / "archive", repo=tmp_path)
    assert kept.read_text() == before


def test_only_the_command_that_made_it_matches(tmp_path):
    kept = _write(tmp_path / "kept.json", _run())
    code_identity.write_manifest(tmp_path, code_identity.current("ns3"))
    assert archive.matches(kept, list(COMMAND), tmp_path) == (
        True,
        f"{kept}: archived at 4306763",
    )
    ok, why = archive.matches(kept, [*COMMAND[:-1], "--run=2"], tmp_path)
    assert not ok and "provenance.command differs" in why
    assert archive.matches(tmp_path / "absent.json", COMMAND, tmp_path)[0] is False


def test_restore_names_the_archive_file(tmp_path):
    kept = _write(tmp_path / "kept.json", _run())
    out = tmp_path / "results" / RELATIVE
    archive.restore(kept, out)
    run = json.loads(out.read_text())
    assert run["provenance"]["archive"] == {"path": str(kept)}
    assert {k: v for k, v in run.items() if k != "provenance"} == {
        k: v for k, v in _run().items() if k != "provenance"
    }


def test_a_broken_archive_file_is_named(tmp_path):
    bad = tmp_path / "kept.json"
    bad.write_text('{"status": "ok"}')
    with pytest.raises(archive.ArchiveError, match=str(bad)):
        archive.matches(bad, COMMAND, tmp_path)


def test_the_paper_counts_restored_runs_once_each_with_their_revisions():
    import pandas as pd

    from emusim.analysis.collect import ARCHIVE_COLUMN
    from emusim.report import shared_numbers

    def rows(scenario, backend, rep, revision=None, echoes=1):
        return [
            {
                "scenario": scenario,
                "backend": backend,
                "profile": "p",
                "point": "base",
                "repetition": rep,
                ARCHIVE_COLUMN: revision,
            }
        ] * echoes

    runs = pd.DataFrame(
        rows("ping-sweep", "mininet", 1, echoes=3)  # one run of three echoes
        + rows("lossy-link", "mininet", 1, "6bcd8ad0123")
        + rows("lossy-link", "mininet", 2, "915128b0123")
        + rows("lossy-link", "ns3", 1)
        + rows("multiflow-buffer", "ns3", 1, "6bcd8ad0123")
        + rows("random-drop", "hardware", 1)  # not a run the archive could hold
    )
    numbers = shared_numbers.archive_numbers(runs)
    assert numbers["RunsMade"] == "5" and numbers["RunsRestored"] == "3"
    assert numbers["RunsRestoredFrom"] == (
        " (lossy-link: 2, multiflow-buffer: 1; made at git revisions 6bcd8ad, 915128b)"
    )
    # a table of runs all made now has no archive column, and the sentence no parenthesis
    none = shared_numbers.archive_numbers(runs.drop(columns=ARCHIVE_COLUMN))
    assert none == {"RunsMade": "5", "RunsRestored": "none", "RunsRestoredFrom": ""}
    assert shared_numbers.archive_numbers(None)["RunsMade"] == "0"


def test_add_refuses_a_run_made_by_other_code(tmp_path):
    """A run is kept only with the code that made it: one whose code identity is not this
    checkout's (emusim.infra.code_identity) is refused, naming both."""
    run = _run()
    run["provenance"]["code_identity"] = "0123456789abcdef"
    made = _write(tmp_path / "results" / RELATIVE, run)
    now = code_identity.current("ns3")["digest"]
    with pytest.raises(archive.ArchiveError, match=f"'0123456789abcdef'.*'{now}'"):
        archive.add(made, tmp_path / "archive", repo=tmp_path)
    del run["provenance"]["code_identity"]
    _write(made, run)
    with pytest.raises(archive.ArchiveError, match="code_identity is missing"):
        archive.add(made, tmp_path / "archive", repo=tmp_path)


def test_a_run_kept_by_other_code_is_stale_and_says_what_changed(tmp_path):
    """The manifest the kept run names lacks a definition the code has now, or has one the
    code no longer has: the run is not restored, and the reason names the file."""
    kept = _write(tmp_path / "kept.json", _run())
    now = code_identity.current("ns3")
    then = {**now, "sources": sorted([*now["sources"][1:], "ffffffffffffffff"])}
    then["digest"] = "fedcba9876543210"
    then["names"] = {**now["names"], "sources": {"ffffffffffffffff": "sim/ns3/model/gone.cc"}}
    code_identity.write_manifest(tmp_path, then)
    run = _run()
    run["provenance"]["code_identity"] = then["digest"]
    _write(kept, run)
    ok, why = archive.matches(kept, COMMAND, tmp_path)
    assert not ok and "stale" in why and "sim/ns3/model/gone.cc" in why


def test_status_counts_a_run_of_another_command_apart_from_fresh_and_stale(capsys):
    def row(name, fresh):
        return {"file": name, "fresh": fresh, "git_revision": "abc", "why": "files differ: x",
                "backend": "ns3", "scenario": "multiflow-buffer"}  # fmt: skip

    rows = [row("a.json", True), row("b.json", False), row("c.json", False), row("d.json", True)]
    other = {"c.json": "kept --x=1; now --x=2", "d.json": "now --y"}
    assert archive._print_status(rows, other) == 0
    out = capsys.readouterr().out.splitlines()
    assert "other  c.json: the workflow runs another command for its point now (kept --x=1; " \
        "now --x=2)" in out  # fmt: skip
    # the stale run of another command is listed once, as another command's
    assert [line for line in out if line.startswith("stale")] == [
        "stale  b.json  (abc): files differ: x"
    ]
    assert out[-2].split() == ["ns3", "multiflow-buffer", "1", "1", "2"]
    assert (
        out[-1] == "1 of 4 kept runs are this checkout's code's and command's; 2 of another command"
    )
