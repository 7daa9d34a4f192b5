"""Rule paper_numbers: the paper's numbers (numbers.tex) and where its inputs are (paths.tex)."""

import json
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
import _log

from emusim import forwarding_paper, multiflow_paper, profiles, variants
from emusim import paper_numbers as pn

log = _log.setup(snakemake)  # noqa: F821
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
    return pd.concat([pd.read_csv(p) for p in paths], ignore_index=True) if paths else None


stats = {n: table(f"stats_{n}") for n in params.scenarios}
published = pd.read_csv(inp.published, dtype={"table": str, "row_key": str})
delay = json.loads(Path(inp.delay).read_text()) if "delay" in named else None
numbers = pn.merge(
    pn.constant_numbers(),
    pn.testbed_numbers(pd.read_csv(inp.hosts)),
    pn.profile_numbers(profiles.registry(Path(inp.profiles))),
    pn.report_numbers(published),
    pn.delay_numbers(delay, published),
    pn.baseline_numbers(stats, params.profiles),
    pn.sweep_numbers(stats, params.scenarios),
    pn.comparison_numbers(table("summary"), params.scenarios, params.profiles),
    pn.selfcheck_numbers(table("selfcheck")),
    pn.emulation_design_numbers(params.emulation_design, params.repeat_deterministic),
    pn.ablation_numbers(table("ablation"), params.ablation_scenarios, params.ablation_steps),
    pn.trace_numbers(table("traces"), stats.get("regular-1in6"), params.profiles, params.every_n),
    pn.one_in_six_numbers(runs("runs_1in6"), params.profiles),
    pn.drop_cost_numbers(runs("runs_random_drop"), params.profiles),
    {"Scale": pn.text(params.scale), "BackendsRun": pn.text(", ".join(params.backends))},
    pn.variant_registry_numbers(variants.registry(Path(inp.variants))),
    *(
        pn.lossy_link_numbers(
            name,
            table(f"lossy_{name}"),
            spec["headline"],
            spec["transfer_bytes"],
            spec["cap_s"],
            spec["queue_packets"],
        )
        for name, spec in params.lossy.items()
    ),
    # the router-forwarding study (emusim.forwarding_paper)
    forwarding_paper.numbers(params.scenarios, params.scale, table, read_json),
    # the multi-flow study (emusim.multiflow_paper)
    multiflow_paper.numbers(params.multiflow, table),
)
Path(out.numbers).write_text(
    pn.render(numbers, params.switches, params.available, params.scale), encoding="utf-8"
)
Path(out.paths).write_text(
    pn.render_paths(params.figures_dir, params.tables_dir, str(Path(out.paths).parent)),
    encoding="utf-8",
)
Path(out.scenarios).write_text(pn.render_scenario_appendix(params.unclaimed), encoding="utf-8")
na = sorted(k for k, v in numbers.items() if v == pn.NA)
log.info("%d numbers, %d of them n/a at this scale", len(numbers), len(na))
