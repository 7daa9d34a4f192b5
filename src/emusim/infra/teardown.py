"""Signals during a batch: every backend that builds something (a network, a testbed's
settings) must take it down whatever ends the batch."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP end the batch by an exception, so every finally block (the
    network's teardown) runs; also when SIGINT came in ignored (a background job of a
    non-interactive shell). Restores the handlers afterwards."""

    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    sigs = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    old = {s: signal.signal(s, handler) for s in sigs}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@contextlib.contextmanager
def signals_ignored() -> Iterator[None]:
    """No signal interrupts the teardown."""
    sigs = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    old = {s: signal.signal(s, signal.SIG_IGN) for s in sigs}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
