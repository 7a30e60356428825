"""Feature helpers that both languages' rankers use (coref.english.features, coref.spanish.features):
distances in buckets, and the dependency path between two tokens of a spaCy parse."""

from __future__ import annotations


def bucket(n: int) -> str:
    """A count or distance as one of a few ranges, so that rare large values share a weight."""
    if n <= 3:
        return str(n)
    if n <= 6:
        return "4-6"
    if n <= 12:
        return "7-12"
    if n <= 25:
        return "13-25"
    return "26+"


def dependency_path(doc, a: int, b: int, longest: int = 4) -> str:
    """Dependency labels from token a up to the lowest common ancestor and down to token b
    (`nsubj^ROOT_vdobj`-like; `far` beyond `longest` steps)."""
    def up(i: int) -> list[int]:
        chain = [i]
        while doc[chain[-1]].head.i != chain[-1] and len(chain) < 40:
            chain.append(doc[chain[-1]].head.i)
        return chain

    ua, ub = up(a), up(b)
    common = next((x for x in ua if x in set(ub)), None)
    if common is None:
        return "none"
    left = [doc[x].dep_ for x in ua[:ua.index(common)]]
    right = [doc[x].dep_ for x in ub[:ub.index(common)]]
    if len(left) + len(right) > longest:
        return "far"
    return "^".join(left) + "_v" + "v".join(reversed(right))
