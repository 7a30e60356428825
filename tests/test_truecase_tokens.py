"""Truecasing one distinct token at a time (cad/corpus/truecase_tokens.py) gives what sacremoses
gives token by token (Truecaser and train_truecaser with by_token=False, the reference): the same
model file, the same truecased lines."""

import random

import pytest

from cad.corpus.truecase import Truecaser, recase_file, text_documents, train_truecaser
from cad.corpus.truecase_tokens import MAX_CACHED, LineTruecaser, WeightLearner
from conftest import REPO, write

LARGE = REPO / "models" / "large"

MODEL = """the (8/10) The (2)
paris (1/3) Paris (2)
nato (3/3)
iphone (2/2)
un (4/5) UN (1)
é (1/1)
ça (1/2) Ça (1)
x|y (1/1)
"""

# tokens whose handling sacremoses decides by its own rules: sentence ends, delayed starts,
# factors, XML-like text, tokens without letters, Unicode case pairs
SPECIAL = [".", ":", "?", "!", "(", "[", '"', "'", "&apos;", "&quot;", "&#91;", "&#93;", "|", "|x", "a|b", "A|B|c",
           "x|y", "X|Y", "<b>", "</b>", "<3", "a<b", "x>y", "<a href=x>", ">", "<", "42", ",", "--", "İ", "ß", "SS",
           "Σ", "ǅ", "ﬁ", "É", "é", "Ça", "ÇA"]
WORDS = ["the", "The", "THE", "paris", "Paris", "PARIS", "nato", "NATO", "Nato", "iphone", "iPhone", "un", "UN",
         "Un", "cat", "Cat", "bob", "Bob"]


@pytest.fixture
def model(tmp_path):
    return write(tmp_path / "tc", MODEL)


def both(path):
    return Truecaser(path).truecase, Truecaser(path, by_token=False).truecase


def test_lines_by_hand(model):
    fast, ref = both(model)
    lines = ["The cat met NATO in Paris . The UN met ( The Paris ) !", "( the iPhone ) . PARIS : un",
             "A|B|c x|y | |x The", "THE <b> Paris </b> . the", "x>y The a<b the", "<a href=x> The </a>",
             "\" The \" ' paris ' &quot; the", "42 The , -- the . . the", "İ ß SS Σ ǅ ﬁ É é Ça ÇA"]
    for line in lines:
        assert fast(line.split()) == ref(line.split()), line
    assert fast([]) == ref([]) == []


def test_tokens_with_whitespace_inside_go_to_sacremoses(model):
    # a caller's tokens, not split by str.split(): sacremoses splits them, and so does the cached way
    fast, ref = both(model)
    for tokens in (["The", "a\u00a0b", "Paris"], ["the\u3000The", "."], ["x\x1cThe"]):
        assert fast(tokens) == ref(tokens)


@pytest.mark.parametrize("seed", range(5))
def test_random_lines(model, seed):
    rng = random.Random(seed)
    fast, ref = both(model)
    for _ in range(2000):
        tokens = [rng.choice(SPECIAL if rng.random() < 0.4 else WORDS) for _ in range(rng.randint(1, 15))]
        assert fast(tokens) == ref(tokens), tokens


def test_the_cache_is_bounded(model, monkeypatch):
    monkeypatch.setattr("cad.corpus.truecase_tokens.MAX_CACHED", 3)
    from sacremoses import MosesTruecaser

    line = LineTruecaser(MosesTruecaser(load_from=str(model)))
    ref = Truecaser(model, by_token=False).truecase
    tokens = ["The", "Paris", "UN", "cat", ".", "The", "Paris", "dog", "UN"]
    assert line(tokens) == ref(tokens) and len(line._cache) == 3
    assert MAX_CACHED >= 100_000


@pytest.mark.parametrize("seed", range(5))
def test_learned_weights(seed):
    from sacremoses import MosesTruecaser

    learner = MosesTruecaser()
    fast = WeightLearner(learner)
    rng = random.Random(seed)
    for _ in range(2000):
        tokens = [rng.choice(SPECIAL + WORDS) for _ in range(rng.randint(1, 15))]
        assert fast.weights(tokens) == learner.learn_truecase_weights(tokens), tokens


@pytest.mark.parametrize("seed", range(3))
def test_trained_model_files(tmp_path, seed):
    # forms of one word tied in count: their order is the order first seen, both ways
    rng = random.Random(seed)
    docs = [[[rng.choice(SPECIAL + WORDS) for _ in range(rng.randint(1, 12))] for _ in range(rng.randint(1, 8))]
            for _ in range(300)]
    docs += [[["The", "Paris", "paris", "PARIS", "."]] * 3]
    got = {}
    for by_token in (True, False):
        got[by_token] = train_truecaser(docs, tmp_path / f"tc.{by_token}", by_token=by_token)
    assert got[True] == got[False]
    assert (tmp_path / "tc.True").read_bytes() == (tmp_path / "tc.False").read_bytes()


def test_first_lines_of_the_large_corpus(tmp_path):
    """Trained on the first 20,000 lines of the large corpus's tokenized text (with its documents)
    and applied to them, with the new model and with the large model's own."""
    names = [LARGE / f"mixed.{lang}" for lang in ("en", "fr")] + [LARGE / "mixed.docs"]
    if not all(p.is_file() for p in names):
        pytest.skip(f"the large corpus's tokenized text is not in {LARGE} (make large)")
    n = 20_000
    docs = write(tmp_path / "docs", "".join(l for l in open(names[2], encoding="utf-8") if int(l.split("\t")[0]) < n))
    for lang in ("en", "fr"):
        with open(LARGE / f"mixed.{lang}", "rb") as fh:
            text = write(tmp_path / f"text.{lang}", b"".join(fh.readline() for _ in range(n)))
        models = []
        for by_token in (True, False):
            models.append(tmp_path / f"model.{lang}.{by_token}")
            train_truecaser(text_documents(text, docs), models[-1], by_token=by_token)
        assert models[0].read_bytes() == models[1].read_bytes()
        for model in [models[0]] + ([LARGE / f"truecase-model.{lang}"] if (LARGE / f"truecase-model.{lang}").is_file()
                                     else []):
            outs = []
            for by_token in (True, False):
                outs.append(tmp_path / f"out.{lang}.{by_token}")
                recase_file(Truecaser(model, by_token=by_token).truecase, text, outs[-1])
            assert outs[0].read_bytes() == outs[1].read_bytes(), model
