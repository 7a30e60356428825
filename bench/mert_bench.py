"""MERT's line search, compiled against Python, on a pool shaped like a real tuning run.

    python bench/mert_bench.py [--sentences 1170] [--candidates 250] [--features 14] [--repeat 3] [--seed 1]

The pool is random (fixed seed): feature values rounded to two decimals, so that slopes repeat as
they do along coordinate axes, and integer BLEU statistics. Prints seconds per line search (best of
--repeat) of each engine and their ratio, and checks that both find the same step and BLEU. The
defaults are the size of the es-en dev fold's pool after four MERT iterations.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cad.tune.mert import Candidate, Pool, line_search


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sentences", type=int, default=1170)
    ap.add_argument("--candidates", type=int, default=250, help="candidates per sentence")
    ap.add_argument("--features", type=int, default=14)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    nbest = []
    for _ in range(a.sentences):
        f = rng.normal(size=(a.candidates, a.features)).round(2)
        s = rng.integers(1, 20, size=(a.candidates, 10)).astype(float)
        nbest.append([Candidate(list(f[i]), tuple(s[i])) for i in range(a.candidates)])
    pool = Pool(nbest)
    w = list(rng.normal(size=a.features))
    d = [0.0] * a.features
    d[0] = 1.0
    times, results = {}, {}
    for native in (False, True):
        best = float("inf")
        for _ in range(a.repeat):
            t = time.perf_counter()
            results[native] = line_search(pool, w, d, native=native)
            best = min(best, time.perf_counter() - t)
        times[native] = best
    print(f"pool: {a.sentences} sentences x {a.candidates} candidates x {a.features} features")
    print(f"python line search:   {times[False]:.4f} s")
    print(f"compiled line search: {times[True]:.4f} s ({times[False] / times[True]:.1f}x)")
    print(f"same step and BLEU: {results[False] == results[True]}")


if __name__ == "__main__":
    main()
