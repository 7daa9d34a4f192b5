"""Rule multiflow_phases: every run's per-phase table (emusim.studies.multiflow.phases), and the
paper's."""

from pathlib import Path

from emusim.analysis import tables
from emusim.analysis.collect import read_runs
from emusim.core import script_log
from emusim.studies.multiflow import phases as multiflow

log = script_log.setup(snakemake)  # noqa: F821
scenario = snakemake.params.scenario  # noqa: F821
runs = read_runs(snakemake.input.runs)  # noqa: F821
log.info("mininet: not run: the multi-flow study is ns-3's alone (docs/multiflow.md, Mininet)")
phases = multiflow.phase_rows(runs, scenario)
phases.to_csv(snakemake.output.csv, index=False)  # noqa: F821
table = multiflow.paper_table(phases, scenario.axes)
stem = Path(snakemake.output.table[0]).with_suffix("")  # noqa: F821
caption = (
    f"{scenario.name}: per phase and TCP variant, what the last half of the phase settled to "
    "(utilisation of the bottleneck's payload rate, Jain's index over the active flows, the "
    "queue's mean and sd, the mean packets each active flow kept queued), the seconds after the "
    "phase began from which every active flow's smoothed goodput stayed within a tenth of the "
    "fair share of its settled rate (empty: not by the phase's end), and the drops of the whole "
    "phase; ns-3."
)
formats = {
    "utilisation": ".3f",
    "Jain": ".3f",
    "settled after (s)": ".1f",
    "queue (pkts)": ".1f",
    "queue sd": ".1f",
    "queued/flow (pkts)": ".1f",
}
tables.write_table(table, stem, caption, label=f"tab:{scenario.name}-phases", float_formats=formats)
log.info("%d runs, %d phase rows", len(runs), len(phases))
