# Statistics per point, comparison with the hardware, and the summary of the comparisons.


rule stats:
    input:
        backend_tables,
    output:
        f"{RESULTS}/stats/{{scenario}}.csv",
    log:
        f"{PREFIX}logs/stats/{{scenario}}.log",
    conda:
        "../envs/emusim.yaml"
    params:
        scenario=lambda wc: SCENARIOS[wc.scenario],
    script:
        "../scripts/stats.py"


rule compare:
    input:
        f"{RESULTS}/stats/{{scenario}}.csv",
    output:
        f"{RESULTS}/compare/{{scenario}}.csv",
    log:
        f"{PREFIX}logs/compare/{{scenario}}.log",
    conda:
        "../envs/emusim.yaml"
    params:
        metrics=lambda wc: compare_metrics(wc.scenario),
    script:
        "../scripts/compare.py"


rule summary:
    input:
        expand(f"{RESULTS}/compare/{{scenario}}.csv", scenario=compared_scenarios()),
    output:
        f"{RESULTS}/compare/summary.csv",
    log:
        f"{PREFIX}logs/compare/summary.log",
    conda:
        "../envs/emusim.yaml"
    script:
        "../scripts/summary.py"
