# The hardware backend from the 2001 measurements, and the delay fit of the ping sweep.


# With a testbed attached, rule testbed_collect (testbed.smk) makes this table instead.
if pipeline.hardware.reference_ran(SETUP):

    rule hardware_reference:
        input:
            "data/reference/README.md",
            scenario="scenarios/{scenario}.yaml",
        output:
            f"{RESULTS}/hardware/{{scenario}}.csv",
        log:
            f"{PREFIX}logs/hardware/{{scenario}}.log",
        benchmark:
            f"{PREFIX}logs/timing/hardware_reference/{{scenario}}.tsv"
        conda:
            "../envs/emusim.yaml"
        params:
            scenario=lambda wc: REFERENCE_SCENARIOS[wc.scenario],
        script:
            "../scripts/hardware_reference.py"


rule delay_fit:
    input:
        f"{RESULTS}/hardware/{DELAY_SCENARIO}.csv",
    output:
        f"{RESULTS}/delay/one_way_delay.json",
    log:
        f"{PREFIX}logs/delay_fit.log",
    benchmark:
        f"{PREFIX}logs/timing/delay_fit.tsv"
    conda:
        "../envs/emusim.yaml"
    params:
        method=pipeline.setup.delay_method(SETUP),
    script:
        "../scripts/delay_fit.py"
