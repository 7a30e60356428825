"""Symmetrization heuristics of Koehn et al. (2003), as Moses documents grow-diag-final(-and).

Points are (source, target) pairs. The loops follow Koehn's pseudo-code: target words outer,
source words inner, neighbours in the order below, points added immediately.
"""

from __future__ import annotations

from typing import Iterable

NEIGHBOURS = ((-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))


def _grow(alignment: set, union: set, n_src: int, n_tgt: int, neighbours=NEIGHBOURS) -> None:
    src_aligned = {i for i, _ in alignment}
    tgt_aligned = {j for _, j in alignment}
    added = True
    while added:
        added = False
        for e in range(n_tgt):
            for f in range(n_src):
                if (f, e) not in alignment:
                    continue
                for df, de in neighbours:
                    nf, ne = f + df, e + de
                    if (nf, ne) in union and (nf not in src_aligned or ne not in tgt_aligned):
                        alignment.add((nf, ne))
                        src_aligned.add(nf)
                        tgt_aligned.add(ne)
                        added = True


def _final(alignment: set, direction: set, n_src: int, n_tgt: int, both: bool) -> None:
    src_aligned = {i for i, _ in alignment}
    tgt_aligned = {j for _, j in alignment}
    for e in range(n_tgt):
        for f in range(n_src):
            if (f, e) not in direction or (f, e) in alignment:
                continue
            ok = (f not in src_aligned and e not in tgt_aligned) if both else (
                f not in src_aligned or e not in tgt_aligned)
            if ok:
                alignment.add((f, e))
                src_aligned.add(f)
                tgt_aligned.add(e)


def symmetrize(forward: Iterable[tuple[int, int]], reverse: Iterable[tuple[int, int]],
               n_src: int, n_tgt: int, method: str = "grow-diag-final-and") -> set[tuple[int, int]]:
    """Combine two directional alignments (both given as source-target points)."""
    fwd, rev = set(forward), set(reverse)
    union = fwd | rev
    if method == "intersect":
        return fwd & rev
    if method == "union":
        return union
    if method == "srctotgt":
        return fwd
    if method == "tgttosrc":
        return rev
    if method not in ("grow", "grow-diag", "grow-diag-final", "grow-diag-final-and"):
        raise ValueError(f"unknown symmetrization method {method!r}")
    alignment = fwd & rev
    # "grow" uses only the four horizontal and vertical neighbours
    _grow(alignment, union, n_src, n_tgt, NEIGHBOURS[:4] if method == "grow" else NEIGHBOURS)
    if method.startswith("grow-diag-final"):
        both = method.endswith("-and")
        _final(alignment, fwd, n_src, n_tgt, both)
        _final(alignment, rev, n_src, n_tgt, both)
    return alignment
