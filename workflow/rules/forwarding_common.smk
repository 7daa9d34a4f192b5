# Functions of the router-forwarding study's rules (forwarding.smk) and the hooks common.smk
# and paper_common.smk call: which scenarios are of the kind, what the model runs, the targets.
from emusim import forwarding

FORWARDING_MODEL = forwarding.MODEL_BACKEND


def forwarding_scenarios():
    """Scenarios of the router-forwarding kind (workload udp-flood)."""
    return [n for n in SCENARIOS if forwarding.is_flood(SCENARIOS[n])]


def forwarding_fitted(name):
    """Whether the processing model can be fitted for a scenario: the emulation runs it, and
    ns-3 runs to use it."""
    return "ns3" in BACKENDS and name in mininet_scenarios()


def forwarding_model_runs(name):
    """The ns-3 runs with the processing model of a scenario (deterministic: one per point)."""
    if name not in forwarding_scenarios() or not forwarding_fitted(name):
        return []
    s = SCENARIOS[name]
    return [
        f"{RESULTS}/{FORWARDING_MODEL}/{name}/{profile}/{point.id}/run1.json"
        for profile in s.profiles
        for point in s.points
    ]


def forwarding_model_tables(name):
    """The tidy table of the model's runs, where there are any (backend_tables_of)."""
    if not forwarding_model_runs(name):
        return []
    return [f"{RESULTS}/{FORWARDING_MODEL}/{name}.csv"]


# stem -> (quantity, scenario): the measurement-tool paper's Figures 3, 4 and 5, and the fit
FORWARDING_FIGURES = {
    f"fig_{name.replace('-', '_')}_{kind}": (kind, name)
    for name in forwarding_scenarios()
    for kind in ("mbps", "pps", "loss", "fit")
}


def forwarding_figure_targets():
    """The study's figures (figure_targets); the fit's only where there is a fit."""
    return [
        f"{FIGURES}/{stem}.{ext}"
        for stem, (kind, name) in FORWARDING_FIGURES.items()
        if kind != "fit" or forwarding_fitted(name)
        for ext in ("pdf", "png")
    ]


def forwarding_targets():
    """What the study adds to `all` beyond the generic targets (all_targets)."""
    targets = []
    for name in forwarding_scenarios():
        if forwarding_fitted(name):
            targets += forwarding_model_runs(name)
            targets.append(f"{RESULTS}/forwarding/{name}/model-fit.json")
            targets.append(
                f"{RESULTS}/compare/{name}-{FORWARDING_MODEL}-vs-mininet.csv"
            )
    return targets


def forwarding_paper_inputs():
    """The paper's inputs of the study (paper_number_inputs): the fit and both comparisons."""
    inputs = {}
    for name in forwarding_scenarios():
        if forwarding_fitted(name):
            inputs[f"forwarding_fit_{name}"] = (
                f"{RESULTS}/forwarding/{name}/model-fit.json"
            )
            inputs[f"forwarding_model_{name}"] = (
                f"{RESULTS}/compare/{name}-{FORWARDING_MODEL}-vs-mininet.csv"
            )
        if {"ns3", "mininet"} <= set(BACKENDS) and name in mininet_scenarios():
            inputs[f"forwarding_ns3_{name}"] = (
                f"{RESULTS}/compare/{name}-ns3-vs-mininet.csv"
            )
    return inputs


def _forwarding_model_inputs(wildcards):
    inputs = {
        "program": ns3_program(wildcards.scenario),
        "fit": f"{RESULTS}/forwarding/{wildcards.scenario}/model-fit.json",
        "scenario": f"scenarios/{wildcards.scenario}.yaml",
        "profiles": "config/tcp_profiles.yaml",
    }
    inputs.update({"delay": d for d in _ns3_delay_input(wildcards)})
    return inputs


def _forwarding_model_args(wildcards, input):
    """The fitted delay's file, where the scenario's delay is measured."""
    return f"--delay-json {input.delay}" if "delay" in input.keys() else ""


def _forwarding_figure_inputs(wildcards):
    """A figure's statistics table, and the fit where there is one (drawn in every figure)."""
    name = FORWARDING_FIGURES[wildcards.stem][1]
    inputs = {"stats": f"{RESULTS}/stats/{name}.csv"}
    if forwarding_fitted(name):
        inputs["fit"] = f"{RESULTS}/forwarding/{name}/model-fit.json"
    return inputs
