"""benchmarks/loss_draw.py: the gap at equal drawn loss, against a hand-made cell."""

import importlib.util

import numpy as np
import pytest

from emusim.core.paths import REPO_ROOT


@pytest.fixture(scope="module")
def loss_draw():
    spec = importlib.util.spec_from_file_location(
        "loss_draw", REPO_ROOT / "benchmarks" / "loss_draw.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_gap_that_is_the_draw_goes_and_one_that_is_not_stays(loss_draw):
    # goodput = k p^-1/2 (Mathis et al.), the emulation 2 % above ns-3 at equal loss, but it
    # drew 1.06 % where ns-3 drew 0.99 %: its raw gap is negative, its gap at equal loss +0.02.
    ns3 = [("ns3", p, 700e3 * (p / 0.01) ** -0.5) for p in (0.0098, 0.0099, 0.0100)]
    emu = [("mininet", p, 1.02 * 700e3 * (p / 0.01) ** -0.5) for p in (0.0105, 0.0106, 0.0107)]
    coef, _ = loss_draw.fit(ns3 + emu, ["ns3", "mininet"])
    raw = np.mean([g for *_, g in emu]) / np.mean([g for *_, g in ns3]) - 1
    assert raw < 0
    assert coef[0] == pytest.approx(-0.5)
    assert np.expm1(coef[2] - coef[1]) == pytest.approx(0.02)


def test_too_few_runs_to_fit_a_slope_is_refused(loss_draw):
    with pytest.raises(SystemExit, match="too few"):
        loss_draw.fit([("ns3", 0.01, 7e5), ("mininet", 0.011, 6.9e5)], ["ns3", "mininet"])
