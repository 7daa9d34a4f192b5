"""The 2001 measurements (data/reference/*.csv) and the formulas the report derived from them.

The CSV files hold the raw per-run values exactly as printed; ``published.csv`` holds every
derived value the report prints. The helpers below are the report's own formulas, so that
tests can recompute a printed column from the raw runs and compare.
"""

from collections.abc import Iterable

import numpy as np
import pandas as pd

from emusim.core.constants import ETH_FRAME_REPORT_B
from emusim.core.paths import REFERENCE_DIR

"""data/reference/ of the source tree (the package is installed editable, `pip install -e`)."""

# Columns read as text whatever they look like: "1.2.2" or "4.1" are labels, not numbers,
# a row_key keeps its printed digits ("0.10"), and a sysctl value may be "4096 87380 174760".
_TEXT_COLUMNS = ("source", "table", "notes", "row_key", "hosts", "kernel")
_TEXT_COLUMNS_BY_TABLE = {"tcp_sysctls": ("value",)}


def available() -> list[str]:
    """Names accepted by :func:`load`: the CSV files of :data:`REFERENCE_DIR`, without .csv."""
    return sorted(p.stem for p in REFERENCE_DIR.glob("*.csv"))


def load(name: str) -> pd.DataFrame:
    """Read data/reference/{name}.csv; empty cells stay empty strings (a blank ``notes`` or an
    N/A sysctl), label columns stay text."""
    path = REFERENCE_DIR / f"{name}.csv"
    if not path.is_file():
        raise FileNotFoundError(
            f"{path}: no reference table {name!r}; available: {', '.join(available())}"
        )
    header = pd.read_csv(path, nrows=0).columns
    text = set(_TEXT_COLUMNS) | set(_TEXT_COLUMNS_BY_TABLE.get(name, ()))
    return pd.read_csv(path, dtype={c: str for c in header if c in text}, keep_default_na=False)


def mean_absolute_deviation(values: Iterable[float]) -> float:
    """Σ|tᵢ − avg|/n (spreadsheet AVEDEV): the "Variation" of Table 3.3, and the "Var" of
    Tables 3.1, 3.2 and 4.3 (Tables 4.1 and 4.2's "Var" is the population SD, √(Σ(tᵢ − avg)²/n),
    §4.1; data/reference/README.md)."""
    x = np.asarray(list(values), dtype=float)
    return float(np.mean(np.abs(x - x.mean())))


def report_throughput_Bps(
    writes: float, mean_elapsed_s: float, frame_bytes: int = ETH_FRAME_REPORT_B
) -> float:
    """Throughput as the report computes it: frame_bytes × writes / mean elapsed time.

    The report counts 1526 bytes per frame (IP packet + 26-byte Ethernet wrapper) and one frame
    per write; pass 1538 to include the inter-frame gap.
    """
    return frame_bytes * writes / mean_elapsed_s


def ideal_drops(writes: float, p: float) -> float:
    """The IDEAL column of Table 4.2: writes·p/(1 − p).

    Every segment must eventually get through, so the sender transmits N = writes/(1 − p)
    packets (retransmissions included) and a dropper of rate p discards N·p of them. The
    printed column matches this to the unit, and does not match writes·p.
    """
    if not 0 <= p < 1:
        raise ValueError(f"drop rate p={p!r}: expected 0 <= p < 1")
    return writes * p / (1 - p)
