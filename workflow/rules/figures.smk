# Every figure and table, from the statistics and comparisons. A figure is a study's (added
# by its rules file, workflow/rules/studies/NAME.smk: add_figure) or a scenario's that no study
# presents; one rule draws them all.


def _figure_inputs(wildcards):
    """A figure's named input files (its study's add_figure)."""
    return pipeline.studies.figure_inputs(SETUP, wildcards.stem)


rule figure:
    input:
        unpack(_figure_inputs),
    output:
        pdf=f"{FIGURES}/{{stem}}.pdf",
        # The HTML report (snakemake --report) shows the PNG, with the figure's caption.
        png=report(
            f"{FIGURES}/{{stem}}.png",
            caption="../report/figure.rst",
            category="Figures",
            labels={"figure": "{stem}"},
        ),
    log:
        f"{PREFIX}logs/figures/{{stem}}.log",
    benchmark:
        f"{PREFIX}logs/timing/figure/{{stem}}.tsv"
    wildcard_constraints:
        stem=pipeline.studies.figure_stem_pattern(SETUP),
    conda:
        "../envs/emusim.yaml"
    params:
        # the study that draws it (None: the generic figure), what to draw, and with what
        study=lambda wc: pipeline.studies.figure_spec(SETUP, wc.stem, "study"),
        kind=lambda wc: pipeline.studies.figure_spec(SETUP, wc.stem, "kind"),
        spec=lambda wc: pipeline.studies.figure_spec(SETUP, wc.stem, "params"),
        caption=lambda wc: pipeline.studies.figure_spec(SETUP, wc.stem, "caption"),
    script:
        "../scripts/figure.py"


rule scenario_table:
    input:
        stats=f"{RESULTS}/stats/{{scenario}}.csv",
    output:
        multiext(f"{TABLES}/{{scenario}}", ".csv", ".tex", ".html"),
    log:
        f"{PREFIX}logs/tables/{{scenario}}.log",
    benchmark:
        f"{PREFIX}logs/timing/scenario_table/{{scenario}}.tsv"
    conda:
        "../envs/emusim.yaml"
    params:
        scenario=lambda wc: SCENARIOS[wc.scenario],
    script:
        "../scripts/scenario_table.py"


rule summary_table:
    input:
        f"{RESULTS}/compare/summary.csv",
    output:
        multiext(f"{TABLES}/summary", ".csv", ".tex", ".html"),
    log:
        f"{PREFIX}logs/tables/summary.log",
    benchmark:
        f"{PREFIX}logs/timing/summary_table.tsv"
    conda:
        "../envs/emusim.yaml"
    script:
        "../scripts/summary_table.py"


rule profile_table:
    input:
        "config/tcp_profiles.yaml",
    output:
        multiext(f"{TABLES}/tcp_profiles", ".csv", ".tex", ".html"),
    log:
        f"{PREFIX}logs/tables/tcp_profiles.log",
    benchmark:
        f"{PREFIX}logs/timing/profile_table.tsv"
    conda:
        "../envs/emusim.yaml"
    script:
        "../scripts/profile_table.py"


rule delay_table:
    input:
        f"{RESULTS}/delay/one_way_delay.json",
    output:
        multiext(f"{TABLES}/delay_fit", ".csv", ".tex", ".html"),
    log:
        f"{PREFIX}logs/tables/delay_fit.log",
    benchmark:
        f"{PREFIX}logs/timing/delay_table.tsv"
    conda:
        "../envs/emusim.yaml"
    script:
        "../scripts/delay_table.py"
