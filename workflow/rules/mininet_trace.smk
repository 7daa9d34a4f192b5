# One traced emulation batch (emusim.pipeline.mininet.TraceBatch): included by mininet.smk as a
# Snakemake module per batch, its rule named after the batch (mininet_trace_SCENARIO_PROFILE).

batch = config["trace_batch"]


rule trace:
    input:
        unpack(batch.inputs),
    output:
        batch.outputs,
    log:
        batch.log,
    benchmark:
        batch.benchmark
    conda:
        "../envs/emusim.yaml"
    params:
        args=batch.args,
        place=batch.place,
        profile=batch.profile,
        # RESULTS/traces, from the output: RESULTS/traces/mininet/SCENARIO/PROFILE/batch.json
        results=lambda wc, output: batch.results_dir(output),
        scale=batch.scale,
    shell:
        "python -m emusim.backends.mininet batch --scenario {input.scenario:q}"
        " --scale {params.scale} --profile {params.profile} {params.args}"
        " --results-dir {params.results:q} --place {params.place} 2> {log:q}"
