"""McNemar's test on paired per-pronoun correctness of two systems."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

EXACT_BELOW = 25   # discordant pairs below which the exact binomial test is used


@dataclass
class McNemar:
    b: int          # first system right, second wrong
    c: int          # first wrong, second right
    statistic: float
    p_value: float
    exact: bool


def mcnemar(first: Sequence[bool], second: Sequence[bool], exact: bool | None = None) -> McNemar:
    if len(first) != len(second):
        raise ValueError(f"paired outcomes differ in length: {len(first)} vs {len(second)}")
    b = sum(1 for x, y in zip(first, second) if x and not y)
    c = sum(1 for x, y in zip(first, second) if y and not x)
    n = b + c
    if exact is None:
        exact = n < EXACT_BELOW
    if n == 0:
        return McNemar(b, c, 0.0, 1.0, exact)
    if exact:
        k = min(b, c)
        tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
        return McNemar(b, c, float(k), min(1.0, 2 * tail), True)
    stat = (abs(b - c) - 1) ** 2 / n           # with continuity correction
    return McNemar(b, c, stat, math.erfc(math.sqrt(stat / 2)), False)
