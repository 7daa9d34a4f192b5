# The report's figures and every table, from the statistics and comparisons.


rule figure:
    input:
        unpack(_figure_inputs),
    output:
        pdf=f"{FIGURES}/{{stem}}.pdf",
        # The HTML report (snakemake --report) shows the PNG, with the stem's caption.
        png=report(
            f"{FIGURES}/{{stem}}.png",
            caption="../report/figure.rst",
            category="Figures",
            labels={"figure": "{stem}"},
        ),
    log:
        f"{PREFIX}logs/figures/{{stem}}.log",
    wildcard_constraints:
        stem="|".join(FIGURE_STEMS),
    conda:
        "../envs/emusim.yaml"
    params:
        every_n=lambda wc: regular_every_n("regular-1in6"),
        # a lossy-link figure: (kind, scenario), and the variants in the registry's order
        lossy=lambda wc: LOSSY_FIGURES.get(wc.stem),
        variants=lambda wc: (
            list(tcp_variants.registry()) if wc.stem in LOSSY_FIGURES else []
        ),
        # a scenario no study presents: its name and sweep axes (emusim.plots_scenario)
        scenario=lambda wc: SCENARIO_FIGURES.get(wc.stem),
        axes=lambda wc: (
            SCENARIOS[SCENARIO_FIGURES[wc.stem]].axes
            if wc.stem in SCENARIO_FIGURES
            else []
        ),
    script:
        "../scripts/figure.py"


rule scenario_table:
    input:
        stats=f"{RESULTS}/stats/{{scenario}}.csv",
    output:
        multiext(f"{TABLES}/{{scenario}}", ".csv", ".tex", ".html"),
    log:
        f"{PREFIX}logs/tables/{{scenario}}.log",
    conda:
        "../envs/emusim.yaml"
    params:
        scenario=lambda wc: SCENARIOS[wc.scenario],
    script:
        "../scripts/scenario_table.py"


rule variant_table:
    input:
        compare=f"{RESULTS}/compare/{{scenario}}-ns3-vs-mininet.csv",
    output:
        multiext(f"{TABLES}/{{scenario}}-variants", ".csv", ".tex", ".html"),
    log:
        f"{PREFIX}logs/tables/{{scenario}}-variants.log",
    conda:
        "../envs/emusim.yaml"
    params:
        variants=lambda wc: list(tcp_variants.registry()),
    script:
        "../scripts/variant_table.py"


rule summary_table:
    input:
        f"{RESULTS}/compare/summary.csv",
    output:
        multiext(f"{TABLES}/summary", ".csv", ".tex", ".html"),
    log:
        f"{PREFIX}logs/tables/summary.log",
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
    conda:
        "../envs/emusim.yaml"
    script:
        "../scripts/delay_table.py"
