"""The study registry (emusim.studies): every study package is found by name, has its rules
file, its section and its two entry points, and the shipped scenarios each belong to one study,
by what their files say (a `reference`, the workload, the lossy link's sweep axes)."""

import importlib
import pickle
import sys

import pytest
import yaml

from emusim import studies
from emusim.core.paths import REPO_ROOT
from emusim.inputs import scenario as sc

PACKAGES_IN_ORDER = ["report_2001", "lossy_link", "ecn_marking", "multiflow", "router_forwarding"]
PACKAGES = sorted(
    p.parent.name for p in (REPO_ROOT / "src" / "emusim" / "studies").glob("*/__init__.py")
)


def test_registry_finds_every_package_in_the_papers_order():
    found = studies.registry()
    assert sorted(found) == PACKAGES
    assert list(found) == PACKAGES_IN_ORDER
    orders = [s.order for s in found.values()]
    assert orders == sorted(orders)


@pytest.mark.parametrize("name", PACKAGES)
def test_a_study_has_rules_section_figures_and_numbers(name):
    study = studies.get(name)
    assert (REPO_ROOT / "workflow" / "rules" / "studies" / f"{name}.smk").is_file()
    assert (REPO_ROOT / "paper" / f"{study.section}.tex").is_file()
    figures = importlib.import_module(f"emusim.studies.{name}.figures")
    numbers = importlib.import_module(f"emusim.studies.{name}.numbers")
    assert callable(figures.draw) and callable(numbers.paper_numbers)


def _expected_study(spec: dict) -> str:
    """Which study a scenario file belongs to, from the file alone."""
    if "reference" in spec:
        return "report_2001"
    kind = spec["workload"]["kind"]
    if kind == "udp-flood":
        return "router_forwarding"
    if kind == "multiflow":
        return "multiflow"
    if {"delay_ms", "loss", "variant"} <= set(spec.get("sweep", {})):
        return "lossy_link"
    if "aqm" in spec["topology"]:
        return "ecn_marking"
    return "none"


@pytest.mark.parametrize("name", sc.scenario_names())
def test_every_shipped_scenario_belongs_to_one_study(name):
    spec = yaml.safe_load((sc.SCENARIO_DIR / f"{name}.yaml").read_text())
    assert studies.claimed_by(sc.load(name, "quick")) == [_expected_study(spec)]


def test_an_unknown_study_is_named_with_the_known_ones():
    with pytest.raises(studies.StudyError, match="no study 'nope'; known: report_2001"):
        studies.get("nope")


@pytest.fixture
def extra_study(tmp_path, monkeypatch):
    """Writes a package NAME with the given __init__.py into a folder the registry also
    searches; the registry is rebuilt before and after."""
    made = []

    def add(name: str, init: str) -> None:
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(init)
        made.append(name)

    monkeypatch.setattr(studies, "__path__", [*studies.__path__, str(tmp_path)])
    studies.registry.cache_clear()
    yield add
    for name in made:
        sys.modules.pop(f"emusim.studies.{name}", None)
    monkeypatch.undo()
    studies.registry.cache_clear()


def test_a_package_without_STUDY_is_refused_by_file(extra_study):
    extra_study("half_done", '"""A study not yet written."""\n')
    with pytest.raises(studies.StudyError, match=r"half_done/__init__\.py: a study package"):
        studies.registry()


def test_STUDY_name_must_be_the_package_name(extra_study):
    extra_study(
        "typo",
        "from emusim.studies import Study\n"
        "STUDY = Study(name='tpyo', title='t', order=99, claims=lambda s: False)\n",
    )
    with pytest.raises(studies.StudyError, match=r"STUDY\.name is 'tpyo'; it must be"):
        studies.registry()


def test_a_searched_folder_without_packages_adds_no_study(extra_study):
    assert list(studies.registry()) == PACKAGES_IN_ORDER


def test_the_workflow_api_pickles_empty_into_a_study_job():
    # Snakemake pickles a module's config (which carries the API) into each script job; the
    # API's functions belong to the workflow's namespace, which the job cannot import.
    api = studies.WorkflowApi(SCENARIOS={"random-drop": object()}, add_figure=lambda: None)
    copy = pickle.loads(pickle.dumps({"study_api": api, "scale": "quick"}))
    assert copy == {"study_api": studies.WorkflowApi(), "scale": "quick"}
    assert api.SCENARIOS  # the workflow's own is untouched
