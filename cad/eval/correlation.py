"""Pearson and Spearman correlation between system-level metric scores and human scores (seed 000 §3.3),
and segment-level Kendall's tau over pairwise human judgments (WMT12; seed 002). The judgments'
files are read in cad/eval/rank/judgments.py."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from cad.core.errors import CadError
from cad.core.textio import read_lines


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


@dataclass
class TauResult:
    """Segment-level Kendall's tau over pairwise human judgments."""
    concordant: int
    discordant: int
    metric_ties: int          # counted as discordant (WMT12) or left out ("ties-excluded")
    human_ties: int           # always left out
    variant: str

    @property
    def tau(self) -> float:
        n = self.concordant + self.discordant
        return (self.concordant - self.discordant) / n if n else math.nan


TAU_VARIANTS = ("wmt12", "ties-excluded")


def kendall_tau(judgments: Iterable, score: Callable[[int, str], float], variant: str = "wmt12") -> TauResult:
    """WMT12's tau: over every human non-tie judgment (repeats counted), concordant when the metric
    scores the human winner strictly higher, discordant otherwise; "wmt12" counts a metric tie as
    discordant (so did WMT13, and Meteor's rankconsist.py), "ties-excluded" leaves it out.
    `judgments` hold .segment, .a, .b, .winner ("a", "b", "tie"); score(segment, system)."""
    if variant not in TAU_VARIANTS:
        raise ValueError(f"unknown tau variant {variant!r}")
    c = d = ties = human_ties = 0
    for j in judgments:
        if j.winner == "tie":
            human_ties += 1
            continue
        sa, sb = score(j.segment, j.a), score(j.segment, j.b)
        if sa == sb:
            ties += 1
            if variant == "wmt12":
                d += 1
        elif (sa > sb) == (j.winner == "a"):
            c += 1
        else:
            d += 1
    return TauResult(c, d, ties, human_ties, variant)


def read_scores(path: str | os.PathLike) -> dict[tuple[int, str], float]:
    """`segment<TAB>system<TAB>score` lines."""
    out: dict[tuple[int, str], float] = {}
    for lineno, line in enumerate(read_lines(path), 1):
        f = line.split("\t")
        if len(f) != 3:
            raise CadError(f"{len(f)} fields, expected segment<TAB>system<TAB>score", str(path), lineno)
        try:
            key, value = (int(f[0]), f[1]), float(f[2])
        except ValueError:
            raise CadError(f"segment {f[0]!r} or score {f[2]!r} is not a number", str(path), lineno) from None
        if key in out:
            raise CadError(f"a second score for {f[1]} on segment {f[0]}", str(path), lineno)
        out[key] = value
    return out
