# Statistics per point, comparison with the hardware, and the summary of the comparisons.


rule stats:
    input:
        backend_tables,
    output:
        f"{RESULTS}/stats/{{scenario}}.csv",
    log:
        f"{PREFIX}logs/stats/{{scenario}}.log",
    benchmark:
        f"{PREFIX}logs/timing/stats/{{scenario}}.tsv"
    conda:
        "../envs/emusim.yaml"
    params:
        scenario=lambda wc: SCENARIOS[wc.scenario],
    script:
        "../scripts/stats.py"


rule compare:
    input:
        stats=f"{RESULTS}/stats/{{scenario}}.csv",
        # The emulation's self-check flags its rows (emusim.backends.mininet.selfcheck).
        batches=lambda wc: pipeline.mininet.batches_if_run(SETUP, wc.scenario),
    output:
        f"{RESULTS}/compare/{{scenario}}.csv",
    log:
        f"{PREFIX}logs/compare/{{scenario}}.log",
    benchmark:
        f"{PREFIX}logs/timing/compare/{{scenario}}.tsv"
    conda:
        "../envs/emusim.yaml"
    params:
        metrics=lambda wc: pipeline.analysis.compare_metrics(SETUP, wc.scenario),
    script:
        "../scripts/compare.py"


rule summary:
    input:
        expand(
            f"{RESULTS}/compare/{{scenario}}.csv",
            scenario=pipeline.analysis.compared_scenarios(SETUP),
        ),
    output:
        f"{RESULTS}/compare/summary.csv",
    log:
        f"{PREFIX}logs/compare/summary.log",
    benchmark:
        f"{PREFIX}logs/timing/summary.tsv"
    conda:
        "../envs/emusim.yaml"
    script:
        "../scripts/summary.py"


rule compare_backends:
    input:
        stats=f"{RESULTS}/stats/{{scenario}}.csv",
        runs=backend_tables,
        # The emulation's self-check flags its rows (emusim.backends.mininet.selfcheck).
        batches=lambda wc: pipeline.mininet.batches_if_run(SETUP, wc.scenario),
    output:
        f"{RESULTS}/compare/{{scenario}}-ns3-vs-mininet.csv",
    log:
        f"{PREFIX}logs/compare/{{scenario}}-ns3-vs-mininet.log",
    benchmark:
        f"{PREFIX}logs/timing/compare_backends/{{scenario}}.tsv"
    conda:
        "../envs/emusim.yaml"
    params:
        scenario=lambda wc: SCENARIOS[wc.scenario],
        metrics=lambda wc: pipeline.analysis.backend_compare_metrics(SETUP, wc.scenario),
        # cells a backend skips: a TCP variant it has no implementation of
        skipped=lambda wc: pipeline.analysis.skipped_cells(SETUP, wc.scenario),
    script:
        "../scripts/compare_backends.py"
