"""Minimum error rate training (Och 2003) on BLEU: n-best lists, exact line search, iterations.

For a direction d from weights w, every candidate's model score is a line a + γ·b in γ; the
upper envelope of each sentence's lines says which candidate wins on which interval of γ, and
sweeping the merged interval boundaries gives corpus BLEU as a step function of γ, maximized
exactly. Directions are the coordinate axes and a few random ones (fixed seed).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

NEG_INF = -math.inf


def bleu_stats(hyp: Sequence[str], ref: Sequence[str]) -> tuple[int, ...]:
    """(matches_1..4, totals_1..4, hyp length, ref length)."""
    out = []
    totals = []
    for n in range(1, 5):
        h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
        r = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        out.append(sum(min(c, r[g]) for g, c in h.items()))
        totals.append(max(len(hyp) - n + 1, 0))
    return tuple(out + totals + [len(hyp), len(ref)])


def bleu(stats: Sequence[float]) -> float:
    m, t = stats[:4], stats[4:8]
    if any(x == 0 for x in m) or any(x == 0 for x in t):
        return 0.0
    log_p = sum(math.log(a / b) for a, b in zip(m, t)) / 4
    hyp_len, ref_len = stats[8], stats[9]
    bp = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / max(hyp_len, 1))
    return bp * math.exp(log_p)


@dataclass
class Candidate:
    features: list[float]
    stats: tuple[int, ...]


def _envelope(lines: list[tuple[float, float, int]]) -> list[tuple[float, int]]:
    """Upper envelope of lines (slope, intercept, id): [(start γ, id)], from γ = -inf."""
    lines = sorted(lines, key=lambda x: (x[0], x[1]))
    hull: list[tuple[float, float, int, float]] = []   # slope, intercept, id, start
    for b, a, j in lines:
        if hull and hull[-1][0] == b:
            hull.pop()          # same slope: the later (higher intercept) one dominates
        while hull:
            b0, a0, j0, s0 = hull[-1]
            x = (a0 - a) / (b - b0)
            if x <= s0:
                hull.pop()
            else:
                break
        start = NEG_INF if not hull else (hull[-1][1] - a) / (b - hull[-1][0])
        hull.append((b, a, j, start))
    return [(s, j) for _, _, j, s in hull]


def line_search(nbest: list[list[Candidate]], w: list[float], d: list[float]) -> tuple[float, float]:
    """Best step γ along d and the BLEU it reaches."""
    dim = 10
    total = [0.0] * dim
    events: list[tuple[float, int, int, int]] = []     # γ, sentence, old id, new id
    for si, cands in enumerate(nbest):
        lines = [(sum(x * y for x, y in zip(d, c.features)), sum(x * y for x, y in zip(w, c.features)), j)
                 for j, c in enumerate(cands)]
        env = _envelope(lines)
        first = env[0][1]
        for k in range(dim):
            total[k] += cands[first].stats[k]
        for (g, j), (_, prev) in zip(env[1:], env[:-1]):
            events.append((g, si, prev, j))
    events.sort()
    best_gamma, best_bleu = None, -1.0
    cur = list(total)
    prev_g = NEG_INF
    i = 0
    while True:
        nxt = events[i][0] if i < len(events) else math.inf
        # interval (prev_g, nxt): pick a point inside it
        if prev_g == NEG_INF and nxt == math.inf:
            point = 0.0
        elif prev_g == NEG_INF:
            point = nxt - 1.0
        elif nxt == math.inf:
            point = prev_g + 1.0
        else:
            point = (prev_g + nxt) / 2
        b = bleu(cur)
        # prefer the interval closest to the current weights on ties
        if b > best_bleu + 1e-12 or (abs(b - best_bleu) <= 1e-12 and abs(point) < abs(best_gamma)):
            best_bleu, best_gamma = b, point
        if i >= len(events):
            break
        g = events[i][0]
        while i < len(events) and events[i][0] == g:
            _, si, old, new = events[i]
            for k in range(dim):
                cur[k] += nbest[si][new].stats[k] - nbest[si][old].stats[k]
            i += 1
        prev_g = g
    return best_gamma, best_bleu


def corpus_bleu_at(nbest: list[list[Candidate]], w: list[float]) -> float:
    total = [0.0] * 10
    for cands in nbest:
        best = max(cands, key=lambda c: sum(x * y for x, y in zip(w, c.features)))
        for k in range(10):
            total[k] += best.stats[k]
    return bleu(total)


def optimize(nbest: list[list[Candidate]], w: list[float], fixed: set[int] = frozenset(), random_dirs: int = 5,
             seed: int = 1, max_rounds: int = 20) -> tuple[list[float], float]:
    """Coordinate and random-direction line searches until BLEU stops improving."""
    rng = random.Random(seed)
    dim = len(w)
    w = list(w)
    current = corpus_bleu_at(nbest, w)
    for _ in range(max_rounds):
        improved = False
        dirs = [[1.0 if k == j else 0.0 for k in range(dim)] for j in range(dim) if j not in fixed]
        for _ in range(random_dirs):
            dirs.append([0.0 if k in fixed else rng.uniform(-1, 1) for k in range(dim)])
        for d in dirs:
            gamma, b = line_search(nbest, w, d)
            if b > current + 1e-9:
                w = [x + gamma * y for x, y in zip(w, d)]
                current = b
                improved = True
        if not improved:
            break
    norm = sum(abs(x) for x in w) or 1.0
    return [x / norm for x in w], current
