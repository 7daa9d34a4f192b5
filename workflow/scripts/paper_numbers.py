"""Rule paper_numbers: the paper's numbers (numbers.tex: the core's and each study's,
emusim.studies), where its inputs are (paths.tex), the studies' sections (studies.tex) and the
appendix of scenarios no study presents (scenarios.tex)."""

import json
from pathlib import Path

import pandas as pd

from emusim import studies
from emusim.analysis.collect import ARCHIVE_COLUMN
from emusim.core import script_log
from emusim.inputs import tcp_profiles, variants
from emusim.report import macros, shared_numbers

log = script_log.setup(snakemake)  # noqa: F821
inp, params, out = snakemake.input, snakemake.params, snakemake.output  # noqa: F821
# Names of the inputs this scale has (`in inp` would test the paths, not the names).
named = set(inp.keys())


def table(name: str) -> pd.DataFrame | None:
    """A named input CSV, or None where the workflow did not make it at this scale."""
    if name not in named:
        return None
    try:
        return pd.read_csv(inp[name])
    except pd.errors.EmptyDataError:  # a summary over no scenarios is an empty file
        return None


def read_json(name: str) -> dict | None:
    """A named input JSON, or None where the workflow did not make it at this scale."""
    return json.loads(Path(inp[name]).read_text()) if name in named else None


def runs(name: str) -> pd.DataFrame | None:
    """The collected runs of every backend of the named input, or None where not made."""
    if name not in named:
        return None
    paths = inp[name]
    paths = [paths] if isinstance(paths, str) else list(paths)
    # a revision of digits only must stay a string (0000000, not 0)
    read = [pd.read_csv(p, dtype={ARCHIVE_COLUMN: str}) for p in paths]
    return pd.concat(read, ignore_index=True) if paths else None


def path(name: str) -> str | None:
    """A named input's path, or None where the workflow did not make it at this scale."""
    return inp[name] if name in named else None


stats = {n: table(f"stats_{n}") for n in params.scenarios}


def study_inputs(study_params: dict) -> macros.PaperInputs:
    return macros.PaperInputs(
        table=table,
        read_json=read_json,
        runs=runs,
        path=path,
        stats=stats,
        scenarios=params.scenarios,
        profiles=params.profiles,
        scale=params.scale,
        params=study_params,
    )


numbers = macros.merge(
    shared_numbers.constant_numbers(),
    shared_numbers.testbed_numbers(pd.read_csv(inp.hosts)),
    shared_numbers.profile_numbers(tcp_profiles.registry(Path(inp.profiles))),
    shared_numbers.sweep_numbers(stats, params.scenarios),
    shared_numbers.comparison_numbers(table("summary"), params.scenarios, params.profiles),
    shared_numbers.selfcheck_numbers(table("selfcheck")),
    shared_numbers.emulation_design_numbers(params.emulation_design, params.repeat_deterministic),
    shared_numbers.archive_numbers(runs("run_tables")),
    shared_numbers.audit_numbers(read_json("audit")),
    {"Scale": macros.text(params.scale), "BackendsRun": macros.text(", ".join(params.backends))},
    shared_numbers.variant_registry_numbers(variants.registry(Path(inp.variants))),
    # each study's own (emusim.studies: its numbers.paper_numbers), in the paper's order
    *(
        studies.get(name).paper_numbers(study_inputs(study_params))
        for name, study_params in params.studies.items()
    ),
)
Path(out.numbers).write_text(
    macros.render(numbers, params.switches, params.available, params.scale), encoding="utf-8"
)
Path(out.paths).write_text(
    macros.render_paths(params.figures_dir, params.tables_dir, str(Path(out.paths).parent)),
    encoding="utf-8",
)
Path(out.scenarios).write_text(macros.render_scenario_appendix(params.unclaimed), encoding="utf-8")
Path(out.studies).write_text(
    macros.render_study_sections([studies.get(name).section for name in params.studies]),
    encoding="utf-8",
)
na = sorted(k for k, v in numbers.items() if v == macros.NA)
log.info("%d numbers, %d of them n/a at this scale", len(numbers), len(na))
