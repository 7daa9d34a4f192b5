"""Finding plug-ins by name: the one discovery loop of the study and workload registries.

A registry is a package whose modules (or sub-packages) each define one object under an agreed
name (``STUDY``, ``WORKLOAD``). `discover` imports them all, in name order, and refuses one
whose object is missing or of the wrong type, naming its file; each registry then checks its
own naming rule and orders what it found.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import TypeVar

T = TypeVar("T")


def discover(
    package: str,
    search_path: Iterable[str],
    attribute: str,
    kind: type[T],
    error: type[Exception],
    how: str,
    packages_only: bool = False,
) -> list[tuple[ModuleType, T]]:
    """(module, its ``attribute``) of every module of ``package`` found on ``search_path``
    (sub-packages only, with ``packages_only``), in name order. A module whose ``attribute``
    is not a ``kind`` raises ``error`` with its file and ``how`` (what it should define)."""
    found = []
    for info in sorted(pkgutil.iter_modules(search_path), key=lambda i: i.name):
        if packages_only and not info.ispkg:
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        obj = getattr(module, attribute, None)
        if not isinstance(obj, kind):
            raise error(f"{Path(module.__file__)}: {how}")
        found.append((module, obj))
    return found
