"""The lossy-link study (issue 8, docs/variants.md): bulk TCP over a lossy long link, per TCP
variant, ns-3 against Mininet (there is no hardware for it).

Its scenarios sweep the link's delay, its loss and the TCP variant. Its modules: `figures`
(goodput per variant; ns-3 against Mininet), `variants_table` (the headline cell and the
per-variant table) and `numbers`.
"""

from emusim.studies import Study

AXES = frozenset({"delay_ms", "loss", "variant"})
"""The sweep axes that make a scenario one of the study's."""

STUDY = Study(
    name="lossy_link",
    title="Bulk TCP over a lossy long link, per TCP variant",
    order=20,
    claims=lambda scenario: set(scenario.axes) >= AXES,
)
