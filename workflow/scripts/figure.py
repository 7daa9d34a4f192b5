"""Rule figure: one of the report's figures, named after its numbering."""

import json
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
import _log

from emusim import plots, plots_lossy, plots_scenario, tcptrace

log = _log.setup(snakemake)  # noqa: F821
inp = snakemake.input  # noqa: F821
stem = Path(snakemake.output.pdf).with_suffix("")  # noqa: F821
name = stem.name


def stats(scenario: str) -> pd.DataFrame:
    return pd.read_csv(inp[f"stats_{scenario}"])


if name == "fig3_1_rtt_vs_size":
    fits = json.loads(Path(inp.delay).read_text())["fits"]
    lines = {
        "hardware two-point line (report)": (fits["two_point"]["a"], fits["two_point"]["b"]),
        "hardware least squares": (
            fits["least_squares"]["slope"],
            fits["least_squares"]["intercept"],
        ),
    }
    plots.fig3_1_rtt_vs_size(stats("ping-sweep"), stem, fits=lines)
elif name == "fig4_1_random_drop":
    plots.fig4_1_random_drop(stats("random-drop"), stem, analytic=pd.read_csv(inp.analytic))
elif name == "fig4_2_regular_drop":
    plots.fig4_2_regular_drop(stats("regular-drop"), stem, analytic=pd.read_csv(inp.analytic))
elif name == "fig4_3_random_vs_regular":
    plots.fig4_3_random_vs_regular(stats("random-drop"), stats("regular-drop"), stem)
elif name == "fig4_4_heavy_tail":
    runs = pd.concat([pd.read_csv(p) for p in inp.runs], ignore_index=True)
    plots.fig4_4_heavy_tail(runs, stem, dropper_col="mode")
elif name == "fig5_1_exp_vs_sim":
    plots.fig5_1_exp_vs_sim(stats("random-drop"), stem)
elif name == "fig4_5_pathology":
    every_n = snakemake.params.every_n  # noqa: F821
    traces = {Path(p).parts[-3]: tcptrace.read(p) for p in inp.traces}
    slots = {k: tcptrace.dropper_slots(t, every_n) for k, t in traces.items()}
    plots.fig4_5_pathology(traces, slots, stem, every_n=every_n)
elif name == "fig_ablation":
    plots.fig_ablation(pd.read_csv(inp.summary), stem)
elif name == "fig5_2_rel_diff":
    plots.fig5_2_rel_diff(pd.read_csv(inp.compare), stem)
elif snakemake.params.lossy:  # noqa: F821
    kind, scenario = snakemake.params.lossy  # noqa: F821
    variants = snakemake.params.variants  # noqa: F821
    compare = pd.read_csv(inp.compare)
    if kind == "goodput":
        plots_lossy.fig_lossy_goodput(stats(scenario), stem, variants, compare)
    else:
        plots_lossy.fig_lossy_ns3_vs_mininet(compare, stem, variants)
elif snakemake.params.scenario:  # noqa: F821
    scenario = snakemake.params.scenario  # noqa: F821
    plots_scenario.fig_scenario(stats(scenario), stem, scenario, snakemake.params.axes)  # noqa: F821
else:
    raise SystemExit(f"no figure called {name}")
log.info("wrote %s.pdf and .png", stem)
