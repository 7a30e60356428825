"""The ranker's attention features (coref.english.attention): the log scale and the chunking by hand,
the real encoder's attention on a parsed document, and the features in the ranker's walk."""

import numpy as np
import pytest

from coref.english.attention import (CHUNK, FEATURES, PRONOUN_FEATURES, STRIDE, AttentionScorer, AttentionScores,
                                     chunk_start, pronoun_features, ranker_features)
from coref.softmax import SoftmaxRanker

spacy = pytest.importorskip("spacy")


def test_ranker_features_by_hand():
    v = np.zeros(FEATURES, np.float32)
    v[0], v[37], v[FEATURES - 1] = 0.99, 0.09, 0.5
    scores = AttentionScores(pairs={(0, 1, 1, 0): v})
    (block,) = ranker_features(scores, "it", 0, 1, 1, 0)
    assert len(block.names) == len(block.values) == FEATURES == 144
    got = dict(zip(block.names, block.values.tolist()))
    # log(a + 0.01) / 4.6 + 1: attention 0.99 -> 1, 0.09 -> 1 - log(10) / 4.6, 0 -> 1 - log(100) / 4.6
    assert got["att0|it"] == pytest.approx(1.0, abs=1e-6)
    assert got["att37|it"] == pytest.approx(1 - np.log(10) / 4.6, abs=1e-6)
    assert got["att1|it"] == pytest.approx(1 - np.log(100) / 4.6, abs=1e-6)
    assert got["att143|it"] == pytest.approx(1 + np.log(0.51) / 4.6, abs=1e-6)
    assert ranker_features(scores, "they", 0, 2, 1, 0) == ["att_missing|they"]


def test_pronoun_features_by_hand():
    v = np.zeros(PRONOUN_FEATURES, np.float32)
    v[0], v[359] = 0.99, 2.99              # the last: a total over the window's heads may pass 1
    scores = AttentionScores(pronouns={(1, 0): v})
    (block,) = pronoun_features(scores, "they", 1, 0)
    assert len(block.names) == PRONOUN_FEATURES == 360 and block.names[7] == "ana_att7|they"
    assert block.values[0] == pytest.approx(1.0, abs=1e-6)
    assert block.values[359] == pytest.approx(1 + np.log(3) / 4.6, abs=1e-6)
    assert block.values[1] == pytest.approx(1 - np.log(100) / 4.6, abs=1e-6)
    # the names tuple is shared by every pronoun of a class (a Dense block is keyed by it)
    assert pronoun_features(scores, "they", 1, 0)[0].names is block.names
    assert pronoun_features(scores, "it", 1, 1) == []


def test_chunk_start_by_hand():
    room = CHUNK - 2
    assert (CHUNK, STRIDE) == (256, 128)
    assert chunk_start(0) == chunk_start(room - 1) == 0
    assert chunk_start(room) == STRIDE == chunk_start(room + STRIDE - 1)
    assert chunk_start(room + STRIDE) == 2 * STRIDE
    for p in range(0, 2000, 7):
        c = chunk_start(p)
        assert c % STRIDE == 0 and c <= p < c + room and (c == 0 or p - c >= room - STRIDE)


@pytest.fixture(scope="module")
def nlp():
    from cad.downloads.spacy_models import load_spacy

    return load_spacy()


def parse(nlp, sentences):
    from spacy.tokens import Doc

    return [nlp(Doc(nlp.vocab, words=s.split())) for s in sentences]


@pytest.fixture(scope="module")
def scorer():
    from cad.downloads.minilm_files import SPEC
    from coref.english.minilm import MiniLM

    folder = SPEC.find()
    if folder is None:
        pytest.skip(f"no MiniLM files in {SPEC.default_folder()}: `make minilm-files` fetches them")
    return AttentionScorer(MiniLM(folder))


def test_the_attention_of_seed_004s_it(nlp, scorer):
    parsed = parse(nlp, ["The mouse ran under the table .", "It was not dead ."])
    got = scorer.pair_scores(parsed)
    scores = got.pairs
    # every earlier token that can head a mention, and only those (no verb, preposition or full stop)
    assert sorted(k[:2] for k in scores if k[2:] == (1, 0)) == [(0, 0), (0, 1), (0, 4), (0, 5)]
    mouse, table = scores[(0, 1, 1, 0)], scores[(0, 5, 1, 0)]
    assert mouse.shape == (FEATURES,) and mouse.dtype == np.float32
    # the forward half is the attention from "it" (layer 4, head 2: index 3 * 12 + 1), as the encoder gives it
    assert mouse[37] == pytest.approx(0.69661, abs=2e-5) and table[37] == pytest.approx(0.02507, abs=2e-5)
    assert ((mouse >= 0) & (mouse <= 1)).all()
    # the pronoun's own reading: to [CLS], [SEP], itself, then the total and the largest attention to
    # the four heads, head by head; the heads' part agrees with the pair features' forward half (each
    # of these words is one piece)
    own = got.pronouns[(1, 0)]
    assert own.shape == (PRONOUN_FEATURES,) and own.dtype == np.float32
    heads = np.stack([scores[(0, i, 1, 0)][:72] for i in (0, 1, 4, 5)])
    assert np.allclose(own[216:288], heads.sum(0), atol=1e-6) and np.allclose(own[288:], heads.max(0))
    # a head's attention over the whole chunk sums to 1, so the parts never pass it
    assert (own[:216].reshape(3, 72).sum(0) + own[216:288] <= 1 + 1e-5).all()
    # the first sentence's pronoun-free tokens have no reading of their own
    assert set(got.pronouns) == {(1, 0)}


def test_candidates_outside_the_window_or_the_chunk_get_none(nlp, scorer):
    filler = "the man saw a dog near the old house by the river ."
    parsed = parse(nlp, ["A cat slept ."] + [filler] * 30 + ["It woke ."])
    last = len(parsed) - 1
    scores = scorer.pair_scores(parsed).pairs
    mine = [k for k in scores if k[2:] == (last, 0)]
    assert mine and min(k[0] for k in mine) == last - 3           # the window: 3 sentences back
    scorer.window = 40
    try:
        wide = [k for k in scorer.pair_scores(parsed).pairs if k[2:] == (last, 0)]
    finally:
        scorer.window = 3
    # 31 sentences of 13 pieces are more than a chunk holds: the cat is out of reach
    assert (0, 1, last, 0) not in wide and len(wide) > len(mine)
    assert ranker_features(AttentionScores(pairs=dict.fromkeys(wide, np.zeros(FEATURES, np.float32))),
                           "it", 0, 1, last, 0) == ["att_missing|it"]


def test_walk_adds_the_attention_to_noun_phrase_candidates_only(nlp):
    from coref.english.ranker import walk

    parsed = parse(nlp, ["The cat ate the mouse .", "It was not dead .", "They slept ."])
    v = np.full(FEATURES, 0.99, np.float32)
    own = np.full(PRONOUN_FEATURES, 0.5, np.float32)
    scores = AttentionScores(pairs={(0, 1, 1, 0): v}, pronouns={(1, 0): own})
    decs = [d for d, *_ in walk(parsed, 3, lambda dec: (None, None, None), {"attention": scores})]
    (dec,) = [d for d in decs if d.site.word == "it"]
    # the pronoun's own attention joins its anaphoricity features (and nothing else's)
    (ana,) = [f for f in dec.ana_feats if not isinstance(f, str)]
    assert ana.names[0] == "ana_att0|it" and ana.values[0] == pytest.approx(1 + np.log(0.51) / 4.6, abs=1e-6)
    (they,) = [d for d in decs if d.site.word == "they"]       # no reading of its own: no block
    assert not [f for f in they.ana_feats if not isinstance(f, str)]
    by_text = {c.text: f for c, f in zip(dec.candidates, dec.pair_feats)}
    (block,) = [f for f in by_text["The cat"] if not isinstance(f, str) and f.names[0] == "att0|it"]
    assert block.values[0] == pytest.approx(1.0, abs=1e-6)
    assert "att_missing|it" in by_text["the mouse"]
    assert all(all(isinstance(x, str) and not x.startswith("att") for x in f)
               for c, f in zip(dec.candidates, dec.pair_feats) if c.kind == "event")


def test_model_remembers_that_it_reads_attention(tmp_path):
    from coref.english.ranker import RankerModel

    r = SoftmaxRanker({"a": 0}, np.array([1.0]))
    RankerModel(r, r, attention=True).save(tmp_path / "m.json")
    m = RankerModel.load(tmp_path / "m.json")
    assert m.attention and not m.neuralcoref and m.sources == ("attention",)
    RankerModel(r, r, neuralcoref=True, attention=True).save(tmp_path / "b.json")
    assert RankerModel.load(tmp_path / "b.json").sources == ("neuralcoref", "attention")
    RankerModel(r, r).save(tmp_path / "p.json")
    assert RankerModel.load(tmp_path / "p.json").sources == ()


def test_a_resolver_loads_the_scorers_its_model_reads(nlp, scorer):
    from coref.english.ranker import RankerModel, RankerResolver

    r = SoftmaxRanker({"a": 0}, np.array([1.0]))
    res = RankerResolver(RankerModel(r, r, window=2, attention=True), nlp=nlp)
    assert list(res.scorers) == ["attention"] and res.scorers["attention"].window == 2
    assert RankerResolver(RankerModel(r, r), nlp=nlp).scorers == {}


def test_a_dense_block_scores_and_trains_as_its_features_one_by_one():
    from coref.softmax import Dense

    rng = np.random.default_rng(0)
    names = tuple(f"d{i}" for i in range(5))
    groups_dense, groups_tuples, gold = [], [], []
    for _ in range(60):
        n = int(rng.integers(2, 5))
        vals = rng.random((n, 5)).astype(np.float32)
        bins = [["b"] if rng.random() < 0.5 else [] for _ in range(n)]
        groups_dense.append([b + [Dense(names, v)] for b, v in zip(bins, vals)])
        groups_tuples.append([b + [(nm, float(x)) for nm, x in zip(names, v)] for b, v in zip(bins, vals)])
        right = int(np.argmax(vals[:, 0] - vals[:, 3]))
        gold.append([j == right for j in range(n)])
    a = SoftmaxRanker.fit(groups_dense, gold, l2=1.0)
    b = SoftmaxRanker.fit(groups_tuples, gold, l2=1.0)
    assert a.vocab == b.vocab and np.allclose(a.weights, b.weights, atol=1e-6)
    assert a.weights[a.vocab["d0"]] > 0 > a.weights[a.vocab["d3"]]       # it learned the rule
    for gd, gt in zip(groups_dense[:10], groups_tuples[:10]):
        assert np.allclose(a.scores(gd), a.scores(gt), atol=1e-9)
    # a block name the model does not know adds nothing
    other = SoftmaxRanker({"d0": 0}, np.array([2.0]))
    v = np.array([0.5, 1, 1, 1, 1], np.float32)
    assert other.scores([[Dense(names, v)]])[0] == pytest.approx(1.0)


def test_training_without_the_encoder_files_fails_before_parsing(shared_data, tmp_path, monkeypatch, capsys):
    """`cad coref-train --attention` without MiniLM's files says so at once: nothing parsed into the
    parse cache (minutes over the gold corpora), no model written."""
    from cad.cli import main

    monkeypatch.setenv("CAD_MINILM", str(tmp_path / "no-minilm"))
    cache, out = tmp_path / "parses", tmp_path / "m.json.gz"
    assert main(["-q", "coref-train", "--data", str(shared_data / "coref"), "--corpora", "news", "--attention",
                 "--parse-cache", str(cache), "--out", str(out)]) != 0
    err = capsys.readouterr().err
    assert "MiniLM encoder files are not available" in err and "CAD_MINILM" in err and "make minilm-files" in err
    assert not out.exists() and not (cache.exists() and any(cache.iterdir()))
