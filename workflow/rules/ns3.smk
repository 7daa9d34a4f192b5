# The ns-3 backend: build the programs, run each repetition of each point, collect.


rule ns3_build:
    input:
        "sim/ns3/CMakeLists.txt",
        glob("sim/ns3/model/*"),
        glob("sim/ns3/programs/*"),
        glob("sim/ns3/test/*"),
    output:
        NS3_BINARY,
        "build/ns3/emusim-ns3-tests",
    log:
        "logs/ns3_build.log",
    shell:
        "python -m emusim.ns3build > {log} 2>&1"


def _ns3_delay_input(wildcards):
    measured = SCENARIOS[wildcards.scenario].settings["topology"]["delay"] == "measured"
    return [f"{RESULTS}/delay/one_way_delay.json"] if measured else []


def _measured_delay_us():
    path = f"{RESULTS}/delay/one_way_delay.json"
    with open(path) as f:
        return json.load(f)["one_way_delay_us"]


def _ns3_run(wildcards):
    """Command and identity of one ns-3 run (computed when the job is scheduled)."""
    s = SCENARIOS[wildcards.scenario]
    point = s.point(wildcards.point)
    profile = tcp_profiles.get(wildcards.profile)
    measured = _measured_delay_us() if _ns3_delay_input(wildcards) else None
    delay_us = ns3mod.one_way_delay_us(s, measured)
    rep = int(wildcards.rep)
    cmd = ns3mod.command(NS3_BINARY, s, point, profile, rep, delay_us)
    meta = {
        "scenario": s.name,
        "backend": "ns3",
        "profile": profile.name,
        "point": point.id,
        "params": point.values,
        "repetition": rep,
        "seed": ns3mod.rng_seed(s.name, point.id),
        "provenance": {
            "git_revision": GIT_REVISION,
            "scale": SCALE,
            "one_way_delay_us": delay_us,
            "command": cmd,
            "dropper_impl": "ns3::DropperQueueDisc",
        },
    }
    return {"cmd": cmd, "meta": json.dumps(meta, sort_keys=True)}


rule ns3_run:
    input:
        NS3_BINARY,
        _ns3_delay_input,
        scenario="scenarios/{scenario}.yaml",
        profiles="config/tcp_profiles.yaml",
    output:
        f"{RESULTS}/ns3/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.json",
    log:
        f"{PREFIX}logs/ns3/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.log",
    benchmark:
        f"{PREFIX}benchmarks/ns3/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.tsv"
    params:
        run=_ns3_run,
    shell:
        "python -m emusim.runjson --meta {params.run[meta]:q} --out {output:q}"
        " -- {params.run[cmd]:q} 2> {log:q}"


rule ns3_collect:
    input:
        runs=lambda wc: ns3_run_paths(wc.scenario),
    output:
        f"{RESULTS}/ns3/{{scenario}}.csv",
    log:
        f"{PREFIX}logs/ns3/{{scenario}}.log",
    params:
        scenario=lambda wc: SCENARIOS[wc.scenario],
    script:
        "../scripts/collect_runs.py"
