import gzip
import json
import math
import os

import numpy as np
import pytest

from cad.cli import main
from cad.core.errors import CadError
from coref.softmax import SoftmaxRanker

from conftest import write

spacy = pytest.importorskip("spacy")

SEED004 = ("My cat brought home a mouse that he hunted , and it was not dead but it was mortally wounded .\n"
           "What is the best way to kill it humanely ?")


def toks(text: str) -> list[list[str]]:
    return [s.split() for s in text.strip().split("\n")]


@pytest.fixture(scope="module")
def nlp():
    from cad.downloads.spacy_models import load_spacy

    return load_spacy()


@pytest.fixture(scope="module")
def ranker(nlp):
    from coref.english.ranker import RankerResolver

    return RankerResolver(nlp=nlp)


def parse(nlp, sentences):
    from spacy.tokens import Doc

    return [nlp(Doc(nlp.vocab, words=s)) for s in sentences]


def decisions(nlp, text, choose=None):
    """Every pronoun decision of the walk, with a chooser that links nothing unless told."""
    from coref.english.ranker import walk

    return [d for d, *_ in walk(parse(nlp, toks(text)), 3, choose or (lambda dec: (None, None, None)))]


# -- the log-linear model ------------------------------------------------------------------------

def test_softmax_probabilities_by_hand():
    m = SoftmaxRanker({"a": 0, "b": 1}, np.array([math.log(2), 1.0]))
    # binary logistic regression as two alternatives: the features, and nothing
    assert m.probabilities([["a"], []]) == pytest.approx([2 / 3, 1 / 3])
    p = m.probabilities([["a", "b"], ["b"], ["unknown"]])
    z = 2 * math.e + math.e + 1
    assert p == pytest.approx([2 * math.e / z, math.e / z, 1 / z])


def test_softmax_gradient_matches_finite_differences():
    from coref.softmax import segment_logsumexp

    rng = np.random.default_rng(0)
    groups = [[["f%d" % rng.integers(5) for _ in range(2)] for _ in range(rng.integers(2, 5))] for _ in range(30)]
    gold = [[j == 0 or (j == 1 and i % 3 == 0) for j in range(len(g))] for i, g in enumerate(groups)]
    model = SoftmaxRanker.fit(groups, gold, l2=0.5, min_count=1)

    def loss(w):
        m = SoftmaxRanker(model.vocab, w)
        total = 0.5 * 0.5 * float(w @ w)
        for g, y in zip(groups, gold):
            s = m.scores(g)
            total -= math.log(sum(math.exp(v) for v, ok in zip(s, y) if ok)) - math.log(sum(math.exp(v) for v in s))
        return total

    # at the optimum the penalized likelihood's gradient is zero
    w = model.weights
    for i in range(len(w)):
        e = np.zeros_like(w)
        e[i] = 1e-5
        assert (loss(w + e) - loss(w - e)) / 2e-5 == pytest.approx(0, abs=1e-3)
    # a segment with no gold alternative (all -inf) sums to -inf, the others as usual
    out = segment_logsumexp(np.array([-np.inf, -np.inf, 0.0, math.log(3)]), np.array([0, 2]), np.array([0, 0, 1, 1]))
    assert np.isneginf(out[0]) and out[1] == pytest.approx(math.log(4))


def test_softmax_learns_the_gold_feature():
    groups = [[["gold"], ["other"], ["other", "x"]]] * 20
    gold = [[True, False, False]] * 20
    m = SoftmaxRanker.fit(groups, gold, l2=0.1, min_count=1)
    assert m.probabilities([["gold"], ["other"]])[0] > 0.9


def test_softmax_fit_is_the_same_whatever_the_blas_threads():
    """A vocabulary long enough that OpenBLAS splits its dot products over threads: fitted under
    one thread and under two, the weights are the same bits (without `one_blas_thread` they differ
    in their last digits, and a real corpus carries that into the stored model)."""
    from threadpoolctl import threadpool_limits

    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: BLAS runs one thread either way, so the difference cannot show")

    rng = np.random.default_rng(0)
    groups, gold = [], []
    for _ in range(3000):
        groups.append([[f"f{rng.integers(0, 40000)}" for _ in range(12)] + [f"b{rng.integers(0, 20)}"]
                       for _ in range(8)])
        right = int(rng.integers(0, 8))
        gold.append([j == right for j in range(8)])
    fits = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads):
            fits.append(SoftmaxRanker.fit(groups, gold, l2=1.0).weights)
    assert len(fits[0]) > 30000 and np.array_equal(fits[0], fits[1])


# -- features on hand-made documents -------------------------------------------------------------

def test_pair_features_agreement_roles_and_distance(nlp):
    decs = decisions(nlp, "The farmers saw a red car .\nThey liked it a lot .")
    they = next(d for d in decs if d.site.word == "they")
    by_text = {c.text: f for c, f in zip(they.candidates, they.pair_feats)}
    farmers = set(by_text["The farmers"])
    assert {"sd=1", "num_match", "crole=subj", "parallel", "det=def", "num_match|they"} <= farmers
    assert "num_clash" in by_text["a red car"] and "det=indef" in by_text["a red car"]
    it = next(d for d in decs if d.site.word == "it")
    texts = [c.text for c in it.candidates]
    assert texts[0] == "They"                       # most recent first
    car = set(it.pair_feats[texts.index("a red car")])
    assert {"sd=1", "num_match|it", "crole=obj", "prole=obj", "parallel", "nominal"} <= car
    assert "num_clash|it" in it.pair_feats[texts.index("The farmers")]
    assert "path=nsubj_vdobj" in it.pair_feats[0]                # They -> liked <- it


def test_event_candidates_for_it_only(nlp):
    decs = decisions(nlp, "We burned all the coal in one winter .\nIt was a mistake and they knew it .")
    it = next(d for d in decs if d.site.word == "it" and d.site.index == 0)
    events = [c for c in it.candidates if c.kind == "event"]
    assert events and events[0].text.startswith("We burned") and it.candidates[0].kind == "np"
    assert any("kind=event|it" in f for c, f in zip(it.candidates, it.pair_feats) if c.kind == "event")
    they = next(d for d in decs if d.site.word == "they")
    assert all(c.kind == "np" for c in they.candidates)


def test_anaphoricity_features_see_pleonastic_cues(nlp):
    decs = decisions(nlp, "It is raining .\nIt is important that we stay .")
    rain, important = decs
    assert {"sieve_pleonastic", "weather", "w=it"} <= set(rain.ana_feats)
    assert {"gov_has_comp_clause", "acomp=important"} <= set(important.ana_feats)


def test_chain_constraint_on_seed004(nlp):
    """Once *he* is linked to *my cat*, no *it* can take *my cat* (nor *he*, nor *My*)."""
    def link_he_to_cat(dec):
        if dec.site.word == "he":
            return [c.text for c in dec.candidates].index("My cat"), None, None
        return None, None, None

    decs = decisions(nlp, SEED004, link_he_to_cat)
    its = [d for d in decs if d.site.word == "it"]
    assert len(its) == 3
    for d in its:
        texts = [c.text for c in d.candidates]
        assert "a mouse" in texts
        assert not {"My cat", "he", "My"} & set(texts)
    # without the link, *my cat* is a candidate again
    free = [d for d in decisions(nlp, SEED004) if d.site.word == "it"]
    assert "My cat" in [c.text for c in free[0].candidates]


# -- the shipped model ---------------------------------------------------------------------------

def follow(recs, r):
    """The first nominal mention reached from a record's best candidate along earlier decisions."""
    by = {(x.sentence, x.index): x for x in recs}
    seen = 0
    while r is not None and seen < 10:
        b = r.best
        if b.text.lower() not in ("it", "its"):
            return b.text
        r = by.get((b.sentence, b.head))
        seen += 1
    return None


def test_ranker_resolves_seed004(ranker):
    recs = ranker.resolve("d", toks(SEED004))
    assert [r.token for r in recs] == ["it", "it", "it"]
    for r in recs:
        assert r.referential and 0.5 <= r.anaphoricity <= 1
        assert abs(sum(c.probability for c in r.candidates) - 1) < 1e-9
        assert follow(recs, r) == "a mouse"


def test_sieve_resolves_seed004():
    from coref.english.sieve import SieveResolver

    recs = SieveResolver().resolve("d", toks(SEED004))
    assert [follow(recs, r) for r in recs] == ["a mouse"] * 3


def test_ranker_probabilities_and_pleonastic(ranker):
    recs = ranker.resolve("d", toks("The engineers built a bridge .\nThey painted it red .\nIt is important that we stay ."))
    by = {(r.sentence, r.index): r for r in recs}
    they, it, rain = by[(1, 0)], by[(1, 2)], by[(2, 0)]
    assert they.best.text == "The engineers" and it.best.text == "a bridge"
    for r in (they, it):
        assert abs(sum(c.probability for c in r.candidates) - 1) < 1e-9
        ps = [c.probability for c in r.candidates]
        # seed 003: every candidate within 1% of the best, and at least two
        assert ps == sorted(ps, reverse=True) and len(ps) >= 2 and all(p >= 0.01 * ps[0] for p in ps[2:])
    assert not rain.referential and rain.candidates == [] and rain.anaphoricity < 0.5


def test_model_round_trip_and_bad_files(tmp_path, ranker):
    from coref.english.ranker import RankerModel

    path = tmp_path / "m.json.gz"
    ranker.model.save(path)
    again = RankerModel.load(path)
    assert again.ranker.vocab == ranker.model.ranker.vocab
    assert np.allclose(again.ranker.weights, ranker.model.ranker.weights, atol=1e-6)
    with pytest.raises(CadError, match="not found"):
        RankerModel.load(tmp_path / "missing.json.gz")
    write(tmp_path / "bad.json.gz", b"\x1f\x8b not really gzip")
    with pytest.raises(CadError, match="corrupt model file") as e:
        RankerModel.load(tmp_path / "bad.json.gz")
    assert "bad.json.gz" in str(e.value)
    write(tmp_path / "old.json", json.dumps({"version": 0}))
    with pytest.raises(CadError, match="version"):
        RankerModel.load(tmp_path / "old.json")
    with gzip.open(tmp_path / "trunc.json.gz", "wt") as fh:
        fh.write('{"version": 1, "window": 3, "threshold": 0.5, "ranker": {"weights": [1, 2]}')
    with pytest.raises(CadError):
        RankerModel.load(tmp_path / "trunc.json.gz")
    # saving is atomic: a failed write leaves no file behind
    with pytest.raises(TypeError):
        from coref.softmax import save_json
        save_json({"x": object()}, tmp_path / "half.json.gz")
    assert not list(tmp_path.glob("half*")) and not list(tmp_path.glob(".half*"))


def test_coref_cli_ranker_and_model_errors(tmp_path, capsys):
    write(tmp_path / "in.txt", "The machine broke .\nIt is old .\n")
    out = tmp_path / "out.jsonl"
    assert main(["-q", "coref", "--input", str(tmp_path / "in.txt"), "--out", str(out)]) == 0
    rec = json.loads(out.read_text().splitlines()[0])
    assert rec["candidates"][0]["text"] == "The machine" and rec["candidates"][0]["kind"] == "np"
    assert 0.5 < rec["anaphoricity"] <= 1
    write(tmp_path / "broken.json", "{not json")
    assert main(["-q", "coref", "--input", str(tmp_path / "in.txt"), "--out", str(tmp_path / "o2.jsonl"),
                 "--model", str(tmp_path / "broken.json")]) == 1
    assert "broken.json" in capsys.readouterr().err
    assert not (tmp_path / "o2.jsonl").exists()
    write(tmp_path / "docs", "0\td\n")
    assert main(["-q", "coref-eval", "--backend", "sieve", "--cv-folds", "5", "--gold", str(tmp_path),
                 "--input", str(tmp_path / "in.txt"), "--docs", str(tmp_path / "docs")]) == 1
    assert "--cv-folds is for the ranker" in capsys.readouterr().err


def test_coref_cli_reads_stdin_and_writes_stdout(monkeypatch, capsys):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("The machine broke .\nIt is old .\n".encode())))
    assert main(["-q", "coref", "--input", "-", "--out", "-"]) == 0
    recs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["sentence"], r["index"], r["candidates"][0]["text"]) for r in recs] == [(1, 0, "The machine")]


# -- folds and training --------------------------------------------------------------------------

def test_talk_folds_partition():
    from coref.english.train import talk_folds

    talks = ["779", "769", "792", "799", "767", "790", "785", "783", "824", "837"]
    for k in (2, 3, 5, 10):
        folds = talk_folds(talks, k)
        flat = [t for f in folds for t in f]
        assert sorted(flat) == sorted(talks) and len(flat) == len(set(flat)) and len(folds) == k
    with pytest.raises(CadError):
        talk_folds(talks, 11)
    with pytest.raises(CadError):
        talk_folds(talks, 1)


def test_training_on_gold_news(shared_data, nlp, tmp_path):
    """Train on a few ParCorFull news documents; the saved model resolves as the fitted one."""
    from coref.english.ranker import RankerModel, RankerResolver
    from coref.english.train import fit, instances, parse_gold, read_gold_corpora

    docs = read_gold_corpora(shared_data / "coref", ("news",))[:4]
    data = [instances(c, g, p) for (c, g), p in zip(docs, parse_gold(nlp, docs))]
    assert all(d.ana_groups for d in data) and sum(len(d.rank_groups) for d in data) > 20
    for d in data:
        assert all(any(y) for y in d.rank_gold)
    model = fit(data)
    model.save(tmp_path / "m.json.gz")
    text = toks("The company sold its factory .\nIt needed the money .")
    a = RankerResolver(model, nlp=nlp).resolve("d", text)
    b = RankerResolver(RankerModel.load(tmp_path / "m.json.gz"), nlp=nlp).resolve("d", text)
    assert [(r.referential, [(c.text, round(c.probability, 4)) for c in r.candidates]) for r in a] == \
           [(r.referential, [(c.text, round(c.probability, 4)) for c in r.candidates]) for r in b]


# -- referent types --------------------------------------------------------------------------------

def test_seed004_mouse_is_an_animal_and_the_its_refer_to_it(ranker):
    recs = ranker.resolve("d", toks(SEED004))
    for r in recs:
        assert r.referent == "np" and r.referent_type == "animal"
        assert abs(sum(r.referent_probs.values()) - 1) < 0.01
    mouse = [c for r in recs for c in r.candidates if c.text == "a mouse"]
    assert mouse and all(c.entity_type == "animal" for c in mouse)


def test_pleonastic_and_event_it_typed_right(ranker):
    recs = ranker.resolve("d", toks("It is raining .\nThe soldiers burned the village .\nIt took place in 1944 ."))
    by = {(r.sentence, r.index): r for r in recs}
    assert by[(0, 0)].referent == "pleonastic" and by[(0, 0)].referent_type is None
    assert by[(2, 0)].referent == "event" and by[(2, 0)].referent_type is None
    recs = ranker.resolve("d", toks("She told me that the bank had closed .\nIt was true ."))
    assert recs[0].referent == "event"
    recs = ranker.resolve("d", toks("It seems that the train is late ."))
    assert recs[0].referent == "pleonastic"


def test_referent_fields_are_written_only_when_set(tmp_path):
    from coref.records import Candidate, PronounResolution, read_jsonl, record_line, write_jsonl

    plain = PronounResolution("d", 0, 1, "it", candidates=[Candidate(0, 0, 1, 0, "x")])
    line = record_line(plain)
    assert '"referent"' not in line and '"referent_' not in line and '"entity_type"' not in line
    typed = PronounResolution("d", 0, 1, "it", candidates=[Candidate(0, 0, 1, 0, "x", entity_type="animal")],
                              referent="np", referent_type="animal", referent_probs={"np:animal": 0.9, "event": 0.1})
    write_jsonl([plain, typed], tmp_path / "r.jsonl")
    a, b = read_jsonl(tmp_path / "r.jsonl")
    assert a == plain and b == typed
    write(tmp_path / "bad.jsonl", record_line(typed).replace('"np"', '"thing"'))
    with pytest.raises(CadError):
        list(read_jsonl(tmp_path / "bad.jsonl"))
