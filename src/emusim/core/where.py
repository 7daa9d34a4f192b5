"""Points chosen by their axis values: a scenario's `more_runs` and `traces.points`, the
emulation's design (`mininet.design.SCALE.points`), and the `--where AXIS=V` options of a batch
and of `archive renew`."""

from __future__ import annotations


def values_match(values: dict, where: dict) -> bool:
    """Whether axis ``values`` (a point's, a run's ``params``) have, for every axis named in
    ``where``, the value given or one of a list given: equal as text or as numbers ("0.05"
    and 0.05; a name is no number)."""

    def same(value, want) -> bool:
        number = _as_float(value)
        return str(value) == str(want) or (number is not None and number == _as_float(want))

    return all(
        any(
            same(values.get(axis), w) for w in (want if isinstance(want, (list, tuple)) else [want])
        )
        for axis, want in where.items()
    )


def parse_where(items: list[str] | None) -> dict | None:
    """Command-line ``--where AXIS=V1,V2`` options as {axis: [values]} (`values_match`);
    ValueError names a malformed one."""
    if not items:
        return None
    where = {}
    for item in items:
        axis, sep, values = item.partition("=")
        if not sep or not axis or not values:
            raise ValueError(f"--where {item!r}: expected AXIS=VALUE[,VALUE...]")
        where[axis] = values.split(",")
    return where


def _as_float(value) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
