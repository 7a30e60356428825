"""McNemar's test on paired per-pronoun correctness of two systems; a paired bootstrap over segments
for the difference of two metrics' Kendall's tau."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

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


@dataclass
class BootstrapTau:
    """Paired bootstrap over segments of the difference of two metrics' Kendall's tau."""
    delta: float              # tau(first) - tau(second) on the data itself
    low: float                # 2.5th and 97.5th percentiles of the resampled differences
    high: float
    p_value: float            # share of resamples where the difference is <= 0 (one-sided)
    resamples: int


def bootstrap_tau(first, second, resamples: int = 1000, seed: int = 1) -> BootstrapTau:
    """`first`, `second`: per language pair, (concordant, discordant) arrays over the same segments
    (n_pairs × 2 × n_segments). tau per pair = (C - D) / (C + D), summed over the resampled
    segments; the statistic is the mean of the pairs' tau (WMT's "all"). The segments are drawn
    with replacement, the same draw for both metrics and every pair (the pairs share their segments
    and references)."""
    a, b = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    if a.shape != b.shape or a.ndim != 3 or a.shape[1] != 2:
        raise ValueError("expected two arrays of shape (pairs, 2, segments)")

    def tau(x, idx=None):
        s = x.sum(axis=2) if idx is None else x[:, :, idx].sum(axis=3).transpose(2, 0, 1)
        return ((s[..., 0] - s[..., 1]) / (s[..., 0] + s[..., 1])).mean(axis=-1)

    rng = np.random.default_rng(seed)
    n = a.shape[2]
    deltas = []
    for start in range(0, resamples, 100):
        idx = rng.integers(0, n, size=(min(100, resamples - start), n))
        deltas.append(tau(a, idx) - tau(b, idx))
    d = np.concatenate(deltas)
    return BootstrapTau(float(tau(a) - tau(b)), float(np.percentile(d, 2.5)), float(np.percentile(d, 97.5)),
                        float((d <= 0).mean()), resamples)
