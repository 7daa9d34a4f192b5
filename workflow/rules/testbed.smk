# The hardware backend on a real testbed (hardware.source: testbed; docs/testbed.md): the
# preflight of the hosts and the report's Tables 1.1-1.4 from its facts, one batch per
# scenario over SSH (emusim.backends.testbed), and the tidy table of its runs.


# Only with a testbed: otherwise rule hardware_reference (reference.smk) makes the tables.
if pipeline.hardware.testbed_ran(SETUP):

    rule testbed_preflight:
        input:
            inventory=TESTBED_INVENTORY,
        output:
            f"{TESTBED_DIR}/preflight.json",
        log:
            f"{PREFIX}logs/hardware/testbed/preflight.log",
        benchmark:
            f"{PREFIX}logs/timing/testbed_preflight.tsv"
        conda:
            "../envs/emusim.yaml"
        params:
            dropper=pipeline.hardware.testbed_dropper_option(SETUP),
        shell:
            "python -m emusim.backends.testbed preflight --inventory {input.inventory:q}"
            " --out {output:q} {params.dropper} 2> {log:q}"

    rule testbed_tables:
        input:
            f"{TESTBED_DIR}/preflight.json",
        output:
            pipeline.hardware.testbed_table_paths(SETUP),
        log:
            f"{PREFIX}logs/hardware/testbed/tables.log",
        benchmark:
            f"{PREFIX}logs/timing/testbed_tables.tsv"
        conda:
            "../envs/emusim.yaml"
        params:
            outdir=lambda wc, output: pipeline.paper.output_dir(output),
        shell:
            "python -m emusim.backends.testbed tables --preflight {input:q}"
            " --out-dir {params.outdir:q} 2> {log:q}"

    rule testbed_batch:
        input:
            scenario="scenarios/{scenario}.yaml",
            inventory=TESTBED_INVENTORY,
            preflight=f"{TESTBED_DIR}/preflight.json",
        output:
            f"{RESULTS}/hardware/{{scenario}}/{HARDWARE_PROFILE}/batch.json",
        log:
            f"{PREFIX}logs/hardware/{{scenario}}/batch.log",
        benchmark:
            f"{PREFIX}logs/timing/testbed_batch/{{scenario}}.tsv"
        conda:
            "../envs/emusim.yaml"
        # The testbed measures in real time: two batches at once would disturb each other.
        resources:
            testbed=1,
        params:
            # RESULTS, from the output: RESULTS/hardware/SCENARIO/PROFILE/batch.json
            results=lambda wc, output: pipeline.hardware.results_dir_of_batch(output),
            scale=SCALE,
        shell:
            "python -m emusim.backends.testbed batch --inventory {input.inventory:q}"
            " --scenario {input.scenario:q} --scale {params.scale}"
            " --results-dir {params.results:q} 2> {log:q}"

    rule testbed_collect:
        input:
            batch=f"{RESULTS}/hardware/{{scenario}}/{HARDWARE_PROFILE}/batch.json",
        output:
            f"{RESULTS}/hardware/{{scenario}}.csv",
        log:
            f"{PREFIX}logs/hardware/{{scenario}}.log",
        benchmark:
            f"{PREFIX}logs/timing/testbed_collect/{{scenario}}.tsv"
        conda:
            "../envs/emusim.yaml"
        params:
            scenario=lambda wc: REFERENCE_SCENARIOS[wc.scenario],
        script:
            "../scripts/testbed_collect.py"
