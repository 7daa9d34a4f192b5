"""How much of a lossy-link cell's gap, or of a kept cell's move when made again, is the loss each
run drew: the link's loss is a Bernoulli draw per packet, so three runs of 1 GB at 1 % drop a
fraction of their packets that differs by about 0.012 points (sqrt(p(1 - p) / n), n ≈ 700 000)
from run to run, and a loss-based TCP's goodput moves with it.

    .venv/bin/python benchmarks/loss_draw.py VARIANT LOSS [--delay-ms 10] [--before REV ...]

Groups: ns-3's kept runs of the cell, the emulation's, and for each `--before REV` the
emulation's runs as data/archive held them at that revision (`git show`). Every run records
the packets the impaired link carried forward and dropped (`link_packets_forward`,
`link_dropped_forward`), so its drawn loss p is read, not assumed. One line is fitted to all
runs, ln goodput = e ln p + c_group (a common elasticity e, one intercept a group), by least
squares; per group this prints the runs' mean goodput and mean p, the raw gap against ns-3,
(mean − ns-3's) / ns-3's as docs/variants.md computes it, and the gap at equal drawn loss,
exp(c_group − c_ns3) − 1, with its standard error from the fit. A gap that the adjusted column
removes was the draw; one that stays is the code's or the emulator's. Nothing runs: it reads
kept results only, in a second.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import numpy as np

from emusim.core.paths import REPO_ROOT

PROFILE = "linux-6.1"


def cell_dir(backend: str, variant: str, loss: str, delay_ms: str) -> str:
    point = f"delay_ms={delay_ms}+loss={loss}+variant={variant}"
    return f"data/archive/paper/{backend}/lossy-link/{PROFILE}/{point}"


def kept(path: str, revision: str | None) -> dict | None:
    if revision is None:
        file = REPO_ROOT / path
        return json.loads(file.read_text()) if file.exists() else None
    shown = subprocess.run(
        ["git", "show", f"{revision}:{path}"], cwd=REPO_ROOT, capture_output=True, text=True
    )
    return json.loads(shown.stdout) if shown.returncode == 0 else None


def group(label: str, path: str, revision: str | None) -> list[tuple[str, float, float]]:
    runs = []
    for rep in range(1, 100):
        run = kept(f"{path}/run{rep}.json", revision)
        if run is None:
            break
        m = run["metrics"]
        drawn = m["link_dropped_forward"] / m["link_packets_forward"]
        runs.append((label, drawn, m["goodput_Bps"]))
    return runs


def fit(runs: list[tuple[str, float, float]], labels: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Least squares of ln goodput on ln p with one intercept per group: (coefficients, cov)."""
    ln_p = np.log([p for _, p, _ in runs])
    ln_g = np.log([g for _, _, g in runs])
    design = np.column_stack([ln_p] + [[float(r[0] == lab) for r in runs] for lab in labels])
    coef, *_ = np.linalg.lstsq(design, ln_g, rcond=None)
    dof = len(runs) - design.shape[1]
    if dof < 1:
        raise SystemExit(f"{len(runs)} runs in {len(labels)} groups: too few to fit a slope")
    residual = ln_g - design @ coef
    cov = (residual @ residual / dof) * np.linalg.inv(design.T @ design)
    return coef, cov


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variant")
    parser.add_argument("loss", help="the point's loss, as in its directory name (0.01)")
    parser.add_argument("--delay-ms", default="10")
    parser.add_argument("--before", action="append", default=[], metavar="REV")
    args = parser.parse_args()
    sources = [("ns3", "ns3", None), ("mininet", "mininet", None)]
    sources += [(f"mininet@{rev}", "mininet", rev) for rev in args.before]
    runs, labels = [], []
    for label, backend, revision in sources:
        found = group(label, cell_dir(backend, args.variant, args.loss, args.delay_ms), revision)
        if not found:
            sys.exit(f"{label}: no kept run of {args.variant} at loss {args.loss}")
        runs += found
        labels.append(label)
    coef, cov = fit(runs, labels)
    print(f"elasticity of goodput to drawn loss e = {coef[0]:.3f} ± {np.sqrt(cov[0, 0]):.3f}")
    ns3_mean = np.mean([g for lab, _, g in runs if lab == "ns3"])
    print("group\truns\tgoodput_kBps\tdrawn_loss_pct\traw_gap\tgap_at_equal_loss\tse")
    for k, label in enumerate(labels):
        mine = [(p, g) for lab, p, g in runs if lab == label]
        mean_g = np.mean([g for _, g in mine])
        mean_p = np.mean([p for p, _ in mine])
        d = coef[1 + k] - coef[1]
        se = np.sqrt(cov[1 + k, 1 + k] + cov[1, 1] - 2 * cov[1, 1 + k])
        print(
            f"{label}\t{len(mine)}\t{mean_g / 1e3:.1f}\t{100 * mean_p:.4f}\t"
            f"{(mean_g - ns3_mean) / ns3_mean:+.4f}\t{np.expm1(d):+.4f}\t{se:.4f}"
        )


if __name__ == "__main__":
    main()
