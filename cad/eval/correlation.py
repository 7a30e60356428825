"""Pearson and Spearman correlation between system-level metric scores and human scores (seed 000 §3.3)."""

from __future__ import annotations

import math
import os
from typing import Sequence

from cad.errors import CadError
from cad.textio import read_lines


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    if len(x) != len(y) or len(x) < 2:
        raise ValueError("need two equally long series of at least two values")
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = math.sqrt(sum((a - mx) ** 2 for a in x))
    syy = math.sqrt(sum((b - my) ** 2 for b in y))
    return sxy / (sxx * syy) if sxx and syy else math.nan


def ranks(x: Sequence[float]) -> list[float]:
    """Ranks from 1, ties sharing their average rank."""
    order = sorted(range(len(x)), key=lambda i: x[i])
    out = [0.0] * len(x)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and x[order[j + 1]] == x[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    return pearson(ranks(x), ranks(y))


def correlations_from_tsv(path: str | os.PathLike, human: str = "human") -> dict[str, dict[str, float]]:
    """TSV with a header `system<TAB>metric...<TAB>human`; one row per system."""
    rows = [line.split("\t") for line in read_lines(path) if line.strip()]
    if not rows:
        raise CadError("empty file", str(path))
    header = rows[0]
    if human not in header:
        raise CadError(f"no column named {human!r} in the header", str(path), 1)
    cols: dict[str, list[float]] = {h: [] for h in header[1:]}
    for lineno, row in enumerate(rows[1:], 2):
        if len(row) != len(header):
            raise CadError(f"{len(row)} columns where the header has {len(header)}", str(path), lineno)
        for h, v in zip(header[1:], row[1:]):
            try:
                cols[h].append(float(v))
            except ValueError:
                raise CadError(f"non-numeric value {v!r} in column {h}", str(path), lineno) from None
    if len(rows) < 3:
        raise CadError("need at least two systems", str(path))
    target = cols.pop(human)
    return {m: {"pearson": pearson(v, target), "spearman": spearman(v, target)} for m, v in cols.items()}
