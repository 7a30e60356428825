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


# -- the compiled estimator (cad/lm/_kn.cpp) writes the Python reference's bytes -----------------

from cad.lm import native  # noqa: E402


def _both(tmp_path, sentences, order):
    from cad.lm.native import estimate_to_arpa

    estimate_to_arpa(iter(sentences), order, tmp_path / "native.arpa")
    write_arpa(estimate(sentences, order), tmp_path / "python.arpa")
    return (tmp_path / "native.arpa").read_bytes(), (tmp_path / "python.arpa").read_bytes()


@pytest.mark.parametrize("order", [1, 2, 3, 5, 7])
def test_native_estimate_is_byte_identical(tmp_path, order):
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    a, b = _both(tmp_path, CORPUS, order)
    assert a == b and a.startswith(b"\\data\\\nngram 1=")


def test_native_estimate_random_unicode_corpora(tmp_path):
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    # words whose code-point order differs from naive orders: accents, capitals, CJK, astral
    # characters, <unk> itself, one-letter words; sentences shorter and longer than the order
    words = ["a", "b", "é", "É", "z", "Z", "日本", "😀", "ab", "a-b", "<unk>", "l'", "ça", "\u00e9t\u00e9"]
    rng = random.Random(11)
    for trial in range(12):
        sents = [[rng.choice(words) for _ in range(rng.randint(1, 9))] for _ in range(rng.randint(1, 60))]
        order = rng.choice([2, 3, 4, 5])
        a, b = _both(tmp_path, sents, order)
        assert a == b, (trial, order)


def test_native_estimate_errors(tmp_path):
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    from cad.lm.native import estimate_to_arpa

    with pytest.raises(CadError, match="empty corpus"):
        estimate_to_arpa(iter([]), 3, tmp_path / "x.arpa")
    with pytest.raises(CadError, match="<s>"):
        estimate_to_arpa(iter([["a", "<s>"]]), 3, tmp_path / "x.arpa")
    with pytest.raises(CadError, match="at least 1"):
        estimate_to_arpa(iter([["a"]]), 0, tmp_path / "x.arpa")
    with pytest.raises(CadError, match="corpus too small"):
        estimate_to_arpa(iter([["a"]]), 2, tmp_path / "x.arpa", discount_fallback=False)
    assert not (tmp_path / "x.arpa").exists()


def test_cad_lm_engines_agree_on_the_shared_corpus(tmp_path, shared_data):
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    from cad.pipeline import train_lm

    text = tmp_path / "fr.txt"
    with open(shared_data / "en-fr" / "train.fr", encoding="utf-8") as fh:
        text.write_text("".join(line for _, line in zip(range(3000), fh)), encoding="utf-8")
    train_lm(text, tmp_path / "n.arpa", 5, engine="native")
    train_lm(text, tmp_path / "p.arpa", 5, engine="python")
    assert (tmp_path / "n.arpa").read_bytes() == (tmp_path / "p.arpa").read_bytes()
