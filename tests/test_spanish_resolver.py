"""The native Spanish pronoun resolver (coref.spanish), its training and evaluation against CorZu."""

import json
import math

import numpy as np
import pytest
from conftest import write

from cad.core.errors import CadError
from cad.lang.es import FORM_MORPH
from coref.records import PronounResolution
from coref.softmax import SoftmaxRanker
from coref.spanish.entities import inherit, name_key
from coref.spanish.features import agrees
from coref.spanish.mentions import EsMention, EsSite
from coref.spanish.ranker import SpanishModel
from coref.spanish.tokens import Truecaser

# seed 003's example (§4): su's antecedent is hermana, a singular feminine human noun
SEED003 = "Mi hermana va a la escuela .\nSu escuela está detrás de la catedral ."


def toks(text: str, lower: bool = False) -> list[list[str]]:
    return [(s.lower() if lower else s).split() for s in text.strip().split("\n")]


def mention(kind="noun", gender=None, number=None, human=None, word="x", sentence=0, head=0, role="obj"):
    return EsMention(sentence, head, head + 1, head, kind, gender, number, human, role, word=word)


# -- without spaCy -------------------------------------------------------------------------------

def test_form_morph_marks_the_antecedent_only_for_personal_and_clitic_pronouns():
    ella = EsSite(1, 0, "ella", "pers", *FORM_MORPH["ella"], "subj", 0)
    assert agrees(ella, mention(gender="fem", number="sing"))
    assert not agrees(ella, mention(gender="masc", number="sing"))
    assert not agrees(ella, mention(gender="fem", number="plur"))
    assert agrees(ella, mention())                      # unknown features do not clash
    # sus agrees with the possessed noun: a singular masculine possessor is fine
    sus = EsSite(1, 0, "sus", "su", *FORM_MORPH["sus"], "poss_obj", 0)
    assert agrees(sus, mention(gender="masc", number="sing"))
    # le gives the number, not the gender
    le = EsSite(1, 0, "le", "dat", *FORM_MORPH["le"], "iobj", 0)
    assert agrees(le, mention(gender="fem", number="sing")) and not agrees(le, mention(number="plur"))


def test_a_pronoun_inherits_its_antecedents_features_except_what_its_form_says():
    hermana = mention(gender="fem", number="sing", human=True, word="hermana")
    su = mention(kind="su", word="su")
    inherit(su, hermana)
    assert (su.gender, su.number, su.human) == ("fem", "sing", True)
    # ellos says plural whatever it was linked to (CorZu's chains keep agreement the same way)
    ellos = mention(kind="pers", word="ellos")
    inherit(ellos, hermana)
    assert (ellos.gender, ellos.number, ellos.human) == ("masc", "plur", True)
    # an elided subject keeps its verb's number
    zero = mention(kind="zero", number="plur", word="dijeron")
    inherit(zero, hermana)
    assert (zero.gender, zero.number, zero.human) == ("fem", "plur", True)
    lonely = mention(kind="su", word="su")
    inherit(lonely, None)
    assert (lonely.gender, lonely.number, lonely.human) == (None, None, None)


def test_name_keys_join_repeated_names_and_definite_nouns_only():
    # a proper noun is keyed by its word alone, wherever and however it stands
    grecia = name_key(mention(kind="propn", word="grecia"))
    assert grecia == ("propn", "grecia")
    assert name_key(mention(kind="propn", word="grecia", number="sing", sentence=3, head=5, role="subj")) == grecia
    assert name_key(mention(kind="propn", word="españa")) not in (None, grecia)
    defn = mention(word="crisis", number="sing")
    defn.det = "def"
    assert name_key(defn) == ("noun", "crisis", "sing")
    assert name_key(mention(word="países")) is None          # bare or indefinite: a new entity
    assert name_key(mention(kind="su", word="su")) is None



def test_entities_follow_links_then_names_and_count_their_mentions():
    from coref.spanish.entities import Entities

    grecia, pais, su = mention(kind="propn", word="grecia"), mention(word="país"), mention(kind="su", word="su")
    again = mention(kind="propn", word="grecia", sentence=2)
    es = Entities()
    for m, ante in ((grecia, None), (pais, None), (su, pais), (again, None)):
        es.join(m, ante)
    assert [m.entity for m in (grecia, pais, su, again)] == [0, 1, 1, 0]      # linked, then named alike
    assert es.sizes == {0: 2, 1: 2}
    lonely = mention(kind="su", word="su")
    es.join(lonely, mention())              # an antecedent outside every entity: a new one
    assert lonely.entity == 2 and es.sizes[2] == 1

def test_truecaser_learns_names_and_leaves_cased_text_alone():
    sents = [["Ayer", "Obama", "habló", "con", "la", "OTAN"], ["La", "OTAN", "y", "Obama", "."],
             ["Dijo", "que", "la", "Casa", "blanca", "y", "la", "casa", "de", "obama"],
             ["Obama", "fue", "a", "la", "OTAN"], ["Con", "Obama", "en", "casa"]]
    tc = Truecaser.learn(sents, min_count=2)
    assert tc.forms == {"obama": "Obama", "otan": "OTAN"}      # casa is lowercase more often
    assert tc.apply(["la", "otan", "y", "obama", "en", "casa"]) == ["La", "OTAN", "y", "Obama", "en", "casa"]
    assert tc.apply(["La", "Casa", "blanca"]) == ["La", "Casa", "blanca"]


def _tiny_model() -> SpanishModel:
    ranker = SoftmaxRanker({"sd=0": 0, "gen_match": 1, "k=noun": 2}, np.array([0.5, 2.0, -0.25]))
    ana = SoftmaxRanker({"w=su": 0}, np.array([3.0]))
    return SpanishModel(ranker, ana, window=2, max_candidates=30, threshold=0.4,
                        truecaser=Truecaser({"obama": "Obama"}), lexicon={"gente": 0.98},
                        info={"documents": 1})


def test_model_save_load_roundtrip(tmp_path):
    m = _tiny_model()
    for name in ("m.json", "m.json.gz"):
        m.save(tmp_path / name)
        back = SpanishModel.load(tmp_path / name)
        assert (back.window, back.max_candidates, back.threshold) == (2, 30, 0.4)
        assert back.truecaser.forms == {"obama": "Obama"} and back.lexicon == {"gente": 0.98}
        assert back.info == {"documents": 1}
        group = [["sd=0", "gen_match"], ["k=noun"], ["unknown"]]
        assert back.ranker.probabilities(group) == pytest.approx(m.ranker.probabilities(group))
        assert back.anaphoricity.probabilities([["w=su"], []])[0] == pytest.approx(1 / (1 + math.exp(-3)))
        assert back.human_lexicon().is_human("Gente") is True
    # byte-identical across saves: the model file is deterministic
    m.save(tmp_path / "again.json.gz")
    assert (tmp_path / "again.json.gz").read_bytes() == (tmp_path / "m.json.gz").read_bytes()
    no_tc = SpanishModel(m.ranker)
    no_tc.save(tmp_path / "plain.json")
    assert SpanishModel.load(tmp_path / "plain.json").truecaser is None


def test_model_load_refuses_other_files(tmp_path):
    write(tmp_path / "en.json", json.dumps({"version": 1, "window": 3, "ranker": {"weights": {}}}))
    with pytest.raises(CadError, match="Spanish ranker model"):
        SpanishModel.load(tmp_path / "en.json")
    write(tmp_path / "bad.json", "{not json")
    with pytest.raises(CadError, match="corrupt"):
        SpanishModel.load(tmp_path / "bad.json")
    with pytest.raises(CadError, match="not found"):
        SpanishModel.load(tmp_path / "missing.json.gz")


def test_shipped_model_is_small_and_complete():
    from coref.spanish.ranker import default_model_path
    import os

    path = default_model_path()
    assert os.path.getsize(path) < 1_000_000
    m = SpanishModel.load(path)
    assert m.anaphoricity is not None and m.truecaser and len(m.truecaser.forms) > 1000
    assert len(m.ranker.vocab) > 500
    w = dict(zip(sorted(m.ranker.vocab, key=m.ranker.vocab.get), m.ranker.weights))
    # what CorZu does, learned: agreement in number helps, a clash hurts
    assert w["num_match"] > 0 > w["num_clash"]


def test_help_describes_every_option(capsys):
    from coref.spanish.evaluate import build_parser as eval_parser
    from coref.spanish.train import build_parser, main

    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    assert "python -m coref.spanish.train" in capsys.readouterr().out
    import argparse

    for parser in (build_parser(), eval_parser()):
        for action in parser._actions:
            assert action.help, f"{action.option_strings} has no help"
            if action.default not in (None, False, argparse.SUPPRESS):
                assert "%(default)" in action.help, f"{action.option_strings} does not state its default"
        assert "%(" not in parser.format_help()


# -- with spaCy's Spanish model ------------------------------------------------------------------

@pytest.fixture(scope="module")
def nlp():
    pytest.importorskip("spacy")
    from cad.lang.es import spanish_nlp

    try:
        return spanish_nlp()
    except CadError as exc:
        pytest.skip(f"spaCy's Spanish model is not installed: {exc}")


@pytest.fixture(scope="module")
def resolver(nlp):
    from coref.spanish.ranker import SpanishResolver

    return SpanishResolver(nlp=nlp)


def _parse(nlp, text: str, lower: bool = True):
    from coref.spanish.tokens import parse

    return parse(nlp, toks(text, lower), Truecaser({"obama": "Obama"}))


@pytest.mark.parametrize("lower", [True, False])
def test_seed003_example_su_is_hermana(resolver, lower):
    sents = toks(SEED003, lower)
    recs = resolver.resolve("7", sents)
    su = [r for r in recs if r.token.lower() == "su"]
    assert len(su) == 1 and (su[0].doc, su[0].sentence, su[0].index, su[0].token) == ("7", 1, 0, sents[1][0])
    best = su[0].best
    assert (best.sentence, best.head, best.text.lower()) == (0, 1, "mi hermana")
    assert (best.human, best.gender, best.number, best.kind) == (True, "fem", "sing", "np")
    assert sum(c.probability for c in su[0].candidates) == pytest.approx(1.0)
    assert len(su[0].candidates) >= 2           # keep_likely keeps at least two


@pytest.mark.parametrize("pronoun, antecedent", [("él", "presidente"), ("ella", "ministra")])
def test_gender_decides_between_two_people(resolver, pronoun, antecedent):
    text = f"el presidente recibió a la ministra en el palacio .\n{pronoun} dijo que la reunión fue útil ."
    sents = toks(text)
    rec = next(r for r in resolver.resolve("0", sents) if r.token == pronoun)
    assert sents[rec.best.sentence][rec.best.head] == antecedent
    assert rec.best.gender == ("masc" if pronoun == "él" else "fem") and rec.best.human is True


def test_resolve_output_is_well_formed(resolver, tmp_path):
    from coref.records import read_jsonl, write_jsonl

    sents = toks("los ciudadanos votaron por la ley .\nsus representantes la aprobaron y ellos la apoyan .")
    recs = resolver.resolve("3", sents)
    assert [r.token for r in recs] == ["sus", "la", "ellos", "la"]
    for r in recs:
        assert isinstance(r, PronounResolution) and r.referential and r.candidates
        assert sum(c.probability for c in r.candidates) == pytest.approx(1.0)
        # seed 003's rule: at least two, and beyond them only those with 1% of the best's probability
        probs = [c.probability for c in r.candidates]
        assert probs == sorted(probs, reverse=True) and len(probs) >= 2
        assert all(p >= 0.01 * probs[0] - 1e-9 for p in probs[2:])
        for c in r.candidates:
            assert (c.sentence, c.head) < (r.sentence, r.index)     # never cataphoric
            assert c.text == " ".join(sents[c.sentence][c.start:c.end])
    write_jsonl(recs, tmp_path / "es.jsonl")        # the shared record format validates it
    assert [r.token for r in read_jsonl(tmp_path / "es.jsonl")] == ["sus", "la", "ellos", "la"]
    only = type(resolver)(resolver.model, nlp=resolver.nlp, pronouns=("ellos",)).resolve("3", sents)
    assert [r.token for r in only] == ["ellos"]


def test_sites_clitics_only_where_tagged_pronoun(nlp):
    from coref.spanish.mentions import sites_of_sentence

    doc = _parse(nlp, "la ministra la vio y su hermano le habló de ellas .")[0]
    sites = {(s.index, s.word): s for s in sites_of_sentence(doc, 0)}
    assert set(sites) == {(2, "la"), (5, "su"), (7, "le"), (10, "ellas")}    # the article la is not one
    assert sites[(2, "la")].pclass == "acc" and (sites[(2, "la")].gender, sites[(2, "la")].number) == ("fem", "sing")
    assert sites[(5, "su")].role == "poss_subj"         # su hermano is the subject
    assert (sites[(10, "ellas")].gender, sites[(10, "ellas")].number) == ("fem", "plur")


def test_mentions_of_a_sentence(nlp):
    from coref.spanish.mentions import mentions_of_sentence

    doc = _parse(nlp, SEED003)[1]
    ms = {m.word: m for m in mentions_of_sentence(doc, 1)}
    assert set(ms) == {"escuela", "catedral"}
    # the preposition that UD hangs below the noun is not part of the mention
    cat = ms["catedral"]
    assert (cat.start, cat.end, cat.head) == (5, 7, 6) and cat.det == "def"
    assert (cat.gender, cat.number, cat.human, cat.kind) == ("fem", "sing", None, "noun")
    assert ms["escuela"].role == "subj" and ms["escuela"].det == "poss"
    first = {m.word: m for m in mentions_of_sentence(_parse(nlp, SEED003)[0], 0)}
    assert first["hermana"].human is True and first["hermana"].role == "subj"


def test_names_elided_subjects_and_relatives(nlp):
    from coref.spanish.mentions import mentions_of_sentence
    from coref.spanish.ranker import walk

    doc = _parse(nlp, "obama dijo que los países que firmaron el acuerdo lo cumplirán .")[0]
    ms = {m.word: m for m in mentions_of_sentence(doc, 0)}
    # case restored: a person's name, singular, human
    assert ms["obama"].kind == "propn" and ms["obama"].ent == "PER"
    assert (ms["obama"].number, ms["obama"].human) == ("sing", True)
    assert ms["que"].kind == "rel" and ms["que"].head == 5
    # the relative pronoun takes its noun's features while the document is read
    seen = {}

    def look(dec):
        seen.update({c.word: c for c in dec.candidates})
        return None, None, None

    walk([doc], look)
    assert (seen["que"].gender, seen["que"].number) == ("masc", "plur")
    assert seen["que"].entity == seen["países"].entity
    # an elided subject: a finite third-person verb without a subject
    zero = mentions_of_sentence(_parse(nlp, "llegaron tarde porque estaban cansados .")[0], 0)
    assert [(m.word, m.kind, m.number) for m in zero if m.kind == "zero"] == \
        [("llegaron", "zero", "plur"), ("estaban", "zero", "plur")]


def test_coordination_is_a_plural_mention_beside_its_first_conjunct(nlp):
    from coref.spanish.mentions import mentions_of_sentence

    doc = _parse(nlp, "la ministra y el presidente hablaron con francia y alemania .")[0]
    got = [(m.start, m.end, m.word, m.number, m.gender, m.human, m.coord) for m in mentions_of_sentence(doc, 0)]
    assert got == [(0, 2, "ministra", "sing", "fem", True, False), (0, 5, "ministra", "plur", "masc", True, True),
                   (3, 5, "presidente", "sing", "masc", True, False),
                   (7, 8, "francia", "sing", None, False, False), (7, 10, "francia", "plur", None, False, True),
                   (9, 10, "alemania", "sing", None, False, False)]


def test_lexicon_is_optional(nlp):
    from cad.lexicons.humanness import Entry, HumanLexicon
    from coref.spanish.mentions import mentions_of_sentence

    doc = _parse(nlp, "los inversores compraron las acciones de la empresa .")[0]
    no_lex = {m.word: m for m in mentions_of_sentence(doc, 0)}
    lex = HumanLexicon({"inversores": Entry(9, 1, 0.9), "empresa": Entry(0, 5, 0.1)})
    with_lex = {m.word: m for m in mentions_of_sentence(doc, 0, lex)}
    assert no_lex["inversores"].human is None and with_lex["inversores"].human is True
    assert no_lex["empresa"].human is None and with_lex["empresa"].human is False


def test_pair_features(nlp):
    from coref.spanish.features import pair_features
    from coref.spanish.mentions import mentions_of_sentence, site_of

    parsed = _parse(nlp, "la ministra y el presidente hablaron .\nella dijo que su país crecerá .")
    ms = {m.word: m for m in mentions_of_sentence(parsed[0], 0) if not m.coord}
    ella = site_of(parsed[1][0], 1)
    fem = pair_features(ella, ms["ministra"], parsed, 1, 1)
    masc = pair_features(ella, ms["presidente"], parsed, 0, 1)
    assert {"gen_match", "num_match", "sd=1", "hum=True", "crole=subj"} <= set(fem)
    assert "gen_clash" in masc and "gen_match|pers" not in masc
    assert all(f"{f}|pers" in fem for f in ("sd=1", "gen_match", "k=noun"))      # conjoined with the class
    # su marks the possessed noun (país), not the possessor: no agreement features, only conjunctions
    su = site_of(parsed[1][3], 1)
    f = pair_features(su, ms["ministra"], parsed, 0, 1)
    assert not {"gen_match", "gen_clash", "num_match", "num_clash"} & set(f)
    assert "pnum=sing|cnum=sing" in f
    # i-within-i, same sentence
    pais = {m.word: m for m in mentions_of_sentence(parsed[1], 1)}["país"]
    g = pair_features(su, pais, parsed, 0, 1)
    assert "contains_pronoun" in g and "sd=0" in g and any(x.startswith("path=") for x in g)


def _tiny_split(tmp_path, split="train"):
    """Two documents in the shared layout, with CorZu records (cased text, line numbers of the split)."""
    lines = ["Mi hermana va a la escuela .", "Su escuela está detrás de la catedral .",
             "El presidente recibió a la ministra .", "Ella dijo que su país crecerá ."]
    write(tmp_path / f"{split}.es", "\n".join(lines) + "\n")
    write(tmp_path / f"{split}.docs", "0\tdoc-a\n2\tdoc-b\n")

    def cand(s, start, end, head, text, g, n, anim):
        return {"sentence": s, "start": start, "end": end, "head": head, "text": text, "score": 2.0,
                "pos": "NC", "gender": g, "number": n, "animate": anim, "ne": "-"}

    hermana = cand(0, 0, 2, 1, "Mi hermana", "FEM", "SG", "ANIM")
    escuela = cand(0, 4, 6, 5, "la escuela", "FEM", "SG", "*")
    ministra = cand(2, 4, 6, 5, "la ministra", "FEM", "SG", "ANIM")
    presidente = cand(2, 0, 2, 1, "El presidente", "MASC", "SG", "ANIM")
    ella = cand(3, 0, 1, 0, "Ella", "FEM", "SG", "ANIM")
    recs = [
        {"doc": "doc-a", "sentence": 1, "index": 0, "token": "Su", "type": "possessive",
         "candidates": [hermana, escuela]},
        {"doc": "doc-b", "sentence": 3, "index": 0, "token": "Ella", "type": "personal",
         "candidates": [ministra, presidente]},
        {"doc": "doc-b", "sentence": 3, "index": 3, "token": "su", "type": "possessive",
         "candidates": [ella, ministra]},
    ]
    write(tmp_path / f"corzu.{split}.jsonl", "".join(json.dumps(r) + "\n" for r in recs))
    return tmp_path


def test_read_split_makes_sentences_document_relative(tmp_path):
    from coref.spanish.corzu import corzu_first, read_split

    docs = read_split(_tiny_split(tmp_path), "train")
    assert [(d.doc_id, d.first_line, len(d.sentences)) for d in docs] == [("doc-a", 0, 2), ("doc-b", 2, 2)]
    assert sorted(docs[1].corzu) == [(1, 0), (1, 3)]
    assert corzu_first(docs[1].corzu[(1, 0)])["sentence"] == 0
    assert [d.doc_id for d in read_split(tmp_path, "train", 1, skip=1)] == ["doc-b"]


def test_train_and_evaluate_end_to_end(nlp, tmp_path):
    from coref.spanish.evaluate import main as eval_main
    from coref.spanish.train import main

    data = _tiny_split(tmp_path)
    _tiny_split(tmp_path, "dev")
    model = tmp_path / "es.json.gz"
    assert main(["--data", str(data), "--docs", "0", "--out", str(model), "--lexicon", "none",
                 "--min-count", "1", "--truecase-min-count", "1", "-q"]) == 0
    m = SpanishModel.load(model)
    assert m.info["ranking_groups"] == 3 and m.lexicon == {}
    report = tmp_path / "report.json"
    assert eval_main(["--data", str(data), "--model", str(model), "--report", str(report), "-q"]) == 0
    figs = json.loads(report.read_text())
    assert set(figs) == {"model", "nearest_np", "nearest_mention"}
    assert figs["model"]["all"]["corzu_pronouns"] == 3 and figs["model"]["all"]["coverage_found"] == 1.0
    assert figs["model"]["all"]["head"] == 1.0          # learned on the same three pronouns
    assert figs["nearest_np"]["all"]["head"] < 1.0        # su -> Ella is no noun phrase
    assert main(["--data", str(tmp_path / "nowhere"), "--out", str(model), "-q"]) == 1
