# The Mininet backend: one batch per scenario and TCP profile (emusim.mininet), on this host
# when its kernel has what the scenario needs, else in one virtme-ng VM; then collect.


rule mininet_batch:
    input:
        _ns3_delay_input,
        scenario="scenarios/{scenario}.yaml",
        profiles="config/tcp_profiles.yaml",
    output:
        f"{RESULTS}/mininet/{{scenario}}/{{profile}}/batch.json",
    log:
        f"{PREFIX}logs/mininet/{{scenario}}/{{profile}}.log",
    conda:
        "../envs/emusim.yaml"
    # Emulation shares the CPU with everything else: never two batches at once.
    resources:
        emulation=1,
    params:
        delay=lambda wc, input: (
            f"--delay-json {input[0]}" if _ns3_delay_input(wc) else ""
        ),
        place=config.get("mininet", {}).get("place", "auto"),
        results=RESULTS,
        scale=SCALE,
    shell:
        "python -m emusim.mininet batch --scenario {input.scenario:q} --scale {params.scale}"
        " --profile {wildcards.profile} {params.delay} --results-dir {params.results:q}"
        " --place {params.place} 2> {log:q}"


rule mininet_collect:
    input:
        batches=lambda wc: mininet_batch_paths(wc.scenario),
    output:
        f"{RESULTS}/mininet/{{scenario}}.csv",
    log:
        f"{PREFIX}logs/mininet/{{scenario}}.log",
    conda:
        "../envs/emusim.yaml"
    params:
        scenario=lambda wc: SCENARIOS[wc.scenario],
    script:
        "../scripts/collect_batches.py"
