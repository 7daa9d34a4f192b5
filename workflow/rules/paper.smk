# The paper: its numbers and testbed tables generated from the results of this scale, then
# paper/paper.tex built with latexmk into {PREFIX}paper/build/paper.pdf (`snakemake paper`).


include: "paper_common.smk"


rule paper_numbers:
    input:
        unpack(paper_number_inputs),
    output:
        numbers=f"{PAPER_GENERATED}/numbers.tex",
        paths=f"{PAPER_GENERATED}/paths.tex",
        scenarios=f"{PAPER_GENERATED}/scenarios.tex",
        studies=f"{PAPER_GENERATED}/studies.tex",
    log:
        f"{PREFIX}logs/paper/numbers.log",
    benchmark:
        f"{PREFIX}logs/timing/paper_numbers.tsv"
    conda:
        "../envs/emusim.yaml"
    params:
        # a function: at paper scale the value "paper" would read as a path prefix (lint)
        scale=lambda wc: SCALE,
        backends=BACKENDS,
        scenarios=sc.scenario_names(),
        profiles=pipeline.paper.profiles(),
        # the emulation's design at this scale: repetitions, what it leaves out and why
        emulation_design=pipeline.mininet.design(SETUP),
        repeat_deterministic=pipeline.mininet.repeat_deterministic(SETUP, True),
        # each study's own parameters (its rules file's paper_params), in the paper's order
        studies=lambda wc: pipeline.paper.study_params(SETUP),
        switches=pipeline.paper.switches(SETUP),
        available=lambda wc: pipeline.paper.available(SETUP),
        # scenarios no study presents: the appendix's entries (generic figure and table)
        unclaimed=lambda wc: pipeline.paper.unclaimed(SETUP),
        figures_dir=FIGURES,
        tables_dir=TABLES,
    script:
        "../scripts/paper_numbers.py"


rule paper_tables:
    input:
        # the testbed's own when one ran (its preflight's facts), else the report's
        hosts=pipeline.hardware.testbed_table(SETUP, "hosts"),
        interfaces=pipeline.hardware.testbed_table(SETUP, "interfaces"),
        profiles="config/tcp_profiles.yaml",
    output:
        hosts=f"{PAPER_GENERATED}/testbed_hosts.tex",
        interfaces=f"{PAPER_GENERATED}/testbed_interfaces.tex",
        profiles=f"{PAPER_GENERATED}/tcp_profiles_compared.tex",
    log:
        f"{PREFIX}logs/paper/tables.log",
    benchmark:
        f"{PREFIX}logs/timing/paper_tables.tsv"
    conda:
        "../envs/emusim.yaml"
    script:
        "../scripts/paper_tables.py"


rule paper:
    input:
        tex="paper/paper.tex",
        sections=pipeline.paper.paper_sources(),
        generated=rules.paper_numbers.output,
        testbed=rules.paper_tables.output,
        figures=lambda wc: pipeline.paper.figure_files(SETUP),
        tables=lambda wc: pipeline.paper.table_files(SETUP),
    output:
        report(PAPER_PDF, caption="../report/paper.rst", category="Paper"),
    log:
        f"{PREFIX}logs/paper/latexmk.log",
    benchmark:
        f"{PREFIX}logs/timing/paper.tsv"
    conda:
        "../envs/emusim.yaml"
    params:
        outdir=lambda wc, output: pipeline.paper.output_dir(output),
        # The scale's generated files first, then the shared sources (\input{sections/...}).
        texinputs=[PAPER_GENERATED, "paper"],
    script:
        "../scripts/paper_build.py"
