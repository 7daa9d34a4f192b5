"""The studies: each one a question the suite answers, presented in the paper.

A study is a package here, ``emusim.studies.NAME``, found by name (no list to edit):

- ``__init__.py`` defines ``STUDY = Study(...)``: its title, its place in the paper, and which
  scenarios it presents (``claims``);
- ``figures.py`` defines ``draw(kind, inputs, params, stem)``: one of its figures, from the
  inputs its rules file names (PDF and PNG at ``stem``);
- ``numbers.py`` defines ``paper_numbers(inputs) -> {macro: LaTeX}`` (emusim.report.macros:
  ``PaperInputs``), the numbers its section states.

Beside the package: its rules file ``workflow/rules/studies/NAME.smk``, a Snakemake module of
its own (its targets, figures and paper inputs, registered with ``api.register_study``), its
section ``paper/sections/NAME.tex`` and its scenarios in scenarios/. docs/adding-a-study.md
walks through one. A scenario no study claims still gets a generic figure and an appendix
entry.

The core (backends, workloads, statistics, the paper's machinery) imports no study: a contract
`make test` checks (`lint-imports`, pyproject.toml).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from emusim.core import plugins


class WorkflowApi(SimpleNamespace):
    """What a study's rules file sees of the workflow (emusim.pipeline.studies.api).

    It reaches the study's Snakemake module in the module's config, which Snakemake also pickles
    into each of the study's `script:` jobs. There it is of no use (its functions live in the
    workflow's own namespace, which a job cannot import), so it pickles as an empty one."""

    def __reduce__(self):
        return (type(self), ())


class StudyError(ValueError):
    """A study package is not what the registry expects; the message names it."""


@dataclass(frozen=True)
class Study:
    """One study of the registry."""

    name: str
    """Its package, rules file and section name (``router_forwarding``)."""
    title: str
    """What it is called in lists (``emusim list studies``)."""
    order: int
    """Its place in the paper: sections are input in ascending order."""
    claims: Callable[[Any], bool]
    """Whether it presents a scenario (an emusim.inputs.scenario.Scenario): a scenario no study
    claims gets the generic figure and an appendix entry."""

    @property
    def section(self) -> str:
        """Its section, as paper.tex inputs it (``sections/NAME``)."""
        return f"sections/{self.name}"

    def draw(self, kind: str, inputs: Mapping[str, Any], params: Mapping[str, Any], stem: Path):
        """One of its figures (its ``figures.draw``), written as ``stem``.pdf and .png."""
        return _part(self.name, "figures").draw(kind, inputs, params, Path(stem))

    def paper_numbers(self, inputs) -> dict[str, str]:
        """Its numbers for the paper (its ``numbers.paper_numbers``)."""
        return _part(self.name, "numbers").paper_numbers(inputs)


def _part(name: str, module: str):
    return importlib.import_module(f"{__name__}.{name}.{module}")


@cache
def registry() -> dict[str, Study]:
    """Every study package here, by name, in the paper's order."""
    found = []
    for module, study in plugins.discover(
        __name__,
        __path__,
        "STUDY",
        Study,
        StudyError,
        "a study package defines STUDY = Study(...) (emusim.studies; docs/adding-a-study.md)",
        packages_only=True,
    ):
        package = module.__name__.rpartition(".")[2]
        if study.name != package:
            raise StudyError(
                f"{Path(module.__file__)}: STUDY.name is {study.name!r}; it must be the "
                f"package's name, {package!r}"
            )
        found.append(study)
    return {s.name: s for s in sorted(found, key=lambda s: (s.order, s.name))}


def get(name: str) -> Study:
    """The study called ``name``; the error lists the known ones."""
    studies = registry()
    if name not in studies:
        raise StudyError(f"no study {name!r}; known: {', '.join(studies)}")
    return studies[name]


def claimed_by(scenario) -> list[str]:
    """The studies that present a scenario (empty: the generic figure presents it)."""
    return [s.name for s in registry().values() if s.claims(scenario)]


def scenarios_claimed(study: Study, loaded: Mapping, scale: str) -> dict:
    """Every scenario file the study presents, run at this scale or not (its paper parameters
    name them all): name -> the workflow's loaded scenario, or the file loaded at `scale`."""
    from emusim.inputs import scenario as sc

    every = {name: loaded.get(name) or sc.load(name, scale) for name in sc.scenario_names()}
    return {name: s for name, s in every.items() if study.claims(s)}
