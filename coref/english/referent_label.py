"""The referent a pronoun's distribution over referent types names (pleonastic, event, or an entity
type), apart from the type model in coref/english/referent.py: the CM's reading in the decoder needs
only this, and decoding loads no numpy (whose OpenBLAS threads competed with the search)."""

from __future__ import annotations


# a referring pronoun is called an event when the clause's share of its referring mass reaches
# this (chosen on held-out GUM folds for the coarse labels' macro-F; docs/results.md, Source-side coreference)
EVENT_SHARE = 0.25


def best_label(dist: dict[str, float], event_share: float | None = None) -> tuple[str, str | None, float]:
    """(referent, entity type or None, probability): pleonastic when that is the likeliest coarse
    class, else event when the clause's share of the referring mass reaches `event_share`, else np
    with its most likely type."""
    share = EVENT_SHARE if event_share is None else event_share
    mass = {"pleonastic": dist.get("pleonastic", 0.0), "event": dist.get("event", 0.0),
            "np": sum(p for k, p in dist.items() if k.startswith("np:"))}
    if mass["pleonastic"] >= max(mass["np"], mass["event"]):
        return "pleonastic", None, mass["pleonastic"]
    if mass["event"] >= share * (mass["event"] + mass["np"]):
        return "event", None, mass["event"]
    t = max((k for k in dist if k.startswith("np:")), key=lambda k: dist[k])
    return "np", t[3:], mass["np"]
