"""Cost per tree pair of the tree kernels (cad/eval/rank/kernels.py) on sentence-sized trees.

    python bench/tree_kernel_bench.py [--trees 150] [--words 25-30] [--reference-pairs 5] [--seed 1]

The trees are shaped like seed 002's shallow parses (S → chunk → POS → word, 25–30 words), built
at random with a fixed seed from a Zipf-distributed vocabulary so that words and tags recur as in
text. Prints, in microseconds per pair: the native STK and PTK over a --trees × --trees Gram matrix
(raw and normalized) and over aligned pairs (paired), the Python references on a few pairs for
comparison, and the cost of encoding a tree. Best of --repeat runs; about 5 s with the defaults.
"""

from __future__ import annotations

import argparse
import random
import time
from itertools import accumulate
from typing import Callable

from cad.eval.rank import kernels as K
from cad.eval.rank.tree import Tree

# chunk label → the POS tags its words draw from
CHUNKS = {
    "NP": ["DT", "JJ", "NN", "NNS", "NNP", "PRP", "CD"],
    "VP": ["VB", "VBD", "VBZ", "VBP", "MD", "RB"],
    "PP": ["IN", "TO"],
    "ADJP": ["JJ", "RB"],
    "ADVP": ["RB"],
    "O": [",", ".", "CC"],
}
CHUNK_WEIGHTS = [0.4, 0.25, 0.15, 0.06, 0.06, 0.08]


def zipf(size: int) -> tuple[list[str], list[float]]:
    """Words w0, w1, ... with cumulative weights ∝ 1/rank: a few frequent words, many rare ones."""
    return [f"w{i}" for i in range(size)], list(accumulate(1 / r for r in range(1, size + 1)))


def sentence_tree(rng: random.Random, words: int, vocab: tuple[list[str], list[float]]) -> Tree:
    chunks: list[Tree] = []
    left = words
    while left > 0:
        label = rng.choices(list(CHUNKS), CHUNK_WEIGHTS)[0]
        size = min(left, 1 if label in ("PP", "O") else rng.randint(1, 4))
        tags = [rng.choice(CHUNKS[label]) for _ in range(size)]
        chunks.append(Tree(label, [Tree(t, [Tree(w)]) for t, w in zip(tags, rng.choices(*vocab, k=size))]))
        left -= size
    return Tree("S", chunks)


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def words_range(text: str) -> tuple[int, int]:
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trees", type=int, default=150, help="trees in the Gram matrix (default %(default)s)")
    ap.add_argument("--words", type=words_range, default=(25, 30), help="words per sentence, LO-HI (default 25-30)")
    ap.add_argument("--vocabulary", type=int, default=2000, help="distinct words (default %(default)s)")
    ap.add_argument("--reference-pairs", type=int, default=5, help="pairs timed in pure Python (default %(default)s)")
    ap.add_argument("--lam", type=float, default=0.4)
    ap.add_argument("--mu", type=float, default=0.4)
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs (default %(default)s)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    vocab = zipf(a.vocabulary)
    trees = [sentence_tree(rng, rng.randint(*a.words), vocab) for _ in range(a.trees)]
    nodes = sum(len(list(t.nodes())) for t in trees) / len(trees)
    print(f"{a.trees} trees, {a.words[0]}-{a.words[1]} words, {nodes:.0f} nodes on average; "
          f"lambda {a.lam}, mu {a.mu}")

    voc = K.Vocabulary()
    secs = best_of(a.repeat, lambda: [K.encode(t, K.Vocabulary()) for t in trees])
    print(f"encode: {secs / len(trees) * 1e6:.1f} us per tree")
    enc = [K.encode(t, voc) for t in trees]
    n = len(enc)
    shifted = enc[1:] + enc[:1]

    print("kernel\tgram us/pair\tgram normalized us/pair\tpaired us/pair\tPython reference us/pair\tspeed-up")
    for kind in K.KINDS:
        gram = best_of(a.repeat, lambda: K.gram(enc, enc, kind, a.lam, a.mu)) / (n * n)
        gram_n = best_of(a.repeat, lambda: K.gram(enc, enc, kind, a.lam, a.mu, True)) / (n * n)
        paired = best_of(a.repeat, lambda: K.paired(enc, shifted, kind, a.lam, a.mu)) / n
        m = min(a.reference_pairs, n)
        ref = best_of(1, lambda: [K.reference(trees[i], trees[(i + 1) % n], kind, a.lam, a.mu)
                                  for i in range(m)]) / max(m, 1)
        print(f"{kind}\t{gram * 1e6:.2f}\t{gram_n * 1e6:.2f}\t{paired * 1e6:.2f}\t{ref * 1e6:.0f}\t"
              f"{ref / gram:.0f}x")


if __name__ == "__main__":
    main()
