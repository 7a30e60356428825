"""Tree kernels for seed 002: the Subset Tree Kernel (STK; Collins & Duffy 2001, SVM-light-TK's SST)
and the Partial Tree Kernel (PTK; Moschitti 2006, ECML), computed by the compiled module
cad/eval/rank/_kernels.cpp, plus pure-Python references the tests check it against.

Definitions (K(T1,T2) = Σ over node pairs of Δ(n1,n2)):

- STK: Δ = 0 if the productions differ (label + ordered children labels, a child's leafness
  included); λ if both are pre-terminals; else λ·∏_j (1 + Δ(c_j(n1), c_j(n2))). Leaves (words) are
  no nodes of their own: they only show in their parent's production.
- PTK: Δ = 0 if the labels differ; else μ(λ² + Σ_{p=1}^{min(|c1|,|c2|)} Δ_p(c1, c2)), where Δ_p
  sums, over every pair of increasing child index sequences I, J of length p,
  λ^{gaps(I)+gaps(J)}·∏_k Δ(c1[I_k], c2[J_k]), gaps(I) = I_p − I_1 + 1 − p, the children skipped
  inside the span. That is what the paper's DPS recursion
  Δ_p(s1a, s2b) = Δ(a,b)·Σ_i Σ_r λ^{|s1|−i+|s2|−r}·Δ_{p−1}(s1[1:i], s2[1:r]) computes, and what
  SVM-light-TK (tree_kernel.c, Delta_PT/Delta_SK) and KeLP (PartialTreeKernel) implement: adjacent
  children carry no λ of their own; λ² is the term of the two nodes taken without children, so a
  pair with a leaf in it (leaves are nodes here) gives μλ².

Normalized: K(a,b)/sqrt(K(a,a)·K(b,b)), 0 when a self-kernel is 0 (an STK of a lone leaf).

Trees are encoded once (`encode`) against a shared `Vocabulary`; the kernel functions take encoded
trees or plain `Tree`s (encoded on the fly into the module's default vocabulary, which is the
convenient path; encode once when the same trees are compared many times)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Sequence

import numpy as np

from cad.core.errors import CadError
from cad.eval.rank.tree import Tree

_MISSING: ImportError | None = None
try:
    from cad.eval.rank import _kernels
except ImportError as exc:      # not compiled: every kernel call says how to build it (_native)
    _kernels, _MISSING = None, exc

KINDS = ("stk", "ptk")


@dataclass
class Vocabulary:
    """Label strings and productions to ids; trees compared with each other must share one."""
    labels: dict[str, int] = field(default_factory=dict)
    productions: dict[tuple, int] = field(default_factory=dict)

    def label_id(self, label: str) -> int:
        return self.labels.setdefault(label, len(self.labels))

    def production_id(self, key: tuple) -> int:
        return self.productions.setdefault(key, len(self.productions))


DEFAULT_VOCABULARY = Vocabulary()


@dataclass(frozen=True, eq=False)
class EncodedTree:
    """A tree for the native side: nodes in pre-order (0 is the root), children as CSR
    (child_idx[child_ptr[v]:child_ptr[v+1]]), a production id per internal node (-1 for leaves)."""
    labels: np.ndarray
    child_ptr: np.ndarray
    child_idx: np.ndarray
    productions: np.ndarray
    vocab: Vocabulary
    native: object = field(repr=False)

    def __len__(self) -> int:
        return len(self.labels)


TreeLike = Tree | EncodedTree


def encode(tree: Tree, vocab: Vocabulary | None = None) -> EncodedTree:
    """`tree` as label and production ids of `vocab` (the module's default vocabulary if None)."""
    vocab = DEFAULT_VOCABULARY if vocab is None else vocab
    labels, kids = _preorder(tree, vocab)
    prods = [_production(vocab, labels, v, ks, kids) for v, ks in enumerate(kids)]
    ptr = [0, *accumulate(len(ks) for ks in kids)]
    idx = [k for ks in kids for k in ks]
    arrays = tuple(np.asarray(x, dtype=np.int32) for x in (labels, ptr, idx, prods))
    return EncodedTree(*arrays, vocab=vocab, native=_native().Encoded(*arrays))


def _preorder(tree: Tree, vocab: Vocabulary) -> tuple[list[int], list[list[int]]]:
    """Label ids in pre-order and each node's children; a subtree object under two parents counts twice.
    Iterative, so that no tree is too deep for it."""
    label_id = vocab.label_id
    labels: list[int] = []
    kids: list[list[int]] = []
    stack: list[tuple[Tree, int]] = [(tree, -1)]
    while stack:
        t, parent = stack.pop()
        v = len(labels)
        labels.append(label_id(t.label))
        kids.append([])
        if parent >= 0:
            kids[parent].append(v)      # pre-order visits siblings left to right
        if t.children:
            stack.extend((c, v) for c in reversed(t.children))
    return labels, kids


def _production(vocab: Vocabulary, labels: list[int], v: int, ks: list[int], kids: list[list[int]]) -> int:
    if not ks:
        return -1
    # a leaf child is keyed as ~label, so that equal productions are pre-terminals together
    return vocab.production_id((labels[v], *(labels[k] if kids[k] else ~labels[k] for k in ks)))


def _native():
    if _kernels is None:
        raise CadError("the compiled tree kernels (cad.eval.rank._kernels) are not built: run "
                       "`.venv/bin/python setup.py build_ext --inplace` (or pip install -e .)") from _MISSING
    return _kernels


def _encoded(trees: Sequence[TreeLike]) -> list[EncodedTree]:
    """Every tree encoded against one vocabulary: that of the encoded ones, which must agree
    (the default vocabulary when all are plain Trees)."""
    vocabs = {id(t.vocab): t.vocab for t in trees if isinstance(t, EncodedTree)}
    if len(vocabs) > 1:
        raise CadError("trees encoded with different vocabularies cannot be compared")
    shared = next(iter(vocabs.values()), None)
    done: dict[int, EncodedTree] = {}     # a Tree given twice (rows and cols alike) is encoded once
    out = []
    for t in trees:
        if isinstance(t, EncodedTree):
            out.append(t)
        elif isinstance(t, Tree):
            if id(t) not in done:
                done[id(t)] = encode(t, shared)
            out.append(done[id(t)])
        else:
            raise CadError(f"a tree kernel needs Tree or EncodedTree objects, not {type(t).__name__}")
    return out


def _check(kind: str, lam: float, mu: float) -> None:
    if kind not in KINDS:
        raise CadError(f"unknown tree kernel {kind!r} (one of {', '.join(KINDS)})")
    if not (math.isfinite(lam) and lam >= 0 and math.isfinite(mu) and mu >= 0):
        raise CadError(f"tree kernel parameters must be finite and >= 0 (lambda {lam}, mu {mu})")


def kernel(a: TreeLike, b: TreeLike, kind: str, lam: float = 0.4, mu: float = 0.4,
           normalize: bool = False) -> float:
    """One kernel value (mu is ignored by STK)."""
    _check(kind, lam, mu)
    ea, eb = _encoded([a, b])
    return float(_native().kernel(ea.native, eb.native, kind, lam, mu, normalize))


def stk(a: TreeLike, b: TreeLike, lam: float = 0.4) -> float:
    return kernel(a, b, "stk", lam)


def ptk(a: TreeLike, b: TreeLike, lam: float = 0.4, mu: float = 0.4) -> float:
    return kernel(a, b, "ptk", lam, mu)


def stk_normalized(a: TreeLike, b: TreeLike, lam: float = 0.4) -> float:
    return kernel(a, b, "stk", lam, normalize=True)


def ptk_normalized(a: TreeLike, b: TreeLike, lam: float = 0.4, mu: float = 0.4) -> float:
    return kernel(a, b, "ptk", lam, mu, normalize=True)


def gram(rows: Sequence[TreeLike], cols: Sequence[TreeLike], kind: str, lam: float = 0.4, mu: float = 0.4,
         normalize: bool = False) -> np.ndarray:
    """len(rows) × len(cols) kernel values, computed natively without the GIL; with `normalize`,
    each distinct tree's self-kernel is computed once."""
    _check(kind, lam, mu)
    trees = _encoded([*rows, *cols])
    r, c = trees[:len(rows)], trees[len(rows):]
    return _native().gram([t.native for t in r], [t.native for t in c], kind, lam, mu, normalize)


def paired(a_list: Sequence[TreeLike], b_list: Sequence[TreeLike], kind: str, lam: float = 0.4,
           mu: float = 0.4, normalize: bool = False) -> np.ndarray:
    """K(a_list[i], b_list[i]) for every i, computed natively without the GIL."""
    if len(a_list) != len(b_list):
        raise CadError(f"paired tree kernels need lists of one length ({len(a_list)} and {len(b_list)})")
    _check(kind, lam, mu)
    trees = _encoded([*a_list, *b_list])
    a, b = trees[:len(a_list)], trees[len(a_list):]
    return _native().paired([t.native for t in a], [t.native for t in b], kind, lam, mu, normalize)


# ---- pure-Python references: the definitions above, written directly on Tree objects --------------

def _all_pairs(a: Tree, b: Tree, delta) -> float:
    return sum(delta(x, z) for x in a.nodes() for z in b.nodes())


def stk_reference(a: Tree, b: Tree, lam: float = 0.4) -> float:
    memo: dict[tuple[int, int], float] = {}

    def production(n: Tree) -> tuple:
        return (n.label,) + tuple((c.label, c.is_leaf()) for c in n.children)

    def delta(x: Tree, z: Tree) -> float:
        if x.is_leaf() or z.is_leaf() or production(x) != production(z):
            return 0.0
        key = (id(x), id(z))
        if key not in memo:
            if x.is_preterminal():
                memo[key] = lam
            else:
                memo[key] = lam * math.prod(1 + delta(cx, cz) for cx, cz in zip(x.children, z.children))
        return memo[key]

    return _all_pairs(a, b, delta)


def ptk_reference(a: Tree, b: Tree, lam: float = 0.4, mu: float = 0.4) -> float:
    """Δ_p by the definition rather than the DPS recursion: F(i,j) sums every common child
    sequence pair starting at children i and j, each next pair (i',j') weighted by the children
    skipped, λ^{(i'−i−1)+(j'−j−1)}."""
    memo: dict[tuple[int, int], float] = {}

    def delta(x: Tree, z: Tree) -> float:
        if x.label != z.label:
            return 0.0
        if x.is_leaf() or z.is_leaf():
            return mu * lam ** 2
        key = (id(x), id(z))
        if key not in memo:
            memo[key] = mu * (lam ** 2 + sum(starting_at(x.children, z.children).values()))
        return memo[key]

    def starting_at(cx: list[Tree], cz: list[Tree]) -> dict[tuple[int, int], float]:
        f: dict[tuple[int, int], float] = {}
        for i in reversed(range(len(cx))):
            for j in reversed(range(len(cz))):
                d = delta(cx[i], cz[j])
                rest = sum(lam ** ((i2 - i - 1) + (j2 - j - 1)) * f[i2, j2]
                           for i2 in range(i + 1, len(cx)) for j2 in range(j + 1, len(cz)))
                f[i, j] = d * (1 + rest)
        return f

    return _all_pairs(a, b, delta)


def reference(a: Tree, b: Tree, kind: str, lam: float = 0.4, mu: float = 0.4, normalize: bool = False) -> float:
    _check(kind, lam, mu)
    k = (lambda x, y: stk_reference(x, y, lam)) if kind == "stk" else (lambda x, y: ptk_reference(x, y, lam, mu))
    if not normalize:
        return k(a, b)
    norm = math.sqrt(k(a, a) * k(b, b))
    return k(a, b) / norm if norm > 0 else 0.0
