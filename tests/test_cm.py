"""Coreference Model building, coreference-aware translation and the PE baseline."""

import gzip
import math
import json
import sys
from pathlib import Path

import pytest

from cad.cm.class_model import ClassTable

pytest.importorskip("spacy")

from cad.cli import main
from cad.cm.backoff_table import estimate
from cad.cm.build import build_cm
from cad.cm.collect import CMStats, collect_triples
from cad.cm.config import cm_config
from cad.translate.postedit import postedit_document
from cad.translate.backoff import translate_document
from cad.decoder import Decoder, DecoderModel
from cad.decoder.search import Derivation, Translation
from cad.moses.ini import parse_config, write_config
from cad.sample import SAMPLE_PREFIX
from coref.records import Candidate, PronounResolution

from conftest import NO_MOSES, write


def rec(sentence, index, token, cands):
    return PronounResolution("d", sentence, index, token, True,
                             [Candidate(s, a, b, h, "", p) for s, a, b, h, p in cands])


def test_triples_and_normalization_by_hand():
    src = [["i", "saw", "the", "mouse", "and", "the", "cat", "."], ["it", "is", "small", "."],
           ["they", "sleep", "."]]
    tgt = [["j'", "ai", "vu", "la", "souris", "et", "le", "chat", "."], ["elle", "est", "petite", "."],
           ["ils", "dorment", "."]]
    align = [[(0, 0), (1, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8)],
             [(0, 0), (1, 1), (2, 2), (3, 3)], [(0, 0), (1, 1), (2, 2)]]
    records = [rec(1, 0, "it", [(0, 2, 4, 3, 0.75), (0, 5, 7, 6, 0.25)]),   # mouse 0.75, cat 0.25
               rec(2, 0, "they", [(0, 2, 7, 3, 1.0)])]                        # "the mouse and the cat"
    stats = CMStats()
    triples = collect_triples(src, tgt, align, records, False, stats)
    assert sorted(triples) == sorted([("it-fem-sing", "elle", 0.75), ("it-masc-sing", "elle", 0.25),
                                      ("they-fem-sing", "ils", 1.0)])
    # with another it -> il observation for a feminine antecedent: P(elle|it-fem-sing) = 0.75 / (0.75 + 0.5)
    model = estimate(triples + [("it-fem-sing", "il", 0.5)])
    assert model["it-fem-sing"]["elle"][0] == pytest.approx(0.75 / 1.25)
    assert model["it-fem-sing"]["il"][0] == pytest.approx(0.5 / 1.25)
    assert model["it-masc-sing"]["elle"][0] == 1.0
    single = collect_triples(src, tgt, align, records, False, CMStats(), single_best=True)
    assert ("it-fem-sing", "elle", 1.0) in single and len(single) == 2


def test_witten_bell_backoff_by_hand():
    from cad.cm.backoff_table import coarser, estimate_witten_bell

    assert [coarser(b) for b in ("it-fem-sing-hum", "it-fem-sing", "it-sing", "it")] == \
           ["it-fem-sing", "it-sing", "it", None]
    triples = [("it-fem-sing", "elle", 2.0), ("it-fem-sing", "il", 1.0), ("it-masc-sing", "il", 3.0),
               ("they-fem-plur", "elles", 1.0), ("they-fem-plur", "ils", 1.0), ("they-masc-plur", "ils", 4.0)]
    m = estimate_witten_bell(triples)
    p = {b: {t: v[0] for t, v in d.items()} for b, d in m.items()}
    # P(t|it) = ML = {elle 1/3, il 2/3}; it-sing has the same counts, so the same distribution;
    # it-fem-sing: c = 3, T = 2: elle (2 + 2/3) / 5, il (1 + 4/3) / 5
    assert p["it-fem-sing"] == pytest.approx({"elle": 8 / 15, "il": 7 / 15})
    # it-masc-sing: c = 3, T = 1: il (3 + 2/3) / 4, and elle gets (0 + 1/3) / 4 from the parent
    assert p["it-masc-sing"] == pytest.approx({"il": 11 / 12, "elle": 1 / 12})
    # a combination never seen takes its parent's distribution (seed 003: every combination is written)
    assert p["it-fem-plur"] == pytest.approx({"elle": 1 / 3, "il": 2 / 3})
    assert p["they-fem-plur"] == pytest.approx({"elles": 1 / 3, "ils": 2 / 3})
    assert p["they-masc-sing"] == pytest.approx({"elles": 1 / 6, "ils": 5 / 6})
    assert set(m) == {f"{pr}-{g}-{n}" for pr in ("it", "they") for g in ("masc", "fem") for n in ("sing", "plur")}
    assert m["it-fem-sing"]["elle"][1] == 2.0 and m["it-fem-plur"]["il"][1] == 0.0     # counts kept
    for d in p.values():
        assert sum(d.values()) == pytest.approx(1.0)
    hum = estimate_witten_bell([("it-fem-sing-nonhum", "elle", 1.0)], with_human=True)
    assert "it-masc-plur-hum" in hum and hum["it-masc-plur-hum"]["elle"][0] == pytest.approx(1.0)


@pytest.fixture(scope="module")
def sample_system(tmp_path_factory):
    out = tmp_path_factory.mktemp("sample")
    assert main(["-q", "train", "--corpus", str(SAMPLE_PREFIX), "--out", str(out / "model")]) == 0
    stats = build_cm(str(out / "model" / "corpus"), str(out / "model" / "aligned.grow-diag-final-and"), out / "cm",
                     backend="sieve")
    write_config(cm_config(out / "model" / "moses.ini", out / "cm" / "cm.gz"), out / "cm.ini")
    return out, stats


def test_cm_from_the_sample_corpus(sample_system):
    out, stats = sample_system
    lines = gzip.open(out / "cm" / "cm.gz", "rt").read().splitlines()
    probs = {tuple(l.split(" ||| ")[:2]): float(l.split(" ||| ")[2]) for l in lines}
    # feminine antecedents make "elle" the likeliest translation of it, masculine ones "il"
    assert probs[("it-fem-sing", "elle")] > probs.get(("it-fem-sing", "il"), 0)
    assert probs[("it-masc-sing", "il")] > probs.get(("it-masc-sing", "elle"), 0)
    assert probs[("they-fem-plur", "elles")] > probs.get(("they-fem-plur", "ils"), 0)
    assert (out / "cm" / "provenance.json").exists() and stats.triples > 100
    cfg = parse_config(out / "cm.ini")
    assert cfg.mapping == [(0, "T", 0), (1, "T", 1)] and cfg.backoff == [0, 1]
    assert cfg.weights["TranslationModel1"] == [0.8]


def test_smoothed_cm_from_the_sample_corpus(sample_system, tmp_path):
    out, _ = sample_system
    assert main(["-q", "cm", "build", "--corpus", str(out / "model" / "corpus"), "--align",
                 str(out / "model" / "aligned.grow-diag-final-and"), "--backend", "sieve",
                 "--smoothing", "witten-bell", "--out", str(tmp_path / "wb")]) == 0
    lines = gzip.open(tmp_path / "wb" / "cm.gz", "rt").read().splitlines()
    probs = {tuple(l.split(" ||| ")[:2]): float(l.split(" ||| ")[2]) for l in lines}
    bundles = {b for b, _ in probs}
    assert {"it-masc-plur", "they-masc-sing"} <= bundles            # combinations never seen are written
    assert probs[("it-fem-sing", "elle")] > probs.get(("it-fem-sing", "il"), 0)
    assert probs[("it-masc-sing", "il")] > probs.get(("it-masc-sing", "elle"), 0)
    for b in bundles:
        assert sum(p for (bb, _), p in probs.items() if bb == b) == pytest.approx(1.0, abs=1e-3)
    assert json.loads((tmp_path / "wb" / "provenance.json").read_text())["smoothing"] == "witten-bell"


def test_class_table_domain_weights(sample_system, tmp_path, capsys):
    out, _ = sample_system
    args = ["-q", "cm", "build", "--corpus", str(out / "model" / "corpus"), "--align",
            str(out / "model" / "aligned.grow-diag-final-and"), "--backend", "sieve"]
    assert main(args + ["--out", str(tmp_path / "one")]) == 0
    assert main(args + ["--domain-weight", "sample=3", "--out", str(tmp_path / "three")]) == 0
    one = ClassTable.read(tmp_path / "one" / "classes.gz")
    three = ClassTable.read(tmp_path / "three" / "classes.gz")
    # every document is "sample:<n>": the counts triple, so the smoothing weighs less
    assert three.counts["it"] == pytest.approx(3 * one.counts["it"], rel=1e-4)
    assert json.loads((tmp_path / "three" / "provenance.json").read_text())["class_domain_weights"] == {"sample": 3.0}
    for bad in ("sample", "sample=x", "=2", "nosuch=2"):
        assert main(args + ["--domain-weight", bad, "--out", str(tmp_path / "bad")]) == 1
        assert "domain" in capsys.readouterr().err.lower()
    assert not (tmp_path / "bad").exists()


def test_inter_and_intra_sentential_passes(sample_system):
    out, _ = sample_system
    doc = [["i", "saw", "the", "mouse", "yesterday", "."], ["it", "is", "old", "."],
           ["we", "bought", "a", "cat", "and", "it", "was", "black", "."]]
    dec = Decoder(DecoderModel.load(out / "cm.ini"))
    recs = [rec(1, 0, "it", [(0, 2, 4, 3, 1.0)]), rec(2, 5, "it", [(2, 2, 4, 3, 1.0)])]
    trs, traces = translate_document(dec, "d", doc, recs)
    t1, t2 = traces
    assert (t1.pass_, t1.features, t1.antecedent_translation) == ("inter", "it-fem-sing", "souris")
    assert t1.target == "elle" and trs[1].text.startswith("elle")
    assert (t2.pass_, t2.features, t2.antecedent_translation) == ("intra", "it-masc-sing", "chat")
    # the baseline's first pass says "elle" for this "it"; with the feature token the CM gives "il"
    assert t2.target == "il"
    # no antecedent: the default table translates "it"
    trs, traces = translate_document(dec, "d", doc[1:2], [PronounResolution("d", 0, 0, "it", False, [])])
    assert traces[0].pass_ == "none" and traces[0].features is None


def test_postedit_makes_pronouns_agree():
    def tr(src, words, align):
        return Translation(src.split(), Derivation(words.split(), 0.0, [], [], given_alignment=align))

    trs = [tr("i saw the mouse .", "j' ai vu la souris .", [(0, 0), (1, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),
           tr("it is old .", "il est vieux .", [(0, 0), (1, 1), (2, 2), (3, 3)]),
           tr("they sleep .", "elles dorment .", [(0, 0), (1, 1), (2, 2)])]
    recs = [rec(1, 0, "it", [(0, 2, 4, 3, 1.0)]), rec(2, 0, "they", [(0, 2, 4, 3, 1.0)])]
    words, edits = postedit_document(trs, recs)
    assert words[1][0] == "elle" and words[2][0] == "elles"      # feminine antecedent "souris"
    assert [(e.before, e.after) for e in edits] == [("il", "elle")]


def test_cm_cli_show_and_translate(sample_system, tmp_path, capsys):
    out, _ = sample_system
    assert main(["cm", "show", str(out / "cm" / "cm.gz"), "--top", "2"]) == 0
    shown = capsys.readouterr().out
    assert "it-fem-sing" in shown and "elle" in shown
    write(tmp_path / "doc.txt", "I saw the mouse yesterday.\nIt is old.\n")
    assert main(["-q", "translate", "--config", str(out / "cm.ini"), "--input", str(tmp_path / "doc.txt"), "--raw",
                 "--trace", str(tmp_path / "trace.jsonl"), "--out", str(tmp_path / "out.fr")]) == 0
    assert len((tmp_path / "out.fr").read_text().splitlines()) == 2
    assert (tmp_path / "trace.jsonl").read_text().count("\n") == 1
    # a truecasing model for the input: raw text in, cased detokenized text out
    write(tmp_path / "cased.en", "I saw the Mouse in Paris .\nThe mouse is old .\n")
    assert main(["-q", "truecase", "train", "--text", str(tmp_path / "cased.en"), "--model", str(tmp_path / "tc.en")]) == 0
    assert main(["-q", "translate", "--config", str(out / "cm.ini"), "--input", str(tmp_path / "doc.txt"), "--raw",
                 "--truecase-model", str(tmp_path / "tc.en"), "--out", str(tmp_path / "cased.fr")]) == 0
    plain, cased = (tmp_path / "out.fr").read_text().splitlines(), (tmp_path / "cased.fr").read_text().splitlines()
    assert [c[:1].isupper() for c in cased] == [True, True]
    assert not any(c.endswith(" .") for c in cased + plain)
    # the truecased input: *It* became *it*, which the (lowercased) sample model knows
    assert cased[1].lower() == plain[1].lower()


def test_cm_weight_grid_search(sample_system, tmp_path):
    from cad.tune.cm_weight import cm_weight_grid

    out, _ = sample_system
    write(tmp_path / "src.en", "i saw the mouse yesterday .\nit is old .\nwe bought a car .\nit was black .\n")
    write(tmp_path / "ref.fr", "j' ai vu la souris hier .\nelle est vieille .\nnous avons acheté une voiture .\n"
                               "elle était noire .\n")
    write(tmp_path / "ref.al", "0-0 1-1 1-2 2-3 3-4 4-5 5-6\n0-0 1-1 2-2 3-3\n0-0 1-1 1-2 2-3 3-4 4-5\n"
                               "0-0 1-1 2-2 3-3\n")
    write(tmp_path / "docs", "0\ta\n2\tb\n")
    res = cm_weight_grid(str(out / "cm.ini"), str(tmp_path / "src.en"), str(tmp_path / "docs"),
                         str(tmp_path / "ref.fr"), str(tmp_path / "ref.al"), [0.1, 2.0])
    assert [w for w, _, _ in res] == [0.1, 2.0]
    assert all(0 <= apt <= 1 and 0 <= b <= 100 for _, apt, b in res)
    # a strong CM weight gets both feminine pronouns right
    assert res[1][1] == 1.0


def test_source_aware_pronoun_predictor(sample_system, tmp_path):
    from cad.plm.classifier import SourceAware, train_source_aware
    from cad.plm.model import PLM, train_plm
    from cad.plm.tsv import CLASSES_2016, read_tsv

    out, _ = sample_system
    model = out / "model"
    fr = (model / "corpus.fr").read_text(encoding="utf-8").splitlines()
    train_plm([[l.split() for l in fr[i:i + 2]] for i in range(0, len(fr), 2)], tmp_path / "plm")
    assert main(["-q", "coref", "--input", str(model / "corpus.en"), "--docs", str(model / "corpus.docs"),
                 "--out", str(tmp_path / "coref.jsonl")]) == 0
    acc = train_source_aware(str(tmp_path / "plm"), str(model / "corpus"), str(model / "aligned.grow-diag-final-and"),
                             str(tmp_path / "coref.jsonl"), str(tmp_path / "sa"), str(model / "corpus.docs"))
    assert acc > 0.8
    write(tmp_path / "t.tsv",
          "elle\t\twe bought a car . it was black .\tnous avons acheté une voiture . REPLACE_5 était noire .\t"
          "0-0 1-1 1-2 2-3 3-4 4-5 5-6 6-7 7-8 8-9\n"
          "ils\t\tmy dogs are here . they are big .\tmes chiens sont ici . REPLACE_5 sont grands .\t"
          "0-0 1-1 2-2 3-3 4-4 5-5 6-6 7-7 8-8\n")
    items = read_tsv(tmp_path / "t.tsv", gold=True)
    preds = SourceAware.load(str(tmp_path / "sa")).predict_document(PLM(tmp_path / "plm"), items, CLASSES_2016)
    assert preds == [["elle"], ["ils"]]


def test_postedit_cli_checks_line_counts(tmp_path, capsys):
    write(tmp_path / "src", "it is old .\nthey sleep .\n")
    write(tmp_path / "hyp", "il est vieux .\n")
    write(tmp_path / "al", "0-0 1-1 2-2 3-3\n0-0 1-1 2-2\n")
    assert main(["postedit", "--source", str(tmp_path / "src"), "--translation", str(tmp_path / "hyp"),
                 "--alignment", str(tmp_path / "al"), "--out", str(tmp_path / "pe")]) == 1
    assert "hyp:2" in capsys.readouterr().err and not (tmp_path / "pe").exists()


def test_rerank_scores_by_hand():
    from cad.translate.rerank import Hypothesis, Reranker

    table = {"it-fem-sing": {"elle": 0.8, "il": 0.2}, "it-masc-sing": {"il": 0.9, "elle": 0.1}}
    s0 = Hypothesis(["la", "souris", "et", "le", "chat", "dorment", "."], -3.0,
                    [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6)])
    il = Hypothesis(["il", "est", "vieux", "."], -1.0, [(0, 0), (1, 1), (2, 2), (3, 3)])
    elle = Hypothesis(["elle", "est", "vieille", "."], -1.5, [(0, 0), (1, 1), (2, 2), (3, 3)])
    one = [rec(1, 0, "it", [(0, 0, 2, 1, 1.0)])]                          # "the mouse" -> la souris
    chosen, traces = Reranker(table, 1.0).rerank_document([[s0], [il, elle]], one)
    assert traces[1].cm_scores == pytest.approx([math.log(0.2), math.log(0.8)])
    assert chosen[1] is elle                    # -1 + ln .2 = -2.61 < -1.5 + ln .8 = -1.72
    chosen, _ = Reranker(table, 0.1).rerank_document([[s0], [il, elle]], one)
    assert chosen[1] is il                      # -1.16 > -1.52
    # expected value over two candidates: the mouse (.6, feminine) and the cat (.4, masculine)
    two = [rec(1, 0, "it", [(0, 0, 2, 1, 0.6), (0, 3, 5, 4, 0.4)])]
    _, traces = Reranker(table, 1.0).rerank_document([[s0], [il, elle]], two)
    assert traces[1].cm_scores == pytest.approx([math.log(.6 * .2 + .4 * .9), math.log(.6 * .8 + .4 * .1)])
    # an antecedent in the same sentence is read from each hypothesis itself
    a = Hypothesis(["la", "table", "est", "vieille", "mais", "il", "tient", "."], -2.0, [(i, i) for i in range(8)])
    b = Hypothesis(["la", "table", "est", "vieille", "mais", "elle", "tient", "."], -2.1, [(i, i) for i in range(8)])
    chosen, traces = Reranker(table, 1.0).rerank_document([[a, b]], [rec(0, 5, "it", [(0, 0, 2, 1, 1.0)])])
    assert chosen[0] is b and traces[0].cm_scores == pytest.approx([math.log(0.2), math.log(0.8)])
    # a target the table does not list is floored at its 1e-5 cut; no record, no score
    odd = Hypothesis(["ça", "est", "vieux", "."], -0.5, [(0, 0), (1, 1), (2, 2), (3, 3)])
    _, traces = Reranker(table, 1.0).rerank_document([[s0], [odd]], one)
    assert traces[1].cm_scores == pytest.approx([math.log(1e-5)])
    _, traces = Reranker(table, 1.0).rerank_document([[s0], [odd]], [])
    assert traces[1].cm_scores == [0.0]


def test_rerank_route_on_cad_nbest_lists(sample_system, tmp_path, capsys):
    """cad's decoder writes a Moses n-best list; `cad rerank` picks the pronoun the CM says."""
    from cad.decoder.nbest import nbest_lines
    from coref.records import write_jsonl

    out, _ = sample_system
    doc = ["i saw the mouse yesterday .", "it is old ."]
    dec = Decoder(DecoderModel.load(out / "model" / "moses.ini"))
    lines = []
    for k, s in enumerate(doc):
        lines += nbest_lines(k, dec.translate(s, nbest=50, distinct=True), include_alignment=True)
    write(tmp_path / "nbest", "\n".join(lines) + "\n")
    write(tmp_path / "src", "\n".join(doc) + "\n")
    recs = [PronounResolution("0", 1, 0, "it", True, [Candidate(0, 2, 4, 3, "the mouse", 1.0)])]
    write_jsonl(recs, tmp_path / "coref.jsonl")
    targets = {}
    for w in (0.0, 5.0):
        assert main(["-q", "cm", "rerank", "--nbest", str(tmp_path / "nbest"), "--input", str(tmp_path / "src"),
                     "--coref", str(tmp_path / "coref.jsonl"), "--cm", str(out / "cm" / "cm.gz"),
                     "--weight", str(w), "--out", str(tmp_path / f"out{w}"), "--trace", str(tmp_path / "t"),
                     "--alignment-out", str(tmp_path / f"al{w}")]) == 0
        targets[w] = (tmp_path / f"out{w}").read_text().splitlines()
        al = (tmp_path / f"al{w}").read_text().splitlines()
        assert len(al) == 2 and all(int(t) < len(targets[w][1].split()) for p in al[1].split()
                                    for t in p.split("-")[1:])
    first = [l.split(" ||| ")[1] for l in lines if l.startswith("1 |||")]
    assert targets[0.0][1] == first[0]                               # weight 0: the decoder's own 1-best
    assert any(h.split()[0] == "elle" for h in first)                # the list offers the feminine pronoun
    assert targets[5.0][1].split()[0] == "elle"                       # the CM chooses it: the mouse is feminine
    capsys.readouterr()
    assert main(["-q", "cm", "rerank", "--nbest", str(tmp_path / "nbest"), "--input", str(tmp_path / "src"),
                 "--coref", str(tmp_path / "coref.jsonl"), "--cm", str(out / "cm" / "cm.gz"), "--weight", "5"]) == 0
    assert capsys.readouterr().out.splitlines() == targets[5.0]       # no --out: standard output
    bad = tmp_path / "short"
    write(bad, "\n".join(l for l in lines if l.startswith("0 |||")) + "\n")
    assert main(["-q", "cm", "rerank", "--nbest", str(bad), "--input", str(tmp_path / "src"), "--coref",
                 str(tmp_path / "coref.jsonl"), "--cm", str(out / "cm" / "cm.gz"), "--out", str(tmp_path / "o")]) == 1
    assert "covers 1 sentences" in capsys.readouterr().err and not (tmp_path / "o").exists()


@pytest.mark.parametrize("decoder", ["cad", pytest.param("moses", marks=pytest.mark.skipif(
    __import__("cad.decoder.moses_runner", fromlist=["find_moses"]).find_moses() is None,
    reason=NO_MOSES))])
def test_rerank_route_through_the_decode_command(sample_system, tmp_path, decoder):
    """The route a user of real Moses takes: `cad decode --decoder moses` (or cad's own decoder)
    writes a distinct n-best list with alignments, `cad cm rerank` picks the CM's pronoun."""
    from coref.records import write_jsonl

    out, _ = sample_system
    write(tmp_path / "src", "i saw the mouse yesterday .\nit is old .\n")
    assert main(["-q", "decode", "-f", str(out / "model" / "moses.ini"), "-input-file", str(tmp_path / "src"),
                 "-n-best-list", str(tmp_path / "nbest"), "50", "distinct", "-include-alignment-in-n-best",
                 "--decoder", decoder]) == 0
    recs = [PronounResolution("0", 1, 0, "it", True, [Candidate(0, 2, 4, 3, "the mouse", 1.0)])]
    write_jsonl(recs, tmp_path / "coref.jsonl")
    assert main(["-q", "cm", "rerank", "--nbest", str(tmp_path / "nbest"), "--input", str(tmp_path / "src"),
                 "--coref", str(tmp_path / "coref.jsonl"), "--cm", str(out / "cm" / "cm.gz"), "--weight", "5",
                 "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out").read_text().splitlines()[1].split()[0] == "elle"


def moses_stand_in(tmp_path: Path, real: str | None = None) -> Path:
    """An executable with Moses's command line and stream behaviour, which logs every start, to
    check the route cad translate takes with a real Moses: cad decode, or (`real`) the real
    Moses binary itself."""
    script = tmp_path / "moses"
    run = f"'{real}'" if real else f"'{sys.executable}' -m cad decode"
    script.write_text(f"#!/bin/sh\necho start >> '{tmp_path / 'starts'}'\nexec {run} \"$@\"\n")
    script.chmod(0o755)
    return script


@pytest.mark.parametrize("binary", ["stand-in", pytest.param("real", marks=pytest.mark.skipif(
    __import__("cad.decoder.moses_runner", fromlist=["find_moses"]).find_moses() is None, reason=NO_MOSES))])
@pytest.mark.parametrize("system,extra", [("cm", []), ("baseline", []), ("pe", []),
                                          ("cm", ["--cm-mode", "rerank", "--classes", "CLASSES"])])
def test_translate_with_a_moses_binary_starts_one_process_per_pass(sample_system, tmp_path, system, extra, binary):
    """--decoder moses: one persistent process serves the sequential passes, one process runs a
    whole independent pass (n-best lists for reranking), on the model filtered to the input; the
    output is the one cad's own decoder gives. With the real Moses (`real`): Moses reads the
    tables and the moses.ini cad wrote (the CM's back-off table too) and finds the same
    translations and word alignments."""
    from cad.decoder.moses_runner import find_moses

    out, _ = sample_system
    extra = [str(out / "cm" / "classes.gz") if x == "CLASSES" else x for x in extra]
    write(tmp_path / "doc.txt", "i saw the mouse yesterday .\nit is old .\nwe bought a car .\nit was black .\n"
                                "the cats sleep .\nthey are old .\n")
    write(tmp_path / "docs", "0\ta\n2\tb\n4\tc\n")
    config = out / ("model/moses.ini" if system != "cm" or extra else "cm.ini")
    got = {}
    for decoder in ("cad", "moses"):
        args = ["-q", "translate", "--config", str(config), "--input", str(tmp_path / "doc.txt"), "--docs",
                str(tmp_path / "docs"), "--system", system, "--backend", "sieve", "--decoder", decoder,
                "--out", str(tmp_path / f"out.{decoder}"), "--alignment-out", str(tmp_path / f"al.{decoder}")]
        if decoder == "moses":
            args += ["--moses-bin", str(moses_stand_in(tmp_path, find_moses() if binary == "real" else None))]
        assert main(args + extra) == 0
        got[decoder] = ((tmp_path / f"out.{decoder}").read_text(), (tmp_path / f"al.{decoder}").read_text())
    assert got["moses"] == got["cad"]
    assert len(got["cad"][0].splitlines()) == 6
    assert (tmp_path / "starts").read_text() == "start\n"


def test_decode_streams_standard_input_like_moses(sample_system, tmp_path, capsys):
    """Each line read from stdin is translated and flushed before the next is read; with
    -report-segmentation and -print-alignment-info the line carries the phrases and the word
    alignment in Moses's layout, which cad's Moses reader reads back."""
    import subprocess

    from cad.decoder.moses_runner import MosesProcess, parse_best_line

    out, _ = sample_system
    ini = str(out / "model" / "moses.ini")
    sents = ["i saw the mouse yesterday .", "it is old .", "we bought a car ."]
    write(tmp_path / "in", "".join(s + "\n" for s in sents))
    assert main(["-q", "decode", "-f", ini, "-input-file", str(tmp_path / "in"), "-alignment-output-file",
                 str(tmp_path / "al")]) == 0
    capsys.readouterr()
    assert main(["-q", "decode", "-f", ini, "-input-file", str(tmp_path / "in")]) == 0
    batch = capsys.readouterr().out.splitlines()
    aligned = (tmp_path / "al").read_text().splitlines()
    proc = subprocess.Popen([sys.executable, "-m", "cad", "decode", "-f", ini, "-t", "-print-alignment-info"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        for k, s in enumerate(sents):
            proc.stdin.write(s + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()          # answered while stdin is still open
            words, steps, alignment = parse_best_line(line.rstrip("\n"))
            assert " ".join(words) == batch[k]
            assert " ".join(f"{i}-{j}" for i, j in alignment) == aligned[k]
            assert [w for st in steps for w in st.words] == words
            # the phrases cover every source word once
            assert sorted(i for st in steps for i in range(st.src_start, st.src_end)) == list(range(len(s.split())))
            assert line.endswith("| ||| " + aligned[k] + "\n")
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert proc.returncode == 0
    # the same through the persistent-process reader, twice, from one process
    with MosesProcess(str(moses_stand_in(tmp_path)), ini) as moses:
        assert [moses.translate(s).text for s in sents] == batch
        assert " ".join(f"{i}-{j}" for i, j in moses.translate(sents[0]).best.word_alignment) == aligned[0]
    assert (tmp_path / "starts").read_text() == "start\n"


@pytest.mark.parametrize("script,message", [
    ("echo 'cannot load the model' >&2\nexit 3", "cannot load the model"),        # dies at start
    ("read line\necho 'x |0-0| ||| 0-zero'", "unreadable line for sentence 1"),   # garbled alignment
])
def test_a_failing_moses_process_is_a_clear_error(tmp_path, script, message):
    from cad.decoder.moses_runner import MosesProcess
    from cad.core.errors import CadError

    bad = tmp_path / "moses"
    bad.write_text(f"#!/bin/sh\n{script}\n")
    bad.chmod(0o755)
    with pytest.raises(CadError, match=message):
        with MosesProcess(str(bad), "moses.ini") as moses:
            moses.translate("a b")


def test_postedit_resolves_with_the_coref_model_it_is_given(tmp_path, capsys):
    """--coref-model reaches the backend: the shipped ranker links *it* to *a mouse* (.98) and the
    rule makes *il* feminine; the same model told that no pronoun refers (threshold above 1) edits nothing."""
    pytest.importorskip("spacy")
    from coref.english.ranker import RankerModel, default_model_path

    write(tmp_path / "src", "i found a mouse .\nit was not dead .\n")
    write(tmp_path / "hyp", "j' ai trouvé une souris .\nil n' était pas mort .\n")
    write(tmp_path / "al", "0-0 1-1 1-2 2-3 3-4 4-5\n0-0 1-2 2-1 2-3 3-4 4-5\n")
    m = RankerModel.load(default_model_path())
    m.threshold = 1.01
    m.save(tmp_path / "never.json.gz")
    base = ["-q", "postedit", "--source", str(tmp_path / "src"), "--translation", str(tmp_path / "hyp"),
            "--alignment", str(tmp_path / "al")]
    assert main(base + ["--out", str(tmp_path / "pe")]) == 0
    assert (tmp_path / "pe").read_text().splitlines()[1].split()[0] == "elle"
    assert main(base + ["--coref-model", str(tmp_path / "never.json.gz"), "--out", str(tmp_path / "pe2")]) == 0
    assert (tmp_path / "pe2").read_text() == (tmp_path / "hyp").read_text()
    # a model file that is not one names itself; a backend that reads no model refuses the option
    write(tmp_path / "bad.json", "{}\n")
    assert main(base + ["--coref-model", str(tmp_path / "bad.json"), "--out", str(tmp_path / "pe3")]) == 1
    assert "bad.json" in capsys.readouterr().err and not (tmp_path / "pe3").exists()
    assert main(base + ["--backend", "sieve", "--coref-model", str(tmp_path / "never.json.gz"),
                        "--out", str(tmp_path / "pe4")]) == 1
    assert "--coref-model is for --backend ranker or spanish, not sieve" in capsys.readouterr().err
    # nor is it silently dropped where no resolver runs (translation without coreference) or where
    # records replace the backend
    assert main(["-q", "translate", "--system", "baseline", "--config", str(tmp_path / "no.ini"), "--input",
                 str(tmp_path / "src"), "--backend", "sieve", "--coref-model", str(tmp_path / "never.json.gz"),
                 "--out", str(tmp_path / "tr")]) == 1
    assert "--coref-model is for --backend" in capsys.readouterr().err and not (tmp_path / "tr").exists()
    write(tmp_path / "recs.jsonl", "")
    assert main(["-q", "cm", "rerank", "--nbest", str(tmp_path / "hyp"), "--input", str(tmp_path / "src"),
                 "--coref", str(tmp_path / "recs.jsonl"), "--coref-model", str(tmp_path / "never.json.gz"),
                 "--cm", str(tmp_path / "cm.gz"), "--out", str(tmp_path / "rr")]) == 1
    assert "give one of them" in capsys.readouterr().err and not (tmp_path / "rr").exists()


def test_class_table_factored(sample_system, tmp_path):
    """--class-table factored: the same bundles as the joint table, every distribution a distribution,
    the bundles without a gender unchanged (without EM, whose posteriors read the gendered ones too),
    the choice recorded in provenance.json."""
    out, _ = sample_system
    args = ["-q", "cm", "build", "--corpus", str(out / "model" / "corpus"), "--align",
            str(out / "model" / "aligned.grow-diag-final-and"), "--backend", "sieve", "--no-classifier",
            "--em-iterations", "0"]
    assert main(args + ["--out", str(tmp_path / "joint")]) == 0
    assert main(args + ["--class-table", "factored", "--out", str(tmp_path / "fact")]) == 0
    joint = ClassTable.read(tmp_path / "joint" / "classes.gz")
    fact = ClassTable.read(tmp_path / "fact" / "classes.gz")
    assert joint.probs.keys() == fact.probs.keys() and joint.counts == fact.counts
    gendered = [b for b in fact.probs if len(b.split("-")) > 2 and b.split("-")[2] in ("masc", "fem")]
    assert gendered and any(fact.probs[b] != pytest.approx(joint.probs[b]) for b in gendered)
    for b, d in fact.probs.items():
        assert sum(d.values()) == pytest.approx(1.0, abs=1e-4)
        if b not in gendered:
            assert d == pytest.approx(joint.probs[b], abs=1e-5)
    assert json.loads((tmp_path / "fact" / "provenance.json").read_text())["class_table"] == "factored"
    assert json.loads((tmp_path / "joint" / "provenance.json").read_text())["class_table"] == "joint"
