# The report's figures and every table, from the statistics and comparisons.


def _figure_inputs(wildcards):
    needs = FIGURE_STEMS[wildcards.stem]
    inputs = {f"stats_{n}": f"{RESULTS}/stats/{n}.csv" for n in needs}
    if wildcards.stem == "fig3_1_rtt_vs_size":
        inputs["delay"] = f"{RESULTS}/delay/one_way_delay.json"
    if wildcards.stem == "fig5_2_rel_diff":
        inputs["compare"] = f"{RESULTS}/compare/random-drop.csv"
    if wildcards.stem == "fig4_4_heavy_tail":
        inputs["runs"] = backend_tables_of("regular-1in6")
    return inputs


rule figure:
    input:
        unpack(_figure_inputs),
    output:
        pdf=f"{FIGURES}/{{stem}}.pdf",
        png=f"{FIGURES}/{{stem}}.png",
    log:
        f"{PREFIX}logs/figures/{{stem}}.log",
    wildcard_constraints:
        stem="|".join(FIGURE_STEMS),
    script:
        "../scripts/figure.py"


rule scenario_table:
    input:
        stats=f"{RESULTS}/stats/{{scenario}}.csv",
    output:
        multiext(f"{TABLES}/{{scenario}}", ".csv", ".tex", ".html"),
    log:
        f"{PREFIX}logs/tables/{{scenario}}.log",
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
    script:
        "../scripts/summary_table.py"


rule profile_table:
    input:
        "config/tcp_profiles.yaml",
    output:
        multiext(f"{TABLES}/tcp_profiles", ".csv", ".tex", ".html"),
    log:
        f"{PREFIX}logs/tables/tcp_profiles.log",
    script:
        "../scripts/profile_table.py"


rule delay_table:
    input:
        f"{RESULTS}/delay/one_way_delay.json",
    output:
        multiext(f"{TABLES}/delay_fit", ".csv", ".tex", ".html"),
    log:
        f"{PREFIX}logs/tables/delay_fit.log",
    script:
        "../scripts/delay_table.py"
