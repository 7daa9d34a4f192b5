# The ns-3 backend: build the programs, run each repetition of each point, collect.


rule ns3_build:
    input:
        "sim/ns3/CMakeLists.txt",
        glob("sim/ns3/helper/*"),
        glob("sim/ns3/linux/**", recursive=True),
        glob("sim/ns3/model/*"),
        glob("sim/ns3/programs/*"),
        glob("sim/ns3/test/*"),
    output:
        NS3_PROGRAMS,
    log:
        "logs/ns3_build.log",
    benchmark:
        f"{PREFIX}logs/timing/ns3_build.tsv"
    conda:
        "../envs/emusim.yaml"
    shell:
        "python -m emusim.backends.ns3.build > {log} 2>&1"


rule ns3_run:
    input:
        lambda wc: pipeline.ns3.program(SETUP, wc.scenario),
        _ns3_delay_input,
        scenario="scenarios/{scenario}.yaml",
        profiles="config/tcp_profiles.yaml",
    output:
        f"{RESULTS}/ns3/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.json",
    log:
        f"{PREFIX}logs/ns3/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.log",
    benchmark:
        f"{PREFIX}logs/timing/ns3/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.tsv"
    conda:
        "../envs/emusim.yaml"
    resources:
        # a cluster job's time limit: hours for a paper-scale multi-flow run (emusim.pipeline.ns3)
        runtime=lambda wc: pipeline.ns3.runtime_min(SETUP, wc.scenario),
    params:
        run=_ns3_run,
    shell:
        "python -m emusim.infra.runjson --meta {params.run[meta]:q} --out {output:q}"
        " -- {params.run[cmd]:q} 2> {log:q}"


# A run the archive holds, made by the very command ns3_run would run, is written from there
# (docs/archive.md); every other run is simulated. No program is needed to restore one.
ruleorder: ns3_restore > ns3_run


rule ns3_restore:
    input:
        _ns3_archived,
    output:
        f"{RESULTS}/ns3/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.json",
    log:
        f"{PREFIX}logs/ns3/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.log",
    conda:
        "../envs/emusim.yaml"
    shell:
        "python -m emusim.infra.archive restore {input:q} {output:q} 2> {log:q}"


rule ns3_collect:
    input:
        runs=lambda wc: pipeline.ns3.run_paths(SETUP, wc.scenario),
    output:
        f"{RESULTS}/ns3/{{scenario}}.csv",
    log:
        f"{PREFIX}logs/ns3/{{scenario}}.log",
    benchmark:
        f"{PREFIX}logs/timing/ns3_collect/{{scenario}}.tsv"
    conda:
        "../envs/emusim.yaml"
    params:
        scenario=lambda wc: SCENARIOS[wc.scenario],
        # points of a TCP variant ns-3 lacks: not run, said in the log
        skipped=lambda wc: pipeline.setup.variant_skips(SETUP, wc.scenario, "ns3"),
    script:
        "../scripts/collect_runs.py"


rule ns3_trace:
    input:
        lambda wc: pipeline.ns3.program(SETUP, wc.scenario),
        _ns3_delay_input,
        scenario="scenarios/{scenario}.yaml",
        profiles="config/tcp_profiles.yaml",
    output:
        trace=f"{RESULTS}/traces/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.csv.gz",
        run=f"{RESULTS}/traces/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.json",
    log:
        f"{PREFIX}logs/traces/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.log",
    benchmark:
        f"{PREFIX}logs/timing/ns3_trace/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.tsv"
    conda:
        "../envs/emusim.yaml"
    params:
        run=_ns3_run,
        tmp=lambda wc, output: pipeline.ns3.trace_tmp(output.trace),
    shell:
        "{params.run[cmd]:q} --traceFile={params.tmp:q} --output={output.run:q} 2> {log:q}"
        # -n: no file name or time in the gzip header, so a trace made again is the same bytes
        " && gzip -n -c {params.tmp:q} > {output.trace:q} && rm -f {params.tmp:q}"


rule trace_summary:
    input:
        lambda wc: pipeline.ns3.trace_paths(SETUP),
    output:
        f"{RESULTS}/traces/summary.csv",
    log:
        f"{PREFIX}logs/traces/summary.log",
    benchmark:
        f"{PREFIX}logs/timing/trace_summary.tsv"
    conda:
        "../envs/emusim.yaml"
    script:
        "../scripts/trace_summary.py"
