"""The statuses a run can end with (its JSON's `status`, docs/results-schema.md), in one place.

- ``ok``: the run did what the point asked.
- ``timeout``: the scenario's cap ended a TCP transfer; its numbers are lower bounds.
- ``aborted``: TCP gave up (DataRetries retransmissions of one segment); left out of the
  statistics.
- ``other-algorithm``: the connection ran another congestion control than its variant's (Linux
  falls back from an algorithm whose needs the connection does not meet, e.g. dctcp without
  ECN becomes dctcp-reno); its numbers are not the variant's, so they are left out of the
  statistics, and the run's JSON says why.
"""

OK = "ok"
TIMEOUT = "timeout"
ABORTED = "aborted"
OTHER_ALGORITHM = "other-algorithm"

ALL = (OK, TIMEOUT, ABORTED, OTHER_ALGORITHM)
"""Every status, as the run schema's enum lists them."""

LEFT_OUT = frozenset({ABORTED, OTHER_ALGORITHM})
"""Statuses whose runs the statistics leave out."""

NOT_OK = (OTHER_ALGORITHM, ABORTED, TIMEOUT)
"""Statuses a comparison row reports, the most serious first."""
