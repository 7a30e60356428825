"""The tree kernels of cad/eval/rank/kernels.py (native, cad/eval/rank/_kernels.cpp) against hand-worked values
and against the pure-Python references."""

import math
import random

import numpy as np
import pytest

from cad.core.errors import CadError
from cad.eval.rank import kernels as K
from cad.eval.rank.tree import Tree

pytest.importorskip("cad.eval.rank._kernels", reason="the compiled tree kernels are not built (setup.py build_ext)")

T = Tree.parse
REL = 1e-9


# ---- STK by hand ---------------------------------------------------------------------------------

def test_stk_the_cat_with_itself():
    # t = (NP (DT the) (NN cat)). Nodes with a production: NP -> DT NN, DT -> the, NN -> cat.
    # Δ(DT,DT) = λ (pre-terminals, same production), Δ(NN,NN) = λ,
    # Δ(NP,NP) = λ (1 + Δ(DT,DT)) (1 + Δ(NN,NN)) = λ (1 + λ)²; the cross pairs differ in production.
    # λ = 1:   1 + 1 + 1·2·2 = 6   (the 6 fragments: DT->the, NN->cat, NP->DT NN, with either or both
    #                               pre-terminals expanded)
    # λ = 0.5: 0.5 + 0.5 + 0.5·1.5·1.5 = 2.125
    t = T("(NP (DT the) (NN cat))")
    assert K.stk(t, t, lam=1.0) == pytest.approx(6.0, rel=REL)
    assert K.stk(t, t, lam=0.5) == pytest.approx(2.125, rel=REL)


def test_stk_the_cat_and_a_cat():
    # DT -> the and DT -> a differ, so Δ(DT,DT) = 0; Δ(NN,NN) = λ; Δ(NP,NP) = λ (1 + 0)(1 + λ).
    # λ = 1: 1 + 2 = 3 (NN->cat, NP->DT NN, NP->DT (NN cat)).
    assert K.stk(T("(NP (DT the) (NN cat))"), T("(NP (DT a) (NN cat))"), lam=1.0) == pytest.approx(3.0, rel=REL)


def test_stk_word_beside_a_constituent():
    # (A b (C d)) with itself: Δ(C,C) = λ; the word b is no node, its factor is 1 + 0, so
    # Δ(A,A) = λ (1 + 0)(1 + λ). λ = 1: 1 + 2 = 3.
    t = T("(A b (C d))")
    assert K.stk(t, t, lam=1.0) == pytest.approx(3.0, rel=REL)


# ---- PTK by hand (λ = 0.5, μ = 0.8: μλ² = 0.2 for any pair with a leaf in it) ----------------------

LAM, MU = 0.5, 0.8


def test_ptk_gap_on_one_side():
    # (A b c d) and (A b d). Pairs with equal labels: (A,A), (b,b), (d,d); Δ(b,b) = Δ(d,d) = μλ² = 0.2.
    # Children [b c d] and [b d]:
    #   p = 1: (b,b) + (d,d)                                     = 0.2 + 0.2 = 0.4
    #   p = 2: I = (1,3) skips c (one gap), J = (1,2) none: λ¹·0.2·0.2 = 0.5·0.04 = 0.02
    # Δ(A,A) = μ(λ² + 0.42) = 0.8·0.67 = 0.536;  K = 0.536 + 0.2 + 0.2 = 0.936
    assert K.ptk(T("(A b c d)"), T("(A b d)"), lam=LAM, mu=MU) == pytest.approx(0.936, rel=REL)


def test_ptk_gaps_on_both_sides():
    # (A b x d) and (A b y y d): p = 1: 0.2 + 0.2; p = 2: (b,d) skips x (1) and y y (2): λ³·0.04 = 0.005.
    # Δ(A,A) = 0.8·(0.25 + 0.405) = 0.524;  K = 0.524 + 0.2 + 0.2 = 0.924
    assert K.ptk(T("(A b x d)"), T("(A b y y d)"), lam=LAM, mu=MU) == pytest.approx(0.924, rel=REL)


def test_ptk_nested_without_gap():
    # (S (A x) y) with itself. Δ(x,x) = Δ(y,y) = 0.2; Δ(A,A) = μ(λ² + Δ(x,x)) = 0.8·0.45 = 0.36.
    # Children of S, [A y] twice: p = 1: 0.36 + 0.2 = 0.56; p = 2: adjacent on both sides, λ⁰:
    # 0.36·0.2 = 0.072. Δ(S,S) = 0.8·(0.25 + 0.632) = 0.7056.
    # K = 0.7056 + 0.36 + 0.2 + 0.2 = 1.4656
    t = T("(S (A x) y)")
    assert K.ptk(t, t, lam=LAM, mu=MU) == pytest.approx(1.4656, rel=REL)


def test_ptk_leaf_against_internal_node_with_its_label():
    # (A (b c)) and (A b): Δ(b internal, b leaf) = μλ² (no children on one side) = 0.2;
    # Δ(A,A) = 0.8·(0.25 + 0.2) = 0.36; c matches nothing. K = 0.56
    assert K.ptk(T("(A (b c))"), T("(A b)"), lam=LAM, mu=MU) == pytest.approx(0.56, rel=REL)


# ---- native against the references ---------------------------------------------------------------

def wild_tree(rng: random.Random, depth: int) -> Tree:
    # any shape; a small alphabet, so that labels repeat within and across trees ("A" is also a word)
    if depth == 0 or rng.random() < 0.15:
        return Tree(rng.choice("abcA"))
    return Tree(rng.choice("ABC"), [wild_tree(rng, depth - 1) for _ in range(rng.randint(1, 4))])


def grammar_tree(rng: random.Random, depth: int) -> Tree:
    # mostly pre-terminals under few labels, so that STK productions recur; some words sit beside
    # constituents, and the same words under different pre-terminals
    r = rng.random()
    if depth == 0 or r < 0.08:
        return Tree(rng.choice("abA"))
    if depth == 1 or r < 0.35:
        return Tree(rng.choice("PQ"), [Tree(rng.choice("abA"))])
    return Tree(rng.choice("AB"), [grammar_tree(rng, depth - 1) for _ in range(rng.choice((1, 2, 2, 3, 4)))])


@pytest.fixture(scope="module")
def forest() -> list[Tree]:
    rng = random.Random(20061)
    trees = [make(rng, rng.randint(1, 5)) for _ in range(150) for make in (wild_tree, grammar_tree)]
    trees += [T("x"), T("(A x)"), T("(A (A (A x)))")]
    return trees


def pairs_of(trees: list[Tree]) -> list[tuple[Tree, Tree]]:
    """Neighbours from one generator (trees alternate between them), some from both, some self pairs."""
    n = len(trees)
    return ([(trees[i], trees[(i + 2) % n]) for i in range(n)] + [(trees[i], trees[i + 1]) for i in range(0, n - 1, 5)]
            + [(t, t) for t in trees[:40]])


@pytest.mark.parametrize("kind,lam,mu", [("stk", 0.4, 0.4), ("stk", 1.0, 1.0), ("ptk", 0.4, 0.4),
                                         ("ptk", 0.7, 0.9), ("ptk", 1.0, 1.0)])
def test_native_matches_reference(forest, kind, lam, mu):
    pairs = pairs_of(forest)
    want = [K.reference(a, b, kind, lam, mu) for a, b in pairs]
    got = K.paired([a for a, _ in pairs], [b for _, b in pairs], kind, lam, mu)
    assert sum(w > 0 for w in want[:len(forest)]) > len(forest) // 4     # different trees do share fragments
    for (a, b), w, g in zip(pairs, want, got):
        assert math.isclose(g, w, rel_tol=REL, abs_tol=1e-300), f"{kind} {a} | {b}: {g} != {w}"


@pytest.mark.parametrize("kind", K.KINDS)
def test_native_matches_reference_normalized(forest, kind):
    pairs = pairs_of(forest[:60])
    for a, b in pairs:
        assert math.isclose(K.kernel(a, b, kind, 0.4, 0.4, normalize=True),
                            K.reference(a, b, kind, 0.4, 0.4, normalize=True), rel_tol=REL, abs_tol=1e-12)


# ---- properties ----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", K.KINDS)
def test_symmetric(forest, kind):
    enc = [K.encode(t) for t in forest[:80]]
    g = K.gram(enc, enc, kind, 0.4, 0.4)
    np.testing.assert_allclose(g, g.T, rtol=1e-12, atol=0)


@pytest.mark.parametrize("kind", K.KINDS)
def test_normalized_self_kernel_is_one(forest, kind):
    trees = [t for t in forest if not (kind == "stk" and t.is_leaf())]
    got = K.paired(trees, trees, kind, 0.4, 0.4, normalize=True)
    np.testing.assert_allclose(got, 1.0, rtol=1e-12)


def test_normalized_zero_self_kernel_gives_zero():
    # a lone word has no production, so its STK self-kernel is 0
    assert K.stk_normalized(T("x"), T("(A x)")) == 0.0
    assert K.stk_normalized(T("x"), T("x")) == 0.0


@pytest.mark.parametrize("kind,normalize", [("stk", False), ("ptk", False), ("stk", True), ("ptk", True)])
def test_gram_and_paired_equal_elementwise_calls(forest, kind, normalize):
    vocab = K.Vocabulary()
    rows = [K.encode(t, vocab) for t in forest[:25]]
    cols = [K.encode(t, vocab) for t in forest[25:45]]
    g = K.gram(rows, cols, kind, 0.6, 0.3, normalize)
    assert g.shape == (25, 20) and g.dtype == np.float64
    want = np.array([[K.kernel(r, c, kind, 0.6, 0.3, normalize) for c in cols] for r in rows])
    np.testing.assert_allclose(g, want, rtol=1e-12, atol=0)
    p = K.paired(rows[:20], cols, kind, 0.6, 0.3, normalize)
    np.testing.assert_allclose(p, np.diag(want[:20]), rtol=1e-12, atol=0)


def test_plain_trees_and_encoded_trees_agree(forest):
    vocab = K.Vocabulary()
    a, b = forest[3], forest[4]
    assert K.ptk(K.encode(a, vocab), K.encode(b, vocab)) == pytest.approx(K.ptk(a, b), rel=1e-12)
    assert K.stk(K.encode(a, vocab), b) == pytest.approx(K.stk(a, b), rel=1e-12)


# ---- encoding and errors -------------------------------------------------------------------------

def test_encoding_is_preorder_csr():
    vocab = K.Vocabulary()
    e = K.encode(T("(S (NP (DT the) (NN cat)) (VP (VBZ sleeps)))"), vocab)
    names = {i: s for s, i in vocab.labels.items()}
    assert [names[i] for i in e.labels] == ["S", "NP", "DT", "the", "NN", "cat", "VP", "VBZ", "sleeps"]
    assert list(e.child_ptr) == [0, 2, 4, 5, 5, 6, 6, 7, 8, 8]
    assert list(e.child_idx) == [1, 6, 2, 4, 3, 5, 7, 8]
    assert e.productions[3] == -1 and e.productions[1] >= 0
    # NN -> cat here and NN -> (cat x) elsewhere are different productions
    other = K.encode(T("(NN (cat x))"), vocab)
    assert other.productions[0] != e.productions[4]


def test_vocabularies_must_agree():
    a = K.encode(T("(A x)"), K.Vocabulary())
    b = K.encode(T("(A x)"), K.Vocabulary())
    with pytest.raises(CadError, match="different vocabularies"):
        K.ptk(a, b)


def test_bad_arguments():
    t = T("(A x)")
    with pytest.raises(CadError, match="unknown tree kernel"):
        K.gram([t], [t], "sst")
    with pytest.raises(CadError, match=">= 0"):
        K.ptk(t, t, lam=-1.0)
    with pytest.raises(CadError, match="one length"):
        K.paired([t], [t, t], "ptk")


def test_native_refuses_a_malformed_encoding():
    from cad.eval.rank import _kernels

    i32 = lambda xs: np.asarray(xs, dtype=np.int32)  # noqa: E731
    with pytest.raises(ValueError, match="after its parent"):
        _kernels.Encoded(i32([0, 1]), i32([0, 1, 2]), i32([1, 0]), i32([0, 1]))   # a cycle
    with pytest.raises(ValueError, match="internal"):
        _kernels.Encoded(i32([0, 1]), i32([0, 1, 1]), i32([1]), i32([-1, -1]))    # a parent without production
