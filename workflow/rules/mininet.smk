# The Mininet backend: one batch per scenario and TCP profile (emusim.backends.mininet), on this host
# when its kernel has what the scenario needs, else in virtme-ng VMs (the batch split into
# config mininet.design.SCALE.shards, one VM each); then collect, and gather every batch's
# fidelity self-check into a table and a figure.


rule dropper_module:
    input:
        "kernel-dropper/dropper.c",
        "kernel-dropper/dropper_decision.h",
        "kernel-dropper/Kbuild",
    output:
        DROPPER_MODULE,
    log:
        f"{PREFIX}logs/kernel-dropper/build.log",
    benchmark:
        f"{PREFIX}logs/timing/dropper_module.tsv"
    conda:
        "../envs/emusim.yaml"
    # Built against Debian's linux-headers-amd64 (tools/setup vm), for the kernel the VM boots.
    params:
        release=lambda wc: pipeline.mininet.vm_kernel_release(),
    shell:
        "make -C kernel-dropper module KRELEASE={params.release} > {log:q} 2>&1"


rule blast_tools:
    input:
        "emu/blast/tcpblast.c",
        "emu/blast/udpblast.c",
        "emu/blast/blast-common.h",
        "emu/blast/Makefile",
    output:
        BLAST_TOOLS,
    log:
        f"{PREFIX}logs/emu/blast.log",
    benchmark:
        f"{PREFIX}logs/timing/blast_tools.tsv"
    conda:
        "../envs/emusim.yaml"
    shell:
        "make -C emu/blast > {log:q} 2>&1"


rule mininet_shard:
    input:
        unpack(mininet_batch_inputs),
    output:
        f"{RESULTS}/mininet/{{scenario}}/{{profile}}/shards/{{shard}}-of-{{shards}}.json",
    log:
        f"{PREFIX}logs/mininet/{{scenario}}/{{profile}}/shard-{{shard}}-of-{{shards}}.log",
    benchmark:
        f"{PREFIX}logs/timing/mininet_shard/{{scenario}}/{{profile}}/{{shard}}-of-{{shards}}.tsv"
    wildcard_constraints:
        shard=r"\d+",
        shards=r"\d+",
    conda:
        "../envs/emusim.yaml"
    # In dilated time a VM's results do not depend on the host's load: shards run side by side,
    # one VM per core (-j). A batch in real time waits for the host-wide lock instead
    # (emusim.backends.mininet.batch.REALTIME_LOCK), so two never measure at once.
    resources:
        runtime=mininet_shard_runtime_min,
    params:
        args=mininet_batch_args,
        place=pipeline.mininet.place(SETUP),
        # RESULTS, from the output: RESULTS/mininet/SCENARIO/PROFILE/shards/I-of-N.json
        results=lambda wc, output: pipeline.mininet.results_dir_of_shard(output),
        scale=SCALE,
    shell:
        "python -m emusim.backends.mininet batch --scenario {input.scenario:q} --scale {params.scale}"
        " --profile {wildcards.profile} {params.args} --results-dir {params.results:q}"
        " --place {params.place} --shard {wildcards.shard}/{wildcards.shards} 2> {log:q}"


# The shards' records joined: every run file and every session with its self-check.
rule mininet_batch:
    input:
        mininet_shard_paths,
    output:
        f"{RESULTS}/mininet/{{scenario}}/{{profile}}/batch.json",
    log:
        f"{PREFIX}logs/mininet/{{scenario}}/{{profile}}.log",
    benchmark:
        f"{PREFIX}logs/timing/mininet_batch/{{scenario}}/{{profile}}.tsv"
    conda:
        "../envs/emusim.yaml"
    shell:
        "python -m emusim.backends.mininet merge --output {output:q} {input:q} 2> {log:q}"


rule mininet_collect:
    input:
        batches=lambda wc: pipeline.mininet.batch_paths(SETUP, wc.scenario),
    output:
        f"{RESULTS}/mininet/{{scenario}}.csv",
    log:
        f"{PREFIX}logs/mininet/{{scenario}}.log",
    benchmark:
        f"{PREFIX}logs/timing/mininet_collect/{{scenario}}.tsv"
    conda:
        "../envs/emusim.yaml"
    params:
        scenario=lambda wc: SCENARIOS[wc.scenario],
    script:
        "../scripts/collect_batches.py"


rule mininet_selfcheck:
    input:
        pipeline.mininet.all_batch_paths(SETUP),
    output:
        csv=f"{RESULTS}/mininet/selfcheck.csv",
        tables=multiext(f"{TABLES}/mininet_selfcheck", ".csv", ".tex", ".html"),
        figure=f"{FIGURES}/fig_mininet_selfcheck.pdf",
        png=report(
            f"{FIGURES}/fig_mininet_selfcheck.png",
            caption="../report/mininet_selfcheck.rst",
            category="Figures",
            labels={"figure": "fig_mininet_selfcheck"},
        ),
    log:
        f"{PREFIX}logs/mininet/selfcheck.log",
    benchmark:
        f"{PREFIX}logs/timing/mininet_selfcheck.tsv"
    conda:
        "../envs/emusim.yaml"
    script:
        "../scripts/mininet_selfcheck.py"


# The emulation's traced runs (docs/mininet.md, "Tracing the emulated TCP"): repetition 1 of
# each traced point (config `traces`), run again in a batch of its own with the sender's TCP
# traced by the guest kernel's tracepoints and kprobes, into the CSV of ns-3's trace; one VM
# per scenario and profile, so a rule each (their outputs are known only per scenario): the
# rule of mininet_trace.smk, included once per batch.
pipeline.mininet.include_trace_batches(
    workflow,
    SETUP,
    str(Path(workflow.basedir, "workflow", "rules", "mininet_trace.smk")),
)


rule mininet_trace_summary:
    input:
        lambda wc: pipeline.mininet.trace_paths(SETUP),
    output:
        f"{RESULTS}/traces/mininet/summary.csv",
    log:
        f"{PREFIX}logs/traces/mininet/summary.log",
    benchmark:
        f"{PREFIX}logs/timing/mininet_trace_summary.tsv"
    conda:
        "../envs/emusim.yaml"
    params:
        backend="mininet",
    script:
        "../scripts/trace_summary.py"
