"""neuralcoref's networks read as the ranker's features (coref.english.neuralcoref), and the
real-valued features of the log-linear ranker that carry them."""

import math

import numpy as np
import pytest

from coref.softmax import SoftmaxRanker

spacy = pytest.importorskip("spacy")


@pytest.fixture(scope="module")
def nlp():
    from cad.downloads.spacy_models import load_spacy

    return load_spacy()


def parse(nlp, sentences):
    from spacy.tokens import Doc

    return [nlp(Doc(nlp.vocab, words=s.split())) for s in sentences]


# -- real-valued features of the ranker -----------------------------------------------------------

def test_real_valued_feature_scores_by_hand():
    m = SoftmaxRanker({"a": 0, "nc": 1}, np.array([0.5, 2.0]))
    # a (name, value) pair scores weight × value; a plain name is 1
    assert m.scores([["a", ("nc", 0.25)], [("nc", -1.0)], []]) == pytest.approx([1.0, -2.0, 0.0])
    p = m.probabilities([[("nc", 1.0)], []])
    assert p == pytest.approx([math.exp(2) / (math.exp(2) + 1), 1 / (math.exp(2) + 1)])


def test_real_valued_feature_is_learned_with_its_sign():
    """The gold alternative has the larger value: the weight comes out positive, and a group whose
    values are reversed is ranked the other way."""
    groups = [[[("x", 1.0), "b"], [("x", -1.0), "b"]], [[("x", 0.5)], [("x", -0.5)], [("x", -2.0)]]] * 10
    gold = [[True, False], [True, False, False]] * 10
    m = SoftmaxRanker.fit(groups, gold, l2=0.1, min_count=1)
    assert m.weights[m.vocab["x"]] > 1.0
    assert m.probabilities([[("x", -1.0)], [("x", 1.0)]])[1] > 0.8


def test_binary_features_fit_as_before():
    """Names alone give the matrix of ones they always gave: the same weights as names written as (name, 1)."""
    groups = [[["g", "c"], ["c"], ["o"]], [["g"], ["o", "c"]]] * 5
    gold = [[True, False, False], [True, False]] * 5
    a = SoftmaxRanker.fit(groups, gold, l2=0.3, min_count=1)
    b = SoftmaxRanker.fit([[[(f, 1.0) for f in alt] for alt in g] for g in groups], gold, l2=0.3, min_count=1)
    assert a.vocab == b.vocab and np.allclose(a.weights, b.weights)


# -- neuralcoref's inputs ---------------------------------------------------------------------------

def test_distance_bins():
    from coref.english.neuralcoref import _dist

    def b(d):
        v = _dist(d)
        assert v[:10].sum() == 1
        return int(np.argmax(v[:10])), round(float(v[10]), 4)

    assert [b(d)[0] for d in (0, 1, 4, 5, 7, 8, 15, 16, 31, 32, 63, 64, 500)] == [0, 1, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9]
    assert b(32)[1] == 0.5 and b(500)[1] == 1.0


def test_forward_is_four_relu_layers_then_two_linear(tmp_path):
    from coref.english.neuralcoref import _forward

    rng = np.random.default_rng(1)
    shapes = [(4, 3), (2, 4), (2, 2), (1, 2), (1, 1)]
    layers = [(rng.normal(size=s).astype(np.float32), rng.normal(size=s[0]).astype(np.float32)) for s in shapes]
    x = rng.normal(size=(5, 3)).astype(np.float32)
    h = x
    for k, (w, b) in enumerate(layers):
        h = np.array([[sum(row[j] * w[o, j] for j in range(w.shape[1])) + b[o] for o in range(w.shape[0])] for row in h])
        if k < 3:
            h = np.where(h > 0, h, 0)
    assert _forward(layers, x) == pytest.approx(h[:, 0], rel=1e-5)


def test_mentions_and_pair_inputs_by_hand(nlp):
    from spacy.tokens import Doc

    from coref.english.neuralcoref import NOMINAL, PRONOMINAL, _extract, _pair_inputs

    parsed = parse(nlp, ["The cat ate the mouse .", "It was not dead ."])
    doc = Doc.from_docs(parsed, ensure_whitespace=True)
    offsets = np.cumsum([0] + [len(d) for d in parsed])
    sent_of = np.repeat(np.arange(len(parsed)), np.diff(offsets))
    ms = _extract(doc, offsets, sent_of)
    texts = [(doc[m.start:m.end].text, m.kind, m.sentence) for m in ms]
    assert ("The cat", NOMINAL, 0) in texts and ("the mouse", NOMINAL, 0) in texts and ("It", PRONOMINAL, 1) in texts
    single = np.zeros((len(ms), 668), np.float32)
    cat = next(i for i, m in enumerate(ms) if m.lower == "the cat")
    mouse = next(i for i, m in enumerate(ms) if m.lower == "the mouse")
    it = next(i for i, m in enumerate(ms) if m.lower == "it")
    x = _pair_inputs(single, ms, cat, mouse)
    assert x[1300] == 1 and x[1303] == 0 and x[1304] == 0 and x[1305] == 0
    assert np.argmax(x[1306:1316]) == 0                     # same sentence
    assert np.argmax(x[1317:1327]) == mouse - cat - 1       # mentions between them
    x = _pair_inputs(single, ms, mouse, it)
    assert np.argmax(x[1306:1316]) == 1 and x[1328] == 0    # the next sentence, no overlap


def test_ranker_features_by_hand():
    from coref.english.neuralcoref import ranker_features

    scores = {(0, 1, 1, 0): 4.0, ("single", 1, 0): 1.5}
    assert ranker_features(scores, "it", 0, 1, 1, 0) == ["nc_found|it", ("nc|it", 0.8), ("nc_margin|it", 0.5)]
    assert ranker_features(scores, "it", 0, 4, 1, 0) == ["nc_missing|it"]
    assert ranker_features({(0, 1, 1, 0): -1.0}, "they", 0, 1, 1, 0) == ["nc_found|they", ("nc|they", -0.2)]


def test_walk_adds_the_scores_to_noun_phrase_candidates_only(nlp):
    from coref.english.ranker import walk

    parsed = parse(nlp, ["The cat ate the mouse .", "It was not dead ."])
    cat_head = 1
    external = {(0, cat_head, 1, 0): 5.0, ("single", 1, 0): 0.0}
    decs = [d for d, *_ in walk(parsed, 3, lambda dec: (None, None, None), {"neuralcoref": external})]
    (dec,) = [d for d in decs if d.site.word == "it"]
    by_text = {c.text: f for c, f in zip(dec.candidates, dec.pair_feats)}
    assert ("nc|it", 1.0) in by_text["The cat"] and ("nc_margin|it", 1.0) in by_text["The cat"]
    assert "nc_missing|it" in by_text["the mouse"]
    assert all(not any(isinstance(x, tuple) or str(x).startswith("nc_") for x in f)
               for c, f in zip(dec.candidates, dec.pair_feats) if c.kind == "event")
    # without scores the features are what they were
    plain = [d for d, *_ in walk(parsed, 3, lambda dec: (None, None, None))]
    assert all(not any(isinstance(x, tuple) or str(x).startswith("nc_") for f in d.pair_feats for x in f) for d in plain)


def test_model_remembers_that_it_reads_neuralcoref(tmp_path):
    from coref.english.ranker import RankerModel

    r = SoftmaxRanker({"a": 0}, np.array([1.0]))
    m = RankerModel(r, r, neuralcoref=True)
    m.save(tmp_path / "m.json")
    assert RankerModel.load(tmp_path / "m.json").neuralcoref
    RankerModel(r, r).save(tmp_path / "p.json")
    assert not RankerModel.load(tmp_path / "p.json").neuralcoref


# -- the shipped networks ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def model():
    from cad.downloads.neuralcoref_files import find_model
    from coref.english.neuralcoref import NeuralCorefModel

    folder = find_model()
    if folder is None:
        pytest.skip("neuralcoref's model files are absent: `make neuralcoref-files` fetches them")
    return NeuralCorefModel(folder)


def test_real_model_scores_every_earlier_mention_of_a_pronoun(nlp, model):
    parsed = parse(nlp, ["My sister has a dog .", "She loves him ."])
    s = model.pair_scores(parsed)
    she, him = (1, 0), (1, 2)
    assert ("single", *she) in s and ("single", *him) in s
    # the pair network prefers the sister for *she* and the dog for *him*
    assert s[(0, 1, *she)] > s[(0, 4, *she)]
    assert s[(0, 4, *him)] > s[(0, 1, *him)]
    # the same document scores the same
    assert model.pair_scores(parsed) == s


def test_bad_model_folder_is_an_error(tmp_path):
    from cad.core.errors import CadError
    from coref.english.neuralcoref import NeuralCorefModel

    with pytest.raises(CadError, match="not a neuralcoref model folder"):
        NeuralCorefModel(tmp_path)


def test_model_folder_without_the_unknown_vector_is_an_error(tmp_path):
    """A vector table that lacks neuralcoref's *UNK* row is named as a bad folder when loaded, not a
    KeyError at the first unknown word."""
    import shutil

    import srsly

    from cad.core.errors import CadError
    from cad.downloads.neuralcoref_files import find_model
    from coref.english.neuralcoref import NeuralCorefModel

    folder = find_model()
    if folder is None:
        pytest.skip("neuralcoref's model files are absent: `make neuralcoref-files` fetches them")
    copy = tmp_path / "m"
    shutil.copytree(folder, copy)
    (copy / "static_vectors" / "key2row").write_bytes(srsly.msgpack_dumps({}))
    with pytest.raises(CadError, match="not a neuralcoref model folder.*KeyError"):
        NeuralCorefModel(copy)
