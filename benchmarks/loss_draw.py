"""How much of a lossy-link cell's gap, or of a kept cell's move when made again, is the loss each
run drew: the link's loss is a Bernoulli draw per packet, so three runs of 1 GB at 1 % drop a
fraction of their packets that differs by about 0.012 points (sqrt(p(1 - p) / n), n ≈ 700 000)
from run to run, and a loss-based TCP's goodput moves with it.

    .venv/bin/python benchmarks/loss_draw.py VARIANT LOSS [--delay-ms 10] [--before REV ...]
    .venv/bin/python benchmarks/loss_draw.py --all [--delay-ms 10]

Groups: ns-3's kept runs of the cell, the emulation's, and for each `--before REV` the
emulation's runs as data/archive held them at that revision (`git show`). Every run records
the packets the impaired link carried forward and dropped (`link_packets_forward`,
`link_dropped_forward`), so its drawn loss p is read, not assumed. One line is fitted to all
runs, ln goodput = e ln p + c_group (a common elasticity e, one intercept a group), by least
squares; per group this prints the runs' mean goodput and mean p, the raw gap against ns-3,
(mean − ns-3's) / mean as the study's rel_diff, and the gap at equal drawn loss in the same
sense, 1 − exp(c_ns3 − c_group), with its standard error from the fit. A gap that the adjusted
column removes was the draw; one that stays is the code's or the emulator's. `--all` prints the
emulation's two gaps for every cell both backends keep, and their medians. Nothing runs: it reads
kept results only, in a second.
"""

from __future__ import annotations

import argparse
import json
import subprocess

import numpy as np

from emusim.core.paths import REPO_ROOT
from emusim.infra.archive import ARCHIVE_DIR

PROFILE = "linux-6.1"


def cell_dir(backend: str, variant: str, loss: str, delay_ms: str) -> str:
    point = f"delay_ms={delay_ms}+loss={loss}+variant={variant}"
    return f"{ARCHIVE_DIR}/paper/{backend}/lossy-link/{PROFILE}/{point}"


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


def cell(variant: str, loss: str, delay_ms: str, before: list[str]) -> list[dict]:
    """Per group of the cell's runs (ns-3's first): its mean goodput and drawn loss, its raw gap
    against ns-3 and its gap at equal drawn loss, with the fit's elasticity."""
    sources = [("ns3", "ns3", None), ("mininet", "mininet", None)]
    sources += [(f"mininet@{rev}", "mininet", rev) for rev in before]
    runs, labels = [], []
    for label, backend, revision in sources:
        found = group(label, cell_dir(backend, variant, loss, delay_ms), revision)
        if not found:
            raise SystemExit(f"{label}: no kept run of {variant} at loss {loss}")
        runs += found
        labels.append(label)
    coef, cov = fit(runs, labels)
    ns3_mean = np.mean([g for lab, _, g in runs if lab == "ns3"])
    rows = []
    for k, label in enumerate(labels):
        goodputs = [g for lab, _, g in runs if lab == label]
        d = coef[1 + k] - coef[1]
        rows.append(
            {
                "group": label,
                "runs": len(goodputs),
                "goodput_kBps": np.mean(goodputs) / 1e3,
                "drawn_loss_pct": 100 * np.mean([p for lab, p, _ in runs if lab == label]),
                "raw_gap": (np.mean(goodputs) - ns3_mean) / np.mean(goodputs),
                "gap_at_equal_loss": -np.expm1(-d),
                "se": np.sqrt(cov[1 + k, 1 + k] + cov[1, 1] - 2 * cov[1, 1 + k]),
                "elasticity": coef[0],
                "elasticity_se": np.sqrt(cov[0, 0]),
            }
        )
    return rows


def kept_cells(delay_ms: str) -> list[tuple[str, str]]:
    """(variant, loss) of every cell at that delay that both backends keep."""
    found = []
    for path in sorted((REPO_ROOT / cell_dir("mininet", "x", "x", delay_ms)).parent.iterdir()):
        axes = dict(axis.split("=", 1) for axis in path.name.split("+") if "=" in axis)
        if axes.get("delay_ms") != delay_ms or "variant" not in axes:
            continue
        if (REPO_ROOT / cell_dir("ns3", axes["variant"], axes["loss"], delay_ms)).is_dir():
            found.append((axes["variant"], axes["loss"]))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variant", nargs="?", help="omitted with --all")
    parser.add_argument("loss", nargs="?", help="the point's loss as in its directory (0.01)")
    parser.add_argument("--delay-ms", default="10")
    parser.add_argument("--before", action="append", default=[], metavar="REV")
    parser.add_argument("--all", action="store_true", help="every cell both backends keep")
    args = parser.parse_args()
    if args.all:
        print("variant\tloss\telasticity\traw_gap\tgap_at_equal_loss\tse")
        raw, equal = [], []
        for variant, loss in kept_cells(args.delay_ms):
            emulated = cell(variant, loss, args.delay_ms, [])[1]
            raw.append(abs(emulated["raw_gap"]))
            equal.append(abs(emulated["gap_at_equal_loss"]))
            print(
                f"{variant}\t{loss}\t{emulated['elasticity']:.3f}\t{emulated['raw_gap']:+.4f}\t"
                f"{emulated['gap_at_equal_loss']:+.4f}\t{emulated['se']:.4f}"
            )
        print(f"{len(raw)} cells: median |raw_gap| {np.median(raw):.4f}, ", end="")
        print(f"median |gap_at_equal_loss| {np.median(equal):.4f}")
        return
    if args.variant is None or args.loss is None:
        parser.error("give VARIANT and LOSS, or --all")
    rows = cell(args.variant, args.loss, args.delay_ms, args.before)
    e, e_se = rows[0]["elasticity"], rows[0]["elasticity_se"]
    print(f"elasticity of goodput to drawn loss e = {e:.3f} ± {e_se:.3f}")
    print("group\truns\tgoodput_kBps\tdrawn_loss_pct\traw_gap\tgap_at_equal_loss\tse")
    for r in rows:
        print(
            f"{r['group']}\t{r['runs']}\t{r['goodput_kBps']:.1f}\t{r['drawn_loss_pct']:.4f}\t"
            f"{r['raw_gap']:+.4f}\t{r['gap_at_equal_loss']:+.4f}\t{r['se']:.4f}"
        )


if __name__ == "__main__":
    main()
