import math
import random

import pytest

from cad.errors import CadError
from cad.lm.arpa import read_arpa, write_arpa
from cad.lm.kneser_ney import BOS, EOS, UNK, compute_discounts, estimate
from collections import Counter

CORPUS = [s.split() for s in [
    "le chat dort", "le chien dort", "la souris dort", "le chat mange la souris",
    "la souris mange", "le chien mange le chat", "un chat dort", "la souris dort bien",
    "le chat voit la souris", "le chien voit le chat", "la souris voit le chien",
]]


def test_bigram_model_by_hand():
    # corpus "a b" and "a": bigram model with the fallback discounts (0.5, 1, 1.5)
    m = estimate([["a", "b"], ["a"]], order=2)
    assert m.discounts[1] == (0.5, 1.0, 1.5)
    # unigram continuation counts: a <- {<s>}: 1, b <- {a}: 1, </s> <- {b, a}: 2 ; <unk> 0
    # denominator 4; vocabulary without <s> = {a, b, </s>, <unk>} -> uniform 1/4
    d = m.discounts[0]
    gamma0 = (d[0] * 2 + d[1] * 1) / 4
    assert m.prob[0][("a",)] == pytest.approx((1 - d[0]) / 4 + gamma0 / 4)
    assert m.prob[0][(EOS,)] == pytest.approx((2 - d[1]) / 4 + gamma0 / 4)
    assert m.prob[0][(UNK,)] == pytest.approx(gamma0 / 4)
    # p(b | a): counts a b: 1, a </s>: 1 -> (1 - 0.5)/2 + gamma(a) p(b), gamma(a) = 0.5*2/2
    pb = m.prob[0][("b",)]
    assert m.prob[1][("a", "b")] == pytest.approx(0.5 / 2 + 0.5 * pb)
    assert m.backoff[0][("a",)] == pytest.approx(0.5)


def test_discounts_from_counts_of_counts():
    counts = Counter({("w%d" % i,): c for i, c in enumerate([1] * 10 + [2] * 5 + [3] * 3 + [4] * 2)})
    y = 10 / (10 + 2 * 5)
    assert compute_discounts(counts, 1, False) == pytest.approx((1 - 2 * y * 5 / 10, 2 - 3 * y * 3 / 5, 3 - 4 * y * 2 / 3))
    with pytest.raises(CadError, match="corpus too small"):
        compute_discounts(Counter({("a",): 1}), 1, False)


@pytest.mark.parametrize("order", [1, 2, 3, 5])
def test_distributions_sum_to_one(tmp_path, order):
    m = estimate(CORPUS, order=order)
    write_arpa(m, tmp_path / "lm.arpa")
    m2 = read_arpa(tmp_path / "lm.arpa")
    vocab = [w for w in m.vocabulary() if w != BOS]
    assert UNK in vocab and EOS in vocab
    rng = random.Random(7)
    contexts = [(BOS,), (BOS, "le"), ("inconnu", "mot"), ("la", "souris", "voit", "le")]
    for _ in range(10):
        s = rng.choice(CORPUS)
        k = rng.randrange(len(s) + 1)
        contexts.append(tuple([BOS] + s[:k]))
    for ctx in contexts:
        assert sum(m.p(w, ctx) for w in vocab) == pytest.approx(1.0, abs=1e-9)
        assert sum(m2.p(w, ctx) for w in vocab) == pytest.approx(1.0, abs=1e-6)


def test_unknown_words_get_unk_probability():
    m = estimate(CORPUS, order=3)
    assert m.p("zzz", (BOS, "le")) == pytest.approx(m.p(UNK, (BOS, "le")))
    assert 0 < m.p(UNK, ()) < m.p("le", ())


def test_kenlm_loads_and_agrees(tmp_path):
    kenlm = pytest.importorskip("kenlm")
    m = estimate(CORPUS, order=3)
    write_arpa(m, tmp_path / "lm.arpa")
    km = kenlm.Model(str(tmp_path / "lm.arpa"))
    for sent in (["le", "chat", "dort"], ["la", "souris", "inconnue", "dort"]):
        ours = 0.0
        hist = [BOS]
        for w in sent + [EOS]:
            ours += math.log10(m.p(w, tuple(hist)))
            hist.append(w)
        assert km.score(" ".join(sent)) == pytest.approx(ours, abs=1e-4)
    # as lmplz: <s> is written with log10 probability 0 (not SRILM's -99) and keeps its backoff
    bos = next(l for l in (tmp_path / "lm.arpa").read_text().splitlines() if l.split("\t")[1:2] == [BOS])
    assert bos.split("\t")[0] == "0" and len(bos.split("\t")) == 3 and float(bos.split("\t")[2]) < 0
    assert read_arpa(tmp_path / "lm.arpa").prob[0][(BOS,)] == 0.0


def test_empty_corpus_and_reserved_tokens():
    with pytest.raises(CadError, match="empty"):
        estimate([], 3)
    with pytest.raises(CadError, match="<s>"):
        estimate([["a", "</s>"]], 3)
