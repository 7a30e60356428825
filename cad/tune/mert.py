"""Minimum error rate training (Och 2003) on BLEU: n-best pools, exact line search, restarts.

For a direction d from weights w, every candidate's model score is a line a + γ·b in γ; the
upper envelope of each sentence's lines says which candidate wins on which interval of γ, and
sweeping the merged interval boundaries gives corpus BLEU as a step function of γ, maximized
exactly. Directions are the coordinate axes and optionally random ones (Cer et al. 2008); the
search starts from the current weights, from earlier iterations' weights and from random points
(Moses's mert: --random-restarts, --historic-bests), all drawn from a fixed seed.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np

NEG_INF = -math.inf
N_STATS = 10


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


class Pool:
    """Each sentence's candidates as a feature matrix and a BLEU-statistics matrix."""

    def __init__(self, nbest: Sequence[Sequence[Candidate]]):
        self.features = [np.array([c.features for c in cands], dtype=float) for cands in nbest]
        self.stats = [np.array([c.stats for c in cands], dtype=float) for cands in nbest]
        # the same, concatenated, for the compiled line search
        self.offsets = np.cumsum([0] + [len(c) for c in nbest], dtype=np.int64)
        self.all_features = np.vstack(self.features) if self.features else np.zeros((0, 0))
        self.all_stats = np.vstack(self.stats) if self.stats else np.zeros((0, N_STATS))

    @classmethod
    def of(cls, nbest) -> "Pool":
        return nbest if isinstance(nbest, Pool) else cls(nbest)

    def bleu_at(self, w: Sequence[float]) -> float:
        wv = np.asarray(w, dtype=float)
        total = np.zeros(N_STATS)
        for f, s in zip(self.features, self.stats):
            total += s[int(np.argmax(f @ wv))]
        return bleu(total)


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


def _sentence_envelope(a: np.ndarray, b: np.ndarray) -> list[tuple[float, int]]:
    # only the highest intercept of each slope can be on the envelope: drop the rest before the
    # Python loop (n-best lists repeat slopes a lot along coordinate axes)
    order = np.lexsort((a, b))
    bs = b[order]
    last = np.ones(len(order), dtype=bool)
    last[:-1] = bs[1:] != bs[:-1]
    keep = order[last]
    return _envelope(list(zip(b[keep].tolist(), a[keep].tolist(), keep.tolist())))


def _native():
    try:
        from cad.tune import _mert
    except ImportError:         # not built: the Python line search (same results, slower)
        return None
    return _mert


def line_search(nbest, w: Sequence[float], d: Sequence[float], native: bool | None = None) -> tuple[float, float]:
    """Best step γ along d and the BLEU it reaches; `native` (default: when built) runs the
    compiled search, which gives the same step and BLEU."""
    pool = Pool.of(nbest)
    wv, dv = np.asarray(w, dtype=float), np.asarray(d, dtype=float)
    # both searches read the same model scores, computed once over the whole pool
    a_all, b_all = pool.all_features @ wv, pool.all_features @ dv
    mod = _native() if native is not False else None
    if native and mod is None:
        raise RuntimeError("the compiled line search (cad.tune._mert) is not built")
    if mod is not None:
        return mod.line_search(a_all, b_all, pool.all_stats, pool.offsets)
    total = np.zeros(N_STATS)
    gammas: list[float] = []
    deltas: list[np.ndarray] = []
    for k, s in enumerate(pool.stats):
        lo, hi = pool.offsets[k], pool.offsets[k + 1]
        env = _sentence_envelope(a_all[lo:hi], b_all[lo:hi])
        total += s[env[0][1]]
        for (g, j), (_, prev) in zip(env[1:], env[:-1]):
            gammas.append(g)
            deltas.append(s[j] - s[prev])
    order = sorted(range(len(gammas)), key=gammas.__getitem__)
    best_gamma, best_bleu = 0.0, -1.0
    cur = total.tolist()
    prev_g = NEG_INF
    i = 0
    while True:
        nxt = gammas[order[i]] if i < len(order) else math.inf
        # a point inside the interval (prev_g, nxt)
        if prev_g == NEG_INF and nxt == math.inf:
            point = 0.0
        elif prev_g == NEG_INF:
            point = nxt - 1.0
        elif nxt == math.inf:
            point = prev_g + 1.0
        else:
            point = (prev_g + nxt) / 2
        b = bleu(cur)
        # on ties, the interval closest to the current weights
        if b > best_bleu + 1e-12 or (abs(b - best_bleu) <= 1e-12 and abs(point) < abs(best_gamma)):
            best_bleu, best_gamma = b, point
        if i >= len(order):
            break
        g = gammas[order[i]]
        while i < len(order) and gammas[order[i]] == g:
            delta = deltas[order[i]]
            for k in range(N_STATS):
                cur[k] += delta[k]
            i += 1
        prev_g = g
    return best_gamma, best_bleu


def corpus_bleu_at(nbest, w: Sequence[float]) -> float:
    return Pool.of(nbest).bleu_at(w)


def _ascend(pool: Pool, w: list[float], dirs: list[list[float]], max_rounds: int) -> tuple[list[float], float]:
    current = pool.bleu_at(w)
    for _ in range(max_rounds):
        improved = False
        for d in dirs:
            gamma, b = line_search(pool, w, d)
            if b > current + 1e-9:
                w = [x + gamma * y for x, y in zip(w, d)]
                current = b
                improved = True
        if not improved:
            break
    return w, current


def optimize(nbest, w: Sequence[float], fixed: set[int] = frozenset(), random_dirs: int = 0,
             seed: int = 1, max_rounds: int = 20, restarts: int = 0,
             starts: Sequence[Sequence[float]] = ()) -> tuple[list[float], float]:
    """Line searches along the axes (and `random_dirs` random directions) until BLEU stops
    improving, from `w`, from each of `starts` and from `restarts` random points whose free
    weights are uniform in [0, 1] (Moses's default range); the best end point, its free weights
    L1-normalized. Weights in `fixed` keep their value throughout."""
    pool = Pool.of(nbest)
    rng = random.Random(seed)
    dim = len(w)
    dirs = [[1.0 if k == j else 0.0 for k in range(dim)] for j in range(dim) if j not in fixed]
    for _ in range(random_dirs):
        dirs.append([0.0 if k in fixed else rng.uniform(-1, 1) for k in range(dim)])
    points = [list(w)] + [list(s) for s in starts]
    for _ in range(restarts):
        points.append([w[k] if k in fixed else rng.uniform(0, 1) for k in range(dim)])
    best_w, best = list(w), -1.0
    for p in points:
        end, score = _ascend(pool, p, dirs, max_rounds)
        if score > best + 1e-12:
            best_w, best = end, score
    # fixed weights keep their value; the others are L1-normalized as Moses's mert does
    norm = sum(abs(x) for k, x in enumerate(best_w) if k not in fixed) or 1.0
    return [x if k in fixed else x / norm for k, x in enumerate(best_w)], best
