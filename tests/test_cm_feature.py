"""The class CM: pronoun classes, Witten-Bell estimation, mixtures, the CoreferenceModel decoder
feature, the class reranker, and feature-mode document translation."""

import json
import math

import pytest

from cad import defaults as D
from cad.cm.class_model import ClassTable, antecedent_distribution, coarser, pronoun_mixture, score_class
from cad.cm.classes import pronoun_class
from cad.lang import NONE, OTHER
from cad.lang.fr import TARGET_CLASSES as CLASSES
from cad.cm.config import FEATURE_NAME, feature_config
from cad.cm.feature import CoreferenceModelFeature, option_class
from cad.decoder import Decoder, DecoderModel
from cad.decoder.registry import FeatureSlot
from cad.decoder.options import TranslationOption
from cad.moses.ini import Feature, baseline_config, write_config
from coref.records import Candidate, PronounResolution


def test_pronoun_classes():
    assert pronoun_class(["c'"]) == pronoun_class(["ce"]) == "ce"
    assert pronoun_class(["cela"]) == pronoun_class(["ça"]) == "ça"
    assert pronoun_class(["qu'", "il"]) == "il"          # the first word that is a pronoun of the list
    assert pronoun_class(["Elle"]) == "elle"
    assert pronoun_class(["souris"]) == OTHER
    assert pronoun_class([]) == NONE


def test_witten_bell_by_hand():
    table = ClassTable.estimate({"it-subj-fem-sing": {"elle": 2.0, "ce": 1.0}, "it-obj-nonref": {NONE: 1.0}})
    u = 1.0 / len(CLASSES)
    # root "it": c = 4 over 3 classes, T = 3, on the uniform distribution
    p_it = {"elle": (2 + 3 * u) / 7, "ce": (1 + 3 * u) / 7, NONE: (1 + 3 * u) / 7, "il": 3 * u / 7}
    for c, p in p_it.items():
        assert table.prob("it", c) == pytest.approx(p)
    # it-subj: c = 3 over 2 classes, T = 2, on P(.|it)
    assert table.prob("it-subj", "elle") == pytest.approx((2 + 2 * p_it["elle"]) / 5)
    assert table.prob("it-subj", "il") == pytest.approx(2 * p_it["il"] / 5)
    p_subj = table.distribution("it-subj")
    p_fem = {c: (2 * p_subj[c] + {"elle": 2, "ce": 1}.get(c, 0)) / 5 for c in CLASSES}
    assert table.prob("it-subj-fem", "ce") == pytest.approx(p_fem["ce"])
    assert table.prob("it-subj-fem-sing", "elle") == pytest.approx((2 + 2 * p_fem["elle"]) / 5)
    for b in table.probs:
        assert sum(table.distribution(b).values()) == pytest.approx(1.0)
    # unseen bundles back off to the nearest seen ancestor: it-subj-masc-sing -> it-subj
    assert table.distribution("it-subj-masc-sing") == table.distribution("it-subj")
    assert table.distribution("they-subj") == {}
    assert coarser("it-subj-fem-sing") == "it-subj-fem" and coarser("it") is None


def test_table_round_trip(tmp_path):
    table = ClassTable.estimate({"they-subj-fem-plur": {"elles": 3.0, "ils": 1.0}})
    table.write(tmp_path / "classes.gz")
    back = ClassTable.read(tmp_path / "classes.gz")
    assert back.prob("they-subj-fem-plur", "elles") == pytest.approx(table.prob("they-subj-fem-plur", "elles"), rel=1e-5)
    (tmp_path / "bad").write_text("it-subj ||| lui-meme ||| 0.5\n")
    from cad.core.errors import CadError

    with pytest.raises(CadError, match="bad:1"):
        ClassTable.read(tmp_path / "bad")


def rec(anaphoricity, cands, token="it"):
    return PronounResolution("d", 1, 0, token, True,
                             [Candidate(s, a, b, a, "", p, kind=k) for s, a, b, p, k in cands], anaphoricity)


def test_mixture_from_anaphoricity_and_candidates():
    r = rec(0.8, [(0, 2, 4, 0.75, "np"), (0, 5, 6, 0.25, "event")])
    mix = pronoun_mixture(r, "subj", lambda c: {("fem", "sing"): 1.0})
    assert mix == pytest.approx({"it-subj-nonref": 0.2, "it-subj-fem-sing": 0.6, "it-subj-event": 0.2})
    # a candidate whose translation says nothing: the coarse bundle
    assert pronoun_mixture(rec(None, [(0, 2, 4, 1.0, "np")]), "cop", lambda c: {None: 1.0}) == {"it-cop": 1.0}
    # gold records without anaphoricity: referential False is all nonref
    nonref = PronounResolution("d", 0, 0, "it", False, [])
    assert pronoun_mixture(nonref, "cop", lambda c: {}) == {"it-cop-nonref": 1.0}
    # a pronoun antecedent passes on its own antecedents' gender and number (not its nonref or
    # clause shares, which say nothing of an entity)
    assert antecedent_distribution(mix) == pytest.approx({("fem", "sing"): 1.0})
    both = {"it-subj-fem-sing": 0.3, "it-subj-masc-sing": 0.1, "it-subj": 0.1, "it-subj-nonref": 0.5}
    assert antecedent_distribution(both) == pytest.approx({("fem", "sing"): 0.6, ("masc", "sing"): 0.2, None: 0.2})


def feature_with(table, pronouns):
    f = CoreferenceModelFeature(FeatureSlot("CM", "CoreferenceModel", 0, 1, [1.0]),
                                Feature("CoreferenceModel", "CM"), table=table)
    f.begin_sentence(["and", "it", "was", "dead"], {"pronouns": pronouns})
    return f


def option(start, end, words, alignment, table=0):
    return TranslationOption(start, end, tuple(words), table, (), tuple(alignment), None)


def test_feature_value_for_hand_made_options():
    table = ClassTable({"it-cop-fem-sing": {"elle": 0.5, "ce": 0.3, NONE: 0.2},
                        "it-cop-nonref": {"elle": 0.1, "ce": 0.6, NONE: 0.3}})
    f = feature_with(table, {1: {"it-cop-fem-sing": 1.0}})
    # a phrase containing the pronoun: "it was" -> "elle était"
    assert f.evaluate(option(1, 3, ["elle", "était"], [(0, 0), (1, 1)])) == pytest.approx((math.log(0.5),))
    # the pronoun left unaligned inside the phrase: NONE
    assert f.evaluate(option(1, 3, ["était"], [(1, 0)])) == pytest.approx((math.log(0.2),))
    # a phrase not covering it scores nothing
    assert f.evaluate(option(2, 4, ["était", "mort"], [(0, 0), (1, 1)])) is None
    # a mixture of bundles: ln(0.7 * 0.3 + 0.3 * 0.6)
    f = feature_with(table, {1: {"it-cop-fem-sing": 0.7, "it-cop-nonref": 0.3}})
    assert f.evaluate(option(0, 2, ["et", "c'"], [(0, 0), (1, 1)])) == pytest.approx((math.log(0.7 * 0.3 + 0.3 * 0.6),))
    # a class the table gives nothing to: the floor, not -inf
    assert f.evaluate(option(1, 2, ["il"], [(0, 0)]))[0] == pytest.approx(math.log(1e-7))
    # no context: nothing
    f.begin_sentence(["it"], None)
    assert f.evaluate(option(0, 1, ["il"], [(0, 0)])) is None
    assert option_class(option(0, 1, ["it"], [(0, 0)], table=-1), 0, ["it"]) == OTHER


def tiny_model(tmp_path, cm_weight):
    """it -> il (favoured by the phrase table) or elle; the CM decides when given a bundle."""
    from cad.lm.arpa import write_arpa
    from cad.lm.kneser_ney import estimate

    (tmp_path / "pt").write_text("it ||| il ||| 0.7 0.7 0.7 0.7 ||| 0-0\nit ||| elle ||| 0.3 0.3 0.3 0.3 ||| 0-0\n"
                                 "sleeps ||| dort ||| 1 1 1 1 ||| 0-0\n"
                                 "it sleeps ||| il dort ||| 0.6 0.6 0.6 0.6 ||| 0-0 1-1\n"
                                 "the mouse ||| la souris ||| 1 1 1 1 ||| 0-0 1-1\n"
                                 "the cat ||| le chat ||| 1 1 1 1 ||| 0-0 1-1\n"
                                 "runs ||| court ||| 1 1 1 1 ||| 0-0\n")
    write_arpa(estimate([["il", "dort"], ["elle", "dort"], ["la", "souris", "court"], ["le", "chat", "court"]], 2),
               tmp_path / "lm.arpa")
    cfg = baseline_config(str(tmp_path / "pt"), None, str(tmp_path / "lm.arpa"), 2, table_limit=0)
    write_config(cfg, tmp_path / "base.ini")
    ClassTable({"it-subj-fem-sing": {"elle": 0.9, "il": 0.05, NONE: 0.05},
                "it-subj-masc-sing": {"il": 0.9, "elle": 0.05, NONE: 0.05}}).write(tmp_path / "classes.gz")
    write_config(feature_config(tmp_path / "base.ini", tmp_path / "classes.gz", cm_weight), tmp_path / "cm.ini")
    return DecoderModel.load(tmp_path / "cm.ini")


def test_decoder_feature_changes_the_pronoun_and_reports_its_score(tmp_path):
    model = tiny_model(tmp_path, 2.0)
    dec = Decoder(model)
    assert dec.translate("it sleeps").text == "il dort"
    fem = {"pronouns": {0: {"it-subj-fem-sing": 1.0}}}
    tr = dec.translate("it sleeps", context=fem, nbest=5)
    assert tr.text == "elle dort"
    assert tr.feature_dict()[FEATURE_NAME] == pytest.approx([math.log(0.9)])
    # the total is the weighted sum of the reported features, the CM included
    assert tr.best.total == pytest.approx(sum(w * v for w, v in zip(model.weights(), tr.best.features)))
    # every n-best entry carries its own CM score: "il dort" pays ln 0.05
    il = [d for d in tr.nbest if d.text == "il dort"]
    offset = next(s.offset for s in model.slots if s.name == FEATURE_NAME)
    assert il and il[0].features[offset] == pytest.approx(math.log(0.05))
    masc = {"pronouns": {0: {"it-subj-masc-sing": 1.0}}}
    assert dec.translate("it sleeps", context=masc).text == "il dort"
    # weight 0: the CM changes nothing
    assert Decoder(tiny_model(tmp_path, 0.0)).translate("it sleeps", context=fem).text == "il dort"


def test_decoder_with_the_map_reading_from_moses_ini(tmp_path):
    model = tiny_model(tmp_path, 2.0)
    # an antecedent of uncertain gender: the mixture gives elle .45 * .9 + .4 * .05 = .425 against
    # il's .3825, too little against the phrase table's il; its likeliest bundle alone decides
    uncertain = {"pronouns": {0: {"it-subj-fem-sing": 0.45, "it-subj-masc-sing": 0.4, "it-subj-nonref": 0.15}}}
    assert Decoder(model).translate("it sleeps", context=uncertain).text == "il dort"
    write_config(feature_config(tmp_path / "base.ini", tmp_path / "classes.gz", 2.0, reading="map"),
                 tmp_path / "map.ini")
    tr = Decoder(DecoderModel.load(tmp_path / "map.ini")).translate("it sleeps", context=uncertain)
    assert tr.text == "elle dort"
    assert tr.feature_dict()[FEATURE_NAME] == pytest.approx([math.log(0.9)])


def test_cli_config_writes_the_reading(tmp_path, capsys):
    from cad.cli import main

    tiny_model(tmp_path, 2.0)
    args = ["-q", "cm", "config", "--mode", "feature", "--base", str(tmp_path / "base.ini"),
            "--cm", str(tmp_path / "classes.gz"), "--out", str(tmp_path / "out.ini")]
    assert main(args + ["--reading", "map"]) == 0
    text = (tmp_path / "out.ini").read_text()
    assert "reading=map" in text and "objective=" not in text          # likelihood, the decoder's default
    assert main(args + ["--reading", "map", "--objective", "credit"]) == 0
    assert "objective=credit reading=map" in (tmp_path / "out.ini").read_text()
    # the line's implicit reading (mixture) is left out, as in every configuration written before
    assert main(args + ["--reading", "mixture"]) == 0
    assert "reading=" not in (tmp_path / "out.ini").read_text()
    # without --reading or --objective: the pipeline's, make's CM_READING and CM_OBJECTIVE (cad/defaults.py),
    # each left out where it is the line's implicit value
    assert main(args) == 0
    line = next(x for x in (tmp_path / "out.ini").read_text().splitlines() if x.startswith("CoreferenceModel "))
    assert f"reading={D.CM_READING}" in line and D.CM_READING != D.CM_IMPLICIT_READING
    assert ("objective=" not in line) == (D.CM_OBJECTIVE == D.CM_IMPLICIT_OBJECTIVE)
    with pytest.raises(SystemExit) as e:
        main(args + ["--reading", "vote"])
    assert e.value.code == 2 and "invalid choice: 'vote'" in capsys.readouterr().err


def test_class_reranker_picks_by_hand_computed_score():
    from cad.translate.rerank import ClassReranker, Hypothesis

    table = ClassTable({"it-subj-fem-sing": {"elle": 0.8, "il": 0.1, NONE: 0.1},
                        "it-subj": {"elle": 0.3, "il": 0.6, NONE: 0.1}})
    src = [["the", "mouse", "runs", "."], ["it", "sleeps", "."]]
    first = [Hypothesis(["la", "souris", "court", "."], 0.0, [(0, 0), (1, 1), (2, 2), (3, 3)])]
    second = [Hypothesis(["il", "dort", "."], -1.0, [(0, 0), (1, 1), (2, 2)]),
              Hypothesis(["elle", "dort", "."], -1.5, [(0, 0), (1, 1), (2, 2)])]
    r = PronounResolution("d", 1, 0, "it", True, [Candidate(0, 0, 2, 1, "the mouse", 1.0)], 1.0)
    roles = {(1, 0): "subj"}
    # il: -1.0 + w ln 0.1; elle: -1.5 + w ln 0.8 -> elle wins iff w > 0.5 / ln 8 = 0.240
    for w, expected in ((0.2, 0), (0.3, 1)):
        chosen, traces = ClassReranker(table, w).rerank_document([first, second], [r], src, roles=roles)
        assert traces[1].chosen == expected
        assert traces[1].cm_scores == pytest.approx([math.log(0.1), math.log(0.8)])


def test_feature_mode_document_reads_the_antecedent_from_the_previous_translation(tmp_path):
    from cad.translate.passes import translate_document_feature

    pytest.importorskip("spacy")
    dec = Decoder(tiny_model(tmp_path, 2.0))
    for antecedent, expected in (("mouse", "elle"), ("cat", "il")):
        sents = [["the", antecedent, "runs"], ["it", "sleeps"], ["it", "sleeps"]]
        recs = [PronounResolution("d", 1, 0, "it", True, [Candidate(0, 0, 2, 1, f"the {antecedent}", 1.0)], 1.0),
                # the second *it* points at the first: the chain passes the gender on
                PronounResolution("d", 2, 0, "it", True, [Candidate(1, 0, 1, 0, "it", 1.0)], 1.0)]
        trs, traces = translate_document_feature(dec, "d", sents, recs)
        assert [t.text.split()[0] for t in trs[1:]] == [expected, expected]
        # both animals: WordNet's animacy is the bundle's finest part
        assert traces[0].features == f"it-subj-{'fem' if expected == 'elle' else 'masc'}-sing-anim"
        assert traces[1].bundles == traces[0].bundles
        # the trace says what the antecedent was read as, from which source, and in which pass:
        # *souris* has both genders in the lexicon, so its article decides; *chat* is masculine there
        word, source = ("souris", "determiner") if expected == "elle" else ("chat", "lexicon")
        assert [(t.pass_, t.antecedent_translation, t.gender_source) for t in traces] == [("inter", word, source)] * 2


def articleless_model(tmp_path):
    """*the mouse* -> *souris* without its article, as the 33k model translates a sentence that
    opens with it (*The mouse ran away.* -> *Souris enfui en courant.*)."""
    from cad.lm.arpa import write_arpa
    from cad.lm.kneser_ney import estimate

    (tmp_path / "pt").write_text("the mouse ||| souris ||| 1 1 1 1 ||| 1-0\n"
                                 "ran away ||| enfui en courant ||| 1 1 1 1 ||| 0-0 1-1 1-2\n"
                                 ". ||| . ||| 1 1 1 1 ||| 0-0\n"
                                 "it ||| c' ||| 0.6 0.6 0.6 0.6 ||| 0-0\nit ||| elle ||| 0.4 0.4 0.4 0.4 ||| 0-0\n"
                                 "was fast ||| était rapide ||| 1 1 1 1 ||| 0-0 1-1\n")
    write_arpa(estimate([["souris", "enfui", "en", "courant", "."], ["c'", "était", "rapide", "."],
                         ["elle", "était", "rapide", "."]], 2), tmp_path / "lm.arpa")
    cfg = baseline_config(str(tmp_path / "pt"), None, str(tmp_path / "lm.arpa"), 2, table_limit=0)
    write_config(cfg, tmp_path / "base.ini")
    ClassTable({"it-copa": {"ce": 0.6, "elle": 0.3, NONE: 0.1},
                "it-copa-fem-sing": {"elle": 0.9, "ce": 0.05, NONE: 0.05}}).write(tmp_path / "classes.gz")
    write_config(feature_config(tmp_path / "base.ini", tmp_path / "classes.gz", 1.0), tmp_path / "cm.ini")
    return DecoderModel.load(tmp_path / "cm.ini")


def test_an_antecedent_opening_its_sentence_is_named_in_the_trace(tmp_path, lexicons):
    """The antecedent opens the first sentence and is translated without its article: the tagger
    reads the lowercased *souris* at the start of the sentence as an adjective, and the lexicon
    gives *souris* both genders, so no gender is read and the bundle stays without one; the trace
    still names what the antecedent became (it was empty)."""
    from cad.translate.backoff import translate_document
    from cad.translate.passes import translate_document_feature

    pytest.importorskip("spacy")
    dec = Decoder(articleless_model(tmp_path))
    sents = [["the", "mouse", "ran", "away", "."], ["it", "was", "fast", "."]]
    recs = [PronounResolution("d", 1, 0, "it", True, [Candidate(0, 0, 2, 1, "The mouse", 1.0)], 1.0)]
    trs, traces = translate_document_feature(dec, "d", sents, recs, roles={(1, 0): "copa"})
    assert trs[0].text == "souris enfui en courant ."
    (t,) = traces
    assert (t.pass_, t.antecedent, t.antecedent_translation, t.gender_source) == ("inter", "The mouse", "souris", None)
    assert t.features == "it-copa" and t.target == "c'"
    # the chain: a second *it* names the noun too
    sents.append(["it", "was", "fast", "."])
    recs.append(PronounResolution("d", 2, 0, "it", True, [Candidate(1, 0, 1, 0, "it", 1.0)], 1.0))
    _, traces = translate_document_feature(dec, "d", sents, recs, roles={(1, 0): "copa", (2, 0): "copa"})
    assert [t.antecedent_translation for t in traces] == ["souris", "souris"]
    # seed 004's back-off mode names it as well, with no feature token read from it
    _, traces = translate_document(dec, "d", sents[:2], recs[:1])
    assert (traces[0].antecedent_translation, traces[0].features) == ("souris", None)


def test_a_pronoun_chain_inside_one_sentence_follows_the_noun_not_the_first_pass(tmp_path):
    """*the mouse runs it sleeps it sleeps*: both *it* in the noun's sentence. The first pass
    translates the first *it* before its antecedent is read (*il*, the table's favourite); the
    second *it*, whose antecedent is the first, must take the chain's gender (*souris*), not that
    uninformed *il* (seed 004's *it was not dead but it was wounded*)."""
    from cad.translate.passes import translate_document_feature

    pytest.importorskip("spacy")
    dec = Decoder(tiny_model(tmp_path, 2.0))
    for antecedent, expected in (("mouse", "elle"), ("cat", "il")):
        sents = [["the", antecedent, "runs", "it", "sleeps", "it", "sleeps"]]
        recs = [PronounResolution("d", 0, 3, "it", True, [Candidate(0, 0, 2, 1, f"the {antecedent}", 1.0)], 1.0),
                PronounResolution("d", 0, 5, "it", True, [Candidate(0, 3, 4, 3, "it", 1.0)], 1.0)]
        trs, traces = translate_document_feature(dec, "d", sents, recs, roles={(0, 3): "subj", (0, 5): "subj"})
        words = trs[0].text.split()
        assert (words[3], words[5]) == (expected, expected)
        assert traces[1].features == traces[0].features
        assert [t.pass_ for t in traces] == ["intra", "intra"]


def test_forced_decoding_reaches_given_targets_and_scores_them(tmp_path):
    model = tiny_model(tmp_path, 2.0)
    dec = Decoder(model)
    fem = {"pronouns": {0: {"it-subj-fem-sing": 1.0}}}
    free = dec.translate("it sleeps", context=fem)
    forced = dec.force("it sleeps", "elle dort", context=fem)
    assert forced.text == "elle dort" and forced.best.total == pytest.approx(free.best.total)
    il = dec.force("it sleeps", "il dort", context=fem)
    assert il.text == "il dort" and il.best.total < forced.best.total
    assert il.best.total == pytest.approx(sum(w * v for w, v in zip(model.weights(), il.best.features)))
    assert dec.force("it sleeps", "elle court") is None          # unreachable
    assert dec.force("it sleeps", "elle dort dort") is None
    # the decoder is left as it was
    assert dec.translate("it sleeps").text == "il dort" and model.settings.search_algorithm == 0


def test_forced_decoding_reaches_any_target_with_penalized_options(tmp_path):
    """reach=True: a target word the phrase table never produces (court) comes from a penalized
    one-word option, scored as an unknown word (-100 times UnknownWordPenalty's weight) and by
    every other feature; a target the real options reach keeps its derivation and score."""
    model = tiny_model(tmp_path, 2.0)
    dec = Decoder(model)
    fem = {"pronouns": {0: {"it-subj-fem-sing": 1.0}}}
    for target in ("elle dort", "il dort"):
        plain = dec.force("it sleeps", target, context=fem)
        again = dec.force("it sleeps", target, context=fem, reach=True)
        assert again.best.total == plain.best.total and again.best.features == plain.best.features
    tr = dec.force("it sleeps", "elle court", context=fem, reach=True)
    assert tr.text == "elle court"
    assert [(s.src_start, s.words, s.table) for s in tr.best.steps] == [(0, ("elle",), 0), (1, ("court",), -1)]
    f = tr.feature_dict()
    lm = model.lm.score_words(model.lm.begin(), ("elle", "court", "</s>"))[0]
    assert f["UnknownWordPenalty0"] == [-100.0] and f["WordPenalty0"] == [-2.0] and f["PhrasePenalty0"] == [2.0]
    assert f["TranslationModel0"] == pytest.approx([math.log(0.3)] * 4)          # elle's entry only
    assert f["LM0"] == pytest.approx([lm]) and f[FEATURE_NAME] == pytest.approx([math.log(0.9)])
    assert tr.best.total == pytest.approx(sum(w * v for w, v in zip(model.weights(), tr.best.features)))
    # the pronoun itself from a penalized option: the CM reads the class of its words (ça)
    ca = dec.force("it sleeps", "ça dort", context=fem, reach=True)
    cm = next(f for f in model.stateless if isinstance(f, CoreferenceModelFeature))
    dist = cm.table.class_distribution({"it-subj-fem-sing": 1.0}, ["it", "sleeps"], 0)
    assert ca.feature_dict()[FEATURE_NAME] == pytest.approx([score_class(dist, "ça", cm.objective)])
    assert score_class(dist, "ça", cm.objective) < score_class(dist, "elle", cm.objective)
    # a word left by nothing: one penalty; a penalized option pays one per target word, as that
    # many unknown words would (dort dort from sleeps: two)
    assert dec.force("it sleeps", "elle", context=fem, reach=True).feature_dict()["UnknownWordPenalty0"] == [-100.0]
    two = dec.force("it sleeps", "elle dort dort", reach=True)
    assert two.text == "elle dort dort" and two.feature_dict()["UnknownWordPenalty0"] == [-200.0]
    assert two.best.total == pytest.approx(sum(w * v for w, v in zip(model.weights(), two.best.features)))
    assert dec.translate("it sleeps").text == "il dort" and dec._constraint is None
    # the penalized search's own pruning (no threshold, a smaller stack) is the model's again after
    assert (model.settings.stack, model.settings.beam_threshold) == (200, 0.00001)


def test_penalized_search_pays_one_penalty_per_target_word_of_a_penalized_option(tmp_path):
    """Any target over a small vocabulary is reached; UnknownWordPenalty is -100 for each target
    word of a penalized option (and for an option of nothing), the total is the weighted sum of the
    reported features, and a word that no phrase of the source can give costs at least a penalty."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    model = tiny_model(tmp_path, 2.0)
    dec = Decoder(model)
    producible = {"it sleeps": {"il", "elle", "dort"}, "it sleeps now": {"il", "elle", "dort"},
                  "the cat runs": {"le", "chat", "court"}}

    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(st.sampled_from(sorted(producible)),
           st.lists(st.sampled_from(["il", "elle", "dort", "court", "le", "chat", "x"]), min_size=1, max_size=5))
    def check(source, words):
        target = " ".join(words)
        tr = dec.force(source, target, reach=True)
        assert tr is not None and tr.text == target
        paid = sum(max(1, len(st_.words)) for st_ in tr.best.steps if st_.table < 0)      # by hand, not the helper
        assert tr.feature_dict()["UnknownWordPenalty0"] == [-100.0 * paid]
        assert tr.best.total == pytest.approx(sum(w * v for w, v in zip(model.weights(), tr.best.features)))
        assert paid >= sum(w not in producible[source] for w in words)

    check()


def suite_file(tmp_path):
    import json

    lines = []
    for k, (ctx_src, ctx_tgt, correct) in enumerate((("the mouse runs", "la souris court", 0),
                                                     ("the cat runs", "le chat court", 1))):
        lines.append(json.dumps({"id": f"t{k}", "context": [{"source": ctx_src, "target": ctx_tgt}],
                                 "source": "it sleeps", "targets": ["elle dort", "il dort"], "correct": correct}))
    (tmp_path / "suite.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path / "suite.jsonl"


def test_contrastive_scoring_in_context(tmp_path):
    pytest.importorskip("spacy")
    from cad.experiments.contrastive import ContextScorer, read_suite, score_suite
    from coref.backends import get_backend

    items = read_suite(suite_file(tmp_path))
    # context-blind (CM weight 0): the twin items share their targets, so exactly one is right
    blind, summary = score_suite(ContextScorer(Decoder(tiny_model(tmp_path, 0.0)), get_backend("ranker")), items)
    assert summary["accuracy"] == 0.5 and summary["forced"] == 2
    assert blind[0].scores == pytest.approx(blind[1].scores)
    results, summary = score_suite(ContextScorer(Decoder(tiny_model(tmp_path, 2.0)), get_backend("ranker")), items)
    assert summary["accuracy"] == 1.0
    assert [r.best for r in results] == [0, 1] and [r.classes for r in results] == [["elle", "il"]] * 2
    # the CM moved each score by 2 ln(a P(class | bundle)), the antecedent read from the given
    # context (a: the anaphoricity, nearly the same in both items): for *elle*, 2 ln(0.9 / 0.05) apart
    moved = [r.scores[0] - b.scores[0] for r, b in zip(results, blind)]
    assert moved[0] - moved[1] == pytest.approx(2 * math.log(0.9 / 0.05), abs=0.01)


def test_contrastive_suite_errors(tmp_path):
    from cad.experiments.contrastive import read_suite
    from cad.core.errors import CadError

    (tmp_path / "bad.jsonl").write_text('{"source": "it sleeps", "targets": ["il dort"], "correct": 3}\n')
    with pytest.raises(CadError, match="bad.jsonl:1.*correct=3"):
        read_suite(tmp_path / "bad.jsonl")
    (tmp_path / "bad2.jsonl").write_text('{"source": "it sleeps"}\n')
    with pytest.raises(CadError, match="bad2.jsonl:1.*not a suite item"):
        read_suite(tmp_path / "bad2.jsonl")


def test_shipped_suite_is_balanced_twins():
    """Each source with its two targets appears twice, once per gender of the antecedent, the
    correct target alternating: a context-blind scorer gets exactly half."""
    from importlib.resources import files

    from cad.experiments.contrastive import read_suite

    items = read_suite(files("cad") / "data" / "contrastive-en-fr.jsonl")
    assert len(items) >= 30
    for a, b in zip(items[::2], items[1::2]):
        assert (a.source, a.targets) == (b.source, b.targets) and {a.correct, b.correct} == {0, 1}


def test_em_moves_ambiguous_pronouns_to_the_agreeing_antecedent():
    fem, masc = "it-subj-fem-sing", "it-subj-masc-sing"
    instances = [({fem: 0.5, masc: 0.5}, "elle")] + [({fem: 1.0}, "elle")] * 3 + [({masc: 1.0}, "il")] * 3
    plain = ClassTable.estimate_em(instances, 0)
    assert plain.counts[masc] == pytest.approx(3.5)            # seed 003: the prior weights as counts
    one = ClassTable.estimate_em(instances, 1)
    q = plain.prob(fem, "elle") / (plain.prob(fem, "elle") + plain.prob(masc, "elle"))   # posterior of fem
    assert q > 0.5
    assert one.counts[fem] == pytest.approx(3 + q) and one.counts[masc] == pytest.approx(3 + 1 - q)
    many = ClassTable.estimate_em(instances, 10)
    assert many.prob(masc, "elle") < one.prob(masc, "elle") < plain.prob(masc, "elle")
    assert many.prob(fem, "elle") > plain.prob(fem, "elle")


def test_option_class_recovers_unaligned_clitics_as_apt_does():
    tokens = ["we", "kill", "it", "now"]
    # eflomal leaves *it* unaligned in *la tuer*: APT's improvement finds *la* beside *tuer*
    kill_it = option(1, 3, ["la", "tuer"], [(0, 1)])
    assert option_class(kill_it, 2, tokens) == "la"
    f = feature_with(ClassTable({"it-obj-fem-sing": {"la": 0.6, NONE: 0.4}}), {})
    f.begin_sentence(tokens, {"pronouns": {2: {"it-obj-fem-sing": 1.0}}})
    assert f.evaluate(kill_it) == pytest.approx((math.log(0.6),))
    # really dropped: nothing to find
    assert f.evaluate(option(1, 3, ["tuer"], [(0, 0)])) == pytest.approx((math.log(0.4),))


def test_a_passive_read_through_on_is_its_object_clitic():
    """*it was sold* → *on l'a vendu*: the aligner puts *it* on *on*, the agent French gives the
    passive; the thing sold is *l'*, which the CM reads, in training and on an option alike."""
    from cad.cm.classes import aligned_words

    src = ["and", "it", "was", "sold", "."]
    assert aligned_words(src, "et on l' a vendu .".split(), [(0, 0), (1, 1), (2, 3), (3, 4)], 1) == ["l'"]
    assert aligned_words(src, "et on ne l' a pas vendu .".split(), [(1, 1)], 1) == ["l'"]
    # *on* with no clitic after it, and *on* beside another word aligned to *it*: as they are
    assert aligned_words(src, "et on a vendu .".split(), [(1, 1)], 1) == ["on"]
    assert aligned_words(src, "on le voit .".split(), [(1, 0), (1, 2)], 1) == ["on", "voit"]
    sold = option(1, 4, ["on", "l'", "a", "vendu"], [(0, 0), (1, 2), (2, 3)])
    assert option_class(sold, 1, src) == "l'"


def test_a_clitic_before_the_auxiliary_is_the_object_it_became():
    """*I fixed it* → *je l'ai réparé*: the aligner puts *I* on *ai*, *fixed* on *réparé* and leaves
    *l'* alone, where APT's improvement looks one word around *réparé*; the CM reads the clitic over
    the verb group (auxiliaries, negation, other clitics), in training and on an option alike."""
    from cad.cm.classes import aligned_words

    src = ["I", "fixed", "it", "."]
    assert aligned_words(src, "je l' ai réparé .".split(), [(0, 2), (1, 3), (3, 4)], 2) == ["l'"]
    # the negation around the auxiliary, another clitic after the object's, an inverted auxiliary
    assert aligned_words(src, "je ne l' ai pas réparé .".split(), [(0, 0), (1, 5), (3, 6)], 2) == ["l'"]
    assert aligned_words(src, "je le lui ai donné .".split(), [(0, 0), (1, 4), (3, 5)], 2) == ["le"]
    assert aligned_words(["did", "you", "fix", "it", "?"], "l' avez-vous réparé ?".split(),
                         [(0, 1), (1, 1), (2, 2), (4, 3)], 3) == ["l'"]
    # a clitic aligned to another source word, or a word that is no part of a verb group between: nothing
    assert aligned_words(src, "je l' ai réparé .".split(), [(0, 1), (1, 3), (3, 4)], 2) == []
    assert aligned_words(src, "je la voiture réparé .".split(), [(1, 3), (3, 4)], 2) == []
    # the word before the pronoun unaligned: no verb to start from
    assert aligned_words(["we", "use", "it", "."], "nous l' utilisons .".split(), [(0, 0), (3, 3)], 2) == []
    fixed = option(1, 3, ["l'", "ai", "réparé"], [(0, 2)])
    assert option_class(fixed, 2, src) == "l'"


def test_translate_cli_modes(tmp_path, capsys):
    pytest.importorskip("spacy")
    from cad.cli import main

    tiny_model(tmp_path, 2.0)
    (tmp_path / "doc.en").write_text("the mouse runs\nit sleeps\n")
    args = ["-q", "translate", "--input", str(tmp_path / "doc.en"), "--out", str(tmp_path / "out")]
    assert main(args + ["--config", str(tmp_path / "cm.ini"), "--cm-mode", "feature"]) == 0
    assert (tmp_path / "out").read_text() == "la souris court\nelle dort\n"
    # the same CM by reranking the baseline's n-best lists
    assert main(args + ["--config", str(tmp_path / "base.ini"), "--cm-mode", "rerank",
                        "--classes", str(tmp_path / "classes.gz"), "--cm-weight", "2"]) == 0
    assert (tmp_path / "out").read_text() == "la souris court\nelle dort\n"
    assert main(args + ["--config", str(tmp_path / "base.ini"), "--cm-mode", "rerank", "--reading", "map",
                        "--classes", str(tmp_path / "classes.gz"), "--cm-weight", "2"]) == 0
    assert (tmp_path / "out").read_text() == "la souris court\nelle dort\n"
    with pytest.raises(SystemExit):
        main(args + ["--config", str(tmp_path / "base.ini"), "--cm-mode", "rerank", "--reading", "vote",
                     "--classes", str(tmp_path / "classes.gz")])
    assert main(args + ["--config", str(tmp_path / "base.ini"), "--system", "baseline", "--trace",
                        str(tmp_path / "bl.trace")]) == 0
    assert (tmp_path / "out").read_text() == "la souris court\nil dort\n"
    # the baseline's trace: the same pronoun, its antecedent and what it became, beside the CM's
    assert main(args + ["--config", str(tmp_path / "cm.ini"), "--trace", str(tmp_path / "cm.trace")]) == 0
    bl, cm = (json.loads((tmp_path / f"{n}.trace").read_text()) for n in ("bl", "cm"))
    assert (bl["sentence"], bl["index"], bl["antecedent"]) == (cm["sentence"], cm["index"], cm["antecedent"]) \
        == (1, 0, "the mouse")
    assert (bl["target"], bl["target_class"], cm["target"]) == ("il", "il", "elle")
    capsys.readouterr()
    assert main(args + ["--config", str(tmp_path / "base.ini"), "--cm-mode", "feature"]) == 1
    assert "no CoreferenceModel feature" in capsys.readouterr().err
    assert main(args + ["--config", str(tmp_path / "base.ini"), "--cm-mode", "rerank"]) == 1
    assert "needs --classes" in capsys.readouterr().err


def test_class_instances_from_an_aligned_document():
    pytest.importorskip("spacy")
    from cad.cm.collect import collect_class_instances
    from cad.cm.projection import document_morph

    src = [["i", "found", "the", "key", "."], ["we", "lost", "it", "again", "."], ["it", "is", "raining", "."]]
    tgt = [["j'", "ai", "trouvé", "la", "clé", "."], ["nous", "l'", "avons", "perdue", "encore", "."],
           ["il", "pleut", "."]]
    align = [[(0, 0), (1, 1), (1, 2), (2, 3), (3, 4), (4, 5)],
             [(0, 0), (1, 2), (1, 3), (3, 4), (4, 5)],          # *it* unaligned, as word aligners leave clitics
             [(0, 0), (1, 1), (2, 1), (3, 2)]]
    records = [PronounResolution("d", 1, 2, "it", True, [Candidate(0, 2, 4, 3, "the key", 1.0)], 0.9),
               PronounResolution("d", 2, 0, "it", False, [], 0.1)]
    out = []
    assert collect_class_instances(src, tgt, align, records, False, document_morph(tgt, records), out, 2.0) == 2
    (mix1, cls1, w1), (mix2, cls2, w2) = out
    assert w1 == w2 == 2.0
    assert cls1 == "l'" and mix1 == pytest.approx({"it-obj-fem-sing-ent": 0.9, "it-obj-nonref": 0.1})
    assert cls2 == "il" and mix2 == pytest.approx({"it-subj-nonref": 0.9, "it-subj": 0.1})


def test_pronoun_candidate_that_says_nothing_passes_its_weight_back():
    # *the fireflies … their lights … they*: the ranker links *they* to *their* (.6), whose
    # translation *leur* has no gender, and to *the fireflies* (.3, *lucioles*) and *the lights*
    # (.1, *feux*) before it; *their*'s weight goes to the two nouns in proportion, 3:1
    cands = [Candidate(1, 3, 4, 3, "their", 0.6), Candidate(0, 0, 2, 1, "the fireflies", 0.3),
             Candidate(0, 5, 7, 6, "the lights", 0.1)]
    r = PronounResolution("d", 2, 0, "they", True, cands, 1.0)
    said = {"their": None, "the fireflies": ("fem", "plur"), "the lights": ("masc", "plur")}
    mix = pronoun_mixture(r, "subj", lambda c: {said[c.text]: 1.0}, pass_through=True)
    assert mix == pytest.approx({"they-subj-fem-plur": 0.75, "they-subj-masc-plur": 0.25})
    # training reads each candidate as it is (the default): *their* stays the bare bundle
    assert pronoun_mixture(r, "subj", lambda c: {said[c.text]: 1.0}) == pytest.approx(
        {"they-subj": 0.6, "they-subj-fem-plur": 0.3, "they-subj-masc-plur": 0.1})
    # only towards mentions before it, and only for a pronoun: an untranslated noun keeps its weight
    later = [Candidate(1, 3, 4, 3, "their", 0.6), Candidate(1, 6, 8, 7, "the lamps", 0.4)]
    r2 = PronounResolution("d", 2, 0, "they", True, later, 1.0)
    assert pronoun_mixture(r2, "subj", lambda c: {("fem", "plur") if c.text == "the lamps" else None: 1.0},
                           pass_through=True) == \
        pytest.approx({"they-subj": 0.6, "they-subj-fem-plur": 0.4})
    noun = [Candidate(1, 3, 4, 3, "kindergarteners", 0.6), Candidate(0, 0, 2, 1, "the fireflies", 0.4)]
    r3 = PronounResolution("d", 2, 0, "they", True, noun, 1.0)
    assert pronoun_mixture(r3, "subj", lambda c: {said.get(c.text): 1.0}, pass_through=True) == pytest.approx(
        {"they-subj": 0.6, "they-subj-fem-plur": 0.4})


def test_credit_matrix_follows_apt_groups():
    from cad.cm.class_model import credit_matrix

    m = credit_matrix()
    # ce is correct for a reference il (similar), ce and ça (similar); il for il and ce only
    assert set(m["ce"]) == {"ce", "il", "ça"}
    assert set(m["il"]) == {"il", "ce"}
    assert set(m["ça"]) == {"ça", "ce"}
    assert set(m["elle"]) == {"elle"} and set(m["elles"]) == {"elles"}
    # words outside APT's target list are all OTHER to APT, equal to each other
    assert set(m["la"]) == {"le", "la", "l'", "lui", "eux", "y", "en", OTHER}
    # a dropped pronoun is never correct, and nothing is correct against a dropped reference
    assert m[NONE] == {} and all(NONE not in row for row in m.values())


def test_expected_credit_and_objectives_by_hand():
    table = ClassTable({"it-cop-fem-sing": {"elle": 0.5, "ce": 0.2, "il": 0.1, "la": 0.1, NONE: 0.1},
                        "it-cop-nonref": {"il": 0.3, "ce": 0.6, NONE: 0.1}})
    fem = {"it-cop-fem-sing": 1.0}
    assert table.expected_credit(fem, "elle") == pytest.approx(0.5)
    assert table.expected_credit(fem, "ce") == pytest.approx(0.2 + 0.1)
    assert table.expected_credit(fem, "le") == pytest.approx(0.1)
    mix = {"it-cop-fem-sing": 0.5, "it-cop-nonref": 0.5}
    assert table.expected_credit(mix, "ce") == pytest.approx(0.5 * 0.3 + 0.5 * 0.9)
    assert table.score(mix, "ce", "credit") == pytest.approx(math.log(0.6))
    assert table.score(mix, "ce", "likelihood") == pytest.approx(math.log(0.5 * 0.2 + 0.5 * 0.6))
    # dropping earns nothing: the credit floor
    assert table.score(mix, NONE, "credit") == pytest.approx(math.log(0.01))
    # APT's own score counts a similar pair (ce for il, ce for ça) half, the exact word not at all:
    # ce 0.5 * (0.2 + 0.6) the same word, 0.5 * (0.1 + 0.3) il
    assert table.score(mix, "ce", "apt") == pytest.approx(math.log(0.4 + 0.5 * 0.2))
    assert table.score(mix, "ce", "exact") == pytest.approx(math.log(0.4))
    # il earns ce's similar credit only in the half of the mixture whose antecedent is not
    # feminine: P(il) .2, P(ce) .4 of which half
    assert table.score(mix, "il", "apt") == pytest.approx(math.log(0.2 + 0.5 * 0.4 * 0.5))
    assert table.score(mix, "il", "credit") == pytest.approx(math.log(0.2 + 0.4 * 0.5))
    assert table.score(mix, "il", "exact") == pytest.approx(math.log(0.2))
    # all feminine: il is the wrong gender, not the impersonal il that alternates with ce
    assert table.expected_credit(fem, "il") == pytest.approx(0.1)
    nonref = {"it-cop-nonref": 1.0}
    assert table.expected_credit(nonref, "il") == pytest.approx(0.3 + 0.6)
    # the same from the class distribution alone (the classifier CM's), given the shares
    from cad.cm.class_model import credit, gender_shares

    assert gender_shares(mix) == {"masc": 0.0, "fem": 0.5}
    assert credit(table.class_distribution(mix), "il", 1.0, gender_shares(mix)) == pytest.approx(0.2 + 0.4 * 0.5)
    assert credit(table.class_distribution(mix), "il", 1.0) == pytest.approx(0.2 + 0.4)
    # a word with no similar pair scores alike under every credit objective
    assert table.score(fem, "elle", "exact") == table.score(fem, "elle", "apt") == table.score(fem, "elle", "credit")
    assert table.score(mix, NONE, "exact") == pytest.approx(math.log(0.01))
    from cad.core.errors import CadError

    with pytest.raises(CadError, match="objective"):
        table.score(mix, "ce", "bleu")


def test_feature_objective_from_moses_ini(tmp_path):
    table = ClassTable({"it-cop-fem-sing": {"elle": 0.5, "ce": 0.3, "il": 0.2},
                        "it-cop": {"elle": 0.5, "ce": 0.3, "il": 0.2}})
    slot = FeatureSlot("CM", "CoreferenceModel", 0, 1, [1.0])
    f = CoreferenceModelFeature(slot, Feature("CoreferenceModel", "CM", {"objective": "credit"}), table=table)
    f.begin_sentence(["and", "it", "was", "dead"], {"pronouns": {1: {"it-cop-fem-sing": 1.0}}})
    # il for a feminine antecedent: its own probability, not ce's similar credit
    assert f.evaluate(option(1, 2, ["il"], [(0, 0)])) == pytest.approx((math.log(0.2),))
    assert f.evaluate(option(1, 2, ["elle"], [(0, 0)])) == pytest.approx((math.log(0.5),))
    assert f.evaluate(option(1, 2, ["c'"], [(0, 0)])) == pytest.approx((math.log(0.5),))      # ce + il
    f.begin_sentence(["and", "it", "was", "dead"], {"pronouns": {1: {"it-cop": 1.0}}})
    assert f.evaluate(option(1, 2, ["il"], [(0, 0)])) == pytest.approx((math.log(0.5),))      # il + ce
    from cad.core.errors import CadError

    with pytest.raises(CadError, match="unknown objective"):
        CoreferenceModelFeature(slot, Feature("CoreferenceModel", "CM", {"objective": "x"}), table=table)
    cfg = feature_config_with_objective(tmp_path)
    assert [f.args.get("objective") for f in cfg.features if f.type == "CoreferenceModel"] == ["credit"]


def test_the_map_reading_scores_the_likeliest_bundle_by_hand(tmp_path):
    from cad.cm.class_model import read_mixture
    from cad.core.errors import CadError
    from cad.moses.ini import parse_config

    table = ClassTable({"it-cop-fem-sing": {"elle": 0.5, "ce": 0.2, "il": 0.1, "la": 0.1, NONE: 0.1},
                        "it-cop-masc-sing": {"il": 0.6, "ce": 0.3, NONE: 0.1},
                        "it-cop-nonref": {"il": 0.3, "ce": 0.6, NONE: 0.1}})
    # two antecedents of one entity split its weight: the bundle, not the candidate, is read
    mix = {"it-cop-fem-sing": 0.45, "it-cop-masc-sing": 0.3, "it-cop-nonref": 0.25}
    assert read_mixture(mix, "mixture") is mix
    assert read_mixture(mix, "map") == {"it-cop-fem-sing": 1.0}
    assert read_mixture({"b": 0.5, "a": 0.5}, "map") == {"a": 1.0}        # a tie: the first in sorted order
    assert read_mixture({}, "map") == {}
    with pytest.raises(CadError, match="unknown CM reading"):
        read_mixture(mix, "vote")
    slot = FeatureSlot("CM", "CoreferenceModel", 0, 1, [1.0])
    tokens = ["and", "it", "was", "dead"]
    hedged = CoreferenceModelFeature(slot, Feature("CoreferenceModel", "CM", {"objective": "credit"}), table=table)
    decided = CoreferenceModelFeature(slot, Feature("CoreferenceModel", "CM", {"objective": "credit", "reading": "map"}),
                                      table=table)
    for f in (hedged, decided):
        f.begin_sentence(tokens, {"pronouns": {1: mix}})
    elle, ce = option(1, 2, ["elle"], [(0, 0)]), option(1, 2, ["c'"], [(0, 0)])
    # the mixture hedges: elle .45 * .5 + .3 * 0 + .25 * 0 = .225; ce earns ce and il everywhere:
    # .45 * .3 + .3 * .9 + .25 * .9 = .63, so c' wins
    assert hedged.evaluate(elle) == pytest.approx((math.log(0.225),))
    assert hedged.evaluate(ce) == pytest.approx((math.log(0.63),))
    # the map reading: the feminine bundle alone, elle .5 against ce's .2 + .1
    assert decided.evaluate(elle) == pytest.approx((math.log(0.5),))
    assert decided.evaluate(ce) == pytest.approx((math.log(0.3),))
    with pytest.raises(CadError, match="unknown reading=vote"):
        CoreferenceModelFeature(slot, Feature("CoreferenceModel", "CM", {"reading": "vote"}), table=table)
    # written on the feature's line by cad cm config, and left off for the default
    cfg = baseline_config(str(tmp_path / "pt"), None, str(tmp_path / "lm.arpa"), 2, table_limit=0)
    write_config(cfg, tmp_path / "base.ini")
    table.write(tmp_path / "classes.gz")
    for reading, written in (("map", "map"), ("mixture", None)):
        write_config(feature_config(tmp_path / "base.ini", tmp_path / "classes.gz", 1.0, "credit", reading=reading),
                     tmp_path / "cm.ini")
        got = [f.args.get("reading") for f in parse_config(tmp_path / "cm.ini").features if f.type == "CoreferenceModel"]
        assert got == [written]


def feature_config_with_objective(tmp_path):
    from cad.moses.ini import parse_config

    cfg = baseline_config(str(tmp_path / "pt"), None, str(tmp_path / "lm.arpa"), 2, table_limit=0)
    write_config(cfg, tmp_path / "base.ini")
    ClassTable({"it": {"il": 1.0}}).write(tmp_path / "classes.gz")
    write_config(feature_config(tmp_path / "base.ini", tmp_path / "classes.gz", 1.0, "credit"), tmp_path / "cm.ini")
    return parse_config(tmp_path / "cm.ini")


def test_weighted_instances_count_as_repeated_ones():
    fem = "it-subj-fem-sing"
    weighted = ClassTable.estimate_em([({fem: 1.0}, "elle", 3.0), ({fem: 1.0}, "ce", 1.0)], 2)
    repeated = ClassTable.estimate_em([({fem: 1.0}, "elle")] * 3 + [({fem: 1.0}, "ce")], 2)
    assert weighted.counts[fem] == pytest.approx(4.0)
    for c in CLASSES:
        assert weighted.prob(fem, c) == pytest.approx(repeated.prob(fem, c))


def test_class_reranker_with_the_credit_objective_by_hand():
    from cad.translate.rerank import ClassReranker, Hypothesis

    # it-cop-nonref: the reference says ce .5, il .2, elle .1, nothing .2
    table = ClassTable({"it-cop-nonref": {"ce": 0.5, "il": 0.2, "elle": 0.1, NONE: 0.2}})
    src = [["it", "is", "hard", "."]]
    hyps = [Hypothesis(["est", "dur", "."], 0.0, [(1, 0), (2, 1), (3, 2)]),                 # dropped: NONE
            Hypothesis(["il", "est", "dur", "."], -0.5, [(0, 0), (1, 1), (2, 2), (3, 3)]),
            Hypothesis(["elle", "est", "dure", "."], -0.4, [(0, 0), (1, 1), (2, 2), (3, 3)])]
    r = PronounResolution("d", 0, 0, "it", False, [], 0.0)
    roles = {(0, 0): "cop"}
    # credit: NONE 0 -> floor .01, il .2 + .5 = .7, elle .1
    rr = ClassReranker(table, 1.0, objective="credit")
    _, traces = rr.rerank_document([hyps], [r], src, roles=roles)
    assert traces[0].cm_scores == pytest.approx([math.log(0.01), math.log(0.7), math.log(0.1)])
    assert traces[0].chosen == 1          # -0.5 + ln .7 = -0.857 beats -0.4 + ln .1 and 0 + ln .01
    # likelihood at the same weight keeps the dropped pronoun: 0 + ln .2 > -0.5 + ln .2
    _, traces = ClassReranker(table, 1.0).rerank_document([hyps], [r], src, roles=roles)
    assert traces[0].chosen == 0
    # a feminine antecedent: il earns no credit from ce (.2 alone), ce and elle as before
    fem = ClassReranker(ClassTable({"it-cop-fem-sing": {"ce": 0.5, "il": 0.2, "elle": 0.1, NONE: 0.2}}), 1.0,
                        objective="credit")
    assert [fem.cm_score({0: {"it-cop-fem-sing": 1.0}}, h, src[0]) for h in hyps] == pytest.approx(
        [math.log(0.01), math.log(0.2), math.log(0.1)])


def test_class_reranker_reads_the_mixture_as_the_feature_does():
    from cad.core.errors import CadError
    from cad.translate.rerank import ClassReranker, Hypothesis

    table = ClassTable({"it-cop-fem-sing": {"elle": 0.5, "ce": 0.2, "il": 0.1, "la": 0.1, NONE: 0.1},
                        "it-cop-masc-sing": {"il": 0.6, "ce": 0.3, NONE: 0.1},
                        "it-cop-nonref": {"il": 0.3, "ce": 0.6, NONE: 0.1}})
    mix = {"it-cop-fem-sing": 0.45, "it-cop-masc-sing": 0.3, "it-cop-nonref": 0.25}
    src = ["and", "it", "was", "dead"]
    elle = Hypothesis(["et", "elle", "était", "morte"], 0.0, [(0, 0), (1, 1), (2, 2), (3, 3)])
    ce = Hypothesis(["et", "c'", "était", "mort"], 0.0, [(0, 0), (1, 1), (2, 2), (3, 3)])
    # the numbers of the feature's test above: the mixture .225 against .63, the map reading .5 against .3
    hedged = ClassReranker(table, 1.0, objective="credit")
    decided = ClassReranker(table, 1.0, objective="credit", reading="map")
    assert [hedged.cm_score({1: mix}, h, src) for h in (elle, ce)] == pytest.approx([math.log(0.225), math.log(0.63)])
    assert [decided.cm_score({1: mix}, h, src) for h in (elle, ce)] == pytest.approx([math.log(0.5), math.log(0.3)])
    with pytest.raises(CadError, match="unknown CM reading"):
        ClassReranker(table, 1.0, reading="vote")


def test_experiment_reads_coreferencerecords_by_document_index(tmp_path):
    pytest.importorskip("spacy")
    from coref.backends import records_by_doc
    from cad.core.errors import CadError
    from coref.records import write_jsonl

    docs = [("779", [["the", "mouse", "runs", "."], ["it", "sleeps", "."]]),
            ("779", [["the", "cat", "runs", "."], ["it", "sleeps", "."]])]
    given = PronounResolution("0", 1, 0, "it", True, [Candidate(0, 0, 2, 1, "the mouse", 1.0)], 0.9)
    write_jsonl([given], tmp_path / "r.jsonl")
    out = records_by_doc(str(tmp_path / "r.jsonl"), docs)
    assert out[0] == [given]                           # matched by index, though the ids repeat
    assert [r.index for r in out[1]] == [0] and out[1][0].best.text == "the cat"   # shipped ranker
    write_jsonl([PronounResolution("1", 2, 0, "it", True, [])], tmp_path / "bad.jsonl")
    with pytest.raises(CadError, match="outside document"):
        records_by_doc(str(tmp_path / "bad.jsonl"), docs)


def test_mert_tunes_the_cm_weight_in_document_context(tmp_path):
    # references say *elle* after *the mouse* and *il* after *the cat*; at weight 0 the CM is
    # silent and the table's *il* wins everywhere. Tuned sentence by sentence the feature would
    # see no antecedent (so the driver refuses); tuned by documents, MERT must give it a weight
    # that makes both documents right.
    from cad.cli import main
    from cad.translate.passes import translate_document_feature
    from cad.core.errors import CadError
    from cad.moses.ini import parse_config
    from cad.tune.run import mert
    from coref.records import write_jsonl

    pytest.importorskip("spacy")
    tiny_model(tmp_path, 0.0)
    with open(tmp_path / "pt", "a") as fh:     # long enough sentences for BLEU's 4-grams
        fh.write("in the garden today ||| dans le jardin aujourd'hui ||| 1 1 1 1 ||| 0-0 1-1 2-2 3-3\n")
    tail, tail_fr = " in the garden today", " dans le jardin aujourd'hui"
    src, ref, recs = [], [], []
    for d, (noun, fr, pron) in enumerate([("mouse", "la souris", "elle"), ("cat", "le chat", "il")] * 2):
        src += [f"the {noun} runs" + tail, "it sleeps" + tail]
        ref += [f"{fr} court" + tail_fr, f"{pron} dort" + tail_fr]
        recs.append(PronounResolution(str(d), 1, 0, "it", True, [Candidate(0, 0, 2, 1, f"the {noun}", 1.0)], 1.0))
    (tmp_path / "src").write_text("\n".join(src) + "\n")
    (tmp_path / "ref").write_text("\n".join(ref) + "\n")
    (tmp_path / "docs").write_text("".join(f"{2 * d}\td{d}\n" for d in range(4)))
    write_jsonl(recs, tmp_path / "coref.jsonl")
    with pytest.raises(CadError, match="--docs"):
        mert(str(tmp_path / "cm.ini"), str(tmp_path / "src"), str(tmp_path / "ref"), str(tmp_path / "t.ini"))
    assert main(["-q", "tune", "mert", "--config", str(tmp_path / "cm.ini"), "--source", str(tmp_path / "src"),
                 "--reference", str(tmp_path / "ref"), "--out", str(tmp_path / "t.ini"), "--docs",
                 str(tmp_path / "docs"), "--coref", str(tmp_path / "coref.jsonl"), "--nbest", "20",
                 "--iterations", "4", "--workers", "2"]) == 0
    assert parse_config(tmp_path / "t.ini").weights[FEATURE_NAME][0] > 0
    dec = Decoder(DecoderModel.load(tmp_path / "t.ini"))
    for d in range(2):
        trs, _ = translate_document_feature(dec, str(d), [s.split() for s in src[2 * d:2 * d + 2]], [recs[d]])
        assert [t.text for t in trs] == ref[2 * d:2 * d + 2]


def test_translate_reads_ahead_in_workers_with_the_same_output(tmp_path, capsys):
    """Coreference and roles in a forked worker running ahead, the French tags in another: the
    same translation and trace as everything in one process, for any read-ahead."""
    pytest.importorskip("spacy")
    from cad.cli import main

    tiny_model(tmp_path, 2.0)
    (tmp_path / "doc.en").write_text("the mouse runs\nit sleeps\nthe cat runs\nit sleeps\nthe mouse runs\n"
                                     "it sleeps\nit sleeps\n")
    (tmp_path / "doc.docs").write_text("0\ta\n2\tb\n4\tc\n")
    got = {}
    for ahead in ("0", "1", "2", "5"):
        out, trace = tmp_path / f"out{ahead}", tmp_path / f"trace{ahead}"
        assert main(["-q", "translate", "--input", str(tmp_path / "doc.en"), "--docs", str(tmp_path / "doc.docs"),
                     "--config", str(tmp_path / "cm.ini"), "--read-ahead", ahead, "--out", str(out),
                     "--trace", str(trace)]) == 0
        got[ahead] = (out.read_text(), trace.read_text())
    assert got["0"][0] == "la souris court\nelle dort\nle chat court\nil dort\nla souris court\nelle dort\nelle dort\n"
    assert len(got["0"][1].splitlines()) == 4
    assert got["1"] == got["0"] and got["2"] == got["0"] and got["5"] == got["0"]
    capsys.readouterr()
    assert main(["-q", "translate", "--input", str(tmp_path / "doc.en"), "--config", str(tmp_path / "cm.ini"),
                 "--read-ahead", "-1", "--out", str(tmp_path / "bad")]) == 1
    assert "--read-ahead" in capsys.readouterr().err and not (tmp_path / "bad").exists()


def _analysis_of(doc_id, sents):
    from cad.translate.analysis import Analysis
    from cad.core.errors import CadError

    if doc_id == "bad":
        raise CadError("cannot analyse", "doc.txt", 3)
    return Analysis([], {(0, 0): f"{doc_id}:{len(sents)}"})


def test_read_ahead_keeps_the_order_and_raises_at_the_failing_document():
    from cad.translate.analysis import read_ahead, worker_pool
    from cad.core.errors import CadError

    docs = [(str(k), [["w"]] * k) for k in range(6)]
    with worker_pool() as pool:
        for ahead in (0, 1, 3):
            got = [(d, a.roles[(0, 0)]) for d, _, a in read_ahead(docs, _analysis_of, ahead, pool)]
            assert got == [(str(k), f"{k}:{k}") for k in range(6)]
        seen = []
        with pytest.raises(CadError, match="doc.txt:3: cannot analyse"):
            for d, _, _ in read_ahead(docs[:2] + [("bad", [])] + docs[2:], _analysis_of, 2, pool):
                seen.append(d)
        assert seen == ["0", "1"]
    # without a pool: each document when it is reached
    assert [d for d, _, _ in read_ahead(docs, _analysis_of, 2, None)] == [str(k) for k in range(6)]


def test_roles_from_the_resolvers_parse_equal_the_roles_parser():
    pytest.importorskip("spacy")
    from coref.english.roles import pronoun_roles
    from coref.english.ranker import RankerResolver

    sents = [s.split() for s in ("the mouse was caught .", "it was not dead but it was wounded .",
                                 "i gave it to them and they ate it .", "it is important that they see it .")]
    positions = {(k, i) for k, s in enumerate(sents) for i, w in enumerate(s) if w in ("it", "they")}
    resolver = RankerResolver()
    assert resolver.shares_english_parse
    own = pronoun_roles(sents, positions)
    assert pronoun_roles(sents, positions, resolver.parse(sents)) == own
    assert own[(1, 0)] == "copa" and own[(2, 2)] == "obj" and own[(2, 6)] == "subj"


def test_cm_feature_reads_only_the_spans_covering_its_pronouns():
    table = ClassTable({"it-cop-fem-sing": {"elle": 0.5, NONE: 0.5}})
    f = feature_with(table, {1: {"it-cop-fem-sing": 1.0}})
    assert f.reads_span(0, 2) and f.reads_span(1, 2) and f.reads_span(0, 4)
    assert not f.reads_span(0, 1) and not f.reads_span(2, 4)
    # where it reads no span it scores no option either
    assert f.evaluate(option(2, 4, ["était", "mort"], [(0, 0), (1, 1)])) is None


def test_translation_morphology_in_a_worker_equals_tagging_here():
    pytest.importorskip("spacy")
    from cad.translate.analysis import worker_pool
    from cad.lang.fr_morph import tag
    from cad.translate.morphology import TranslationMorphology
    from cad.decoder.search import Derivation, Translation

    trs = [Translation(["x"], Derivation(s.split(), 0.0, [], [])) for s in
           ("la souris était morte", "elles sont parties", "le chat dort")]
    here = TranslationMorphology()
    with worker_pool() as pool:
        there = TranslationMorphology(pool)
        for tr in trs:
            there.prefetch(tr)
        assert [there.of(tr) for tr in trs] == [here.of(tr) for tr in trs] == tag([tr.best.words for tr in trs])


def test_second_pass_recollects_only_the_spans_its_context_reads(tmp_path):
    from cad.decoder.options import sentence_options

    model = tiny_model(tmp_path, 2.0)
    words = "the mouse runs it sleeps".split()
    masc = {"pronouns": {3: {"it-subj-masc-sing": 1.0}}}
    fem = {"pronouns": {3: {"it-subj-fem-sing": 1.0}}}
    first = sentence_options(model, words, masc)
    again = sentence_options(model, words, fem, first)
    fresh = sentence_options(model, words, fem)

    def view(opts):
        return {span: [(o.words, o.stateless, o.future, o.values) for o in kept] for span, kept in opts.items()}

    # the same options, scores and span order as collecting afresh
    assert list(again.options) == list(fresh.options)
    assert view(again.options) == view(fresh.options)
    assert again.read == fresh.read == {(2, 4), (2, 5), (3, 4), (3, 5)} & set(fresh.options)
    # spans without the pronoun are kept, those with it collected anew
    assert again.raw[(0, 2)] is first.raw[(0, 2)]
    assert again.raw[(3, 5)] is not first.raw[(3, 5)]
    assert view({0: again.options[(3, 4)]}) != view({0: first.options[(3, 4)]})
    # other words or other weights: nothing is kept
    assert sentence_options(model, ["it", "sleeps"], {"pronouns": {0: {"it-subj-fem-sing": 1.0}}},
                            first).tokens == ("it", "sleeps")
    other = model.with_weights(FEATURE_NAME, [0.5])
    assert all(a is not b for a, b in zip(sentence_options(other, words, fem, first).raw.values(),
                                          first.raw.values()))
    # the decoder keeps the last sentence's options: a second pass gives what a fresh decoder gives
    dec = Decoder(model)
    assert dec.translate(" ".join(words), context=masc).text == "la souris court il dort"
    second = dec.translate(" ".join(words), context=fem, nbest=5)
    alone = Decoder(model).translate(" ".join(words), context=fem, nbest=5)
    assert second.text == alone.text == "la souris court elle dort"
    assert [(d.text, d.total, d.features) for d in second.nbest] == [(d.text, d.total, d.features) for d in alone.nbest]


def test_cm_feature_classifies_a_phrase_pair_by_its_place_too():
    # the class cache is keyed by the phrase pair *and* where the pronoun falls in it: the same
    # target words score as another class when the pronoun is another source word of the span
    table = ClassTable({"it-cop-fem-sing": {"elle": 0.5, "ce": 0.3, NONE: 0.2}})
    f = feature_with(table, {1: {"it-cop-fem-sing": 1.0}})
    f.begin_sentence(["it", "it", "was", "dead"], {"pronouns": {0: {"it-cop-fem-sing": 1.0}}})
    pair = (["elle", "était"], [(0, 0), (1, 1)])
    assert f.evaluate(option(0, 2, *pair)) == pytest.approx((math.log(0.5),))
    f.begin_sentence(["it", "it", "was", "dead"], {"pronouns": {1: {"it-cop-fem-sing": 1.0}}})
    fresh = feature_with(table, {1: {"it-cop-fem-sing": 1.0}})
    fresh.begin_sentence(["it", "it", "was", "dead"], {"pronouns": {1: {"it-cop-fem-sing": 1.0}}})
    assert f.evaluate(option(0, 2, *pair)) == fresh.evaluate(option(0, 2, *pair))
    assert option_class(option(0, 2, *pair), 1, ["it", "it", "was", "dead"]) != "elle"
    # other source words under the same pair and place: classified on their own
    f.begin_sentence(["it", "was", "dead"], {"pronouns": {0: {"it-cop-fem-sing": 1.0}}})
    assert f.evaluate(option(0, 2, ["c'", "était"], [(0, 0), (1, 1)])) == pytest.approx((math.log(0.3),))


class _LateFuture:
    """A tagging result that is computed only when asked for: done() stays false until then, as
    for a worker that has not answered yet."""

    def __init__(self, fn, args):
        self.fn, self.args, self.value = fn, args, None

    def done(self) -> bool:
        return self.value is not None

    def result(self):
        if self.value is None:
            self.value = self.fn(*self.args)
        return self.value


class _LateExecutor:
    def submit(self, fn, *args):
        return _LateFuture(fn, args)


def test_feature_mode_decodes_ahead_while_the_antecedent_is_tagged(tmp_path):
    """While the first sentence that needs tags waits for them, later sentences that need none are
    decoded; the translations and traces are those of the in-order run."""
    pytest.importorskip("spacy")
    from cad.translate.morphology import TranslationMorphology
    from cad.translate.passes import translate_document_feature

    dec = Decoder(tiny_model(tmp_path, 2.0))
    order = []
    translate = dec.translate

    def logged(text, **kw):
        order.append((text, bool(kw.get("context"))))
        return translate(text, **kw)

    sents = [["the", "mouse", "runs"], ["it", "sleeps"], ["the", "cat", "runs"], ["the", "mouse", "runs"],
             ["the", "cat", "runs", "it", "sleeps"]]
    recs = [PronounResolution("d", 1, 0, "it", True, [Candidate(0, 0, 2, 1, "the mouse", 1.0)], 1.0),
            PronounResolution("d", 4, 3, "it", True, [Candidate(4, 0, 2, 1, "the cat", 0.7),
                                                      Candidate(0, 0, 2, 1, "the mouse", 0.3)], 1.0)]
    dec.translate = logged
    in_order, in_order_traces = translate_document_feature(dec, "d", sents, recs, roles={(1, 0): "subj", (4, 3): "subj"})
    assert [s for s, _ in order] == [" ".join(s) for s in sents[:4]] + ["the cat runs it sleeps"] * 2
    order.clear()
    ahead, ahead_traces = translate_document_feature(dec, "d", sents, recs, roles={(1, 0): "subj", (4, 3): "subj"},
                                                     morphology=TranslationMorphology(_LateExecutor()))
    assert [t.text for t in ahead] == [t.text for t in in_order]
    assert ahead[1].text == "elle dort" and ahead[4].text == "le chat court il dort"
    assert ahead_traces == in_order_traces
    # sentences 2 and 3 went before sentence 1, whose antecedent's tags were not in yet; sentence
    # 4's second pass waited for its first pass's tags, so nothing else was left to go first
    assert [s for s, _ in order] == ["the mouse runs", "the cat runs", "the mouse runs", "it sleeps",
                                     "the cat runs it sleeps", "the cat runs it sleeps"]
    assert order[-2:] == [("the cat runs it sleeps", True)] * 2


def test_coreference_reads_the_cased_text_and_its_records_map_onto_the_decoder_tokens():
    pytest.importorskip("spacy")
    from cad.translate.analysis import analyse, onto_tokens
    from cad.core.errors import CadError
    from coref.backends import get_backend

    cased = [["Mary", "bought", "a", "car", "."], ["It", "was", "red", "and", "she", "liked", "it", "."]]
    lowered = [[t.lower() for t in s] for s in cased]
    resolver = get_backend("ranker")
    assert resolver.reads_case
    got = analyse(resolver, "d", cased, with_roles=True)
    its = [r for r in got.records if r.token.lower() == "it"]
    assert [(r.sentence, r.index, r.token) for r in its] == [(1, 0, "It"), (1, 6, "it")]
    assert "a car" in [c.text for c in its[0].candidates]
    mapped = onto_tokens(got.records, lowered, "d")
    assert [(r.sentence, r.index, r.token) for r in mapped if r.token == "it"] == [(1, 0, "it"), (1, 6, "it")]
    assert all(lowered[r.sentence][r.index] == r.token for r in mapped)
    with pytest.raises(CadError, match="sentence 2, token 1"):
        onto_tokens(got.records, [lowered[0], ["that"] + lowered[1][1:]], "d")


def test_a_resolver_trained_on_lowercased_text_gets_it_lowercased():
    pytest.importorskip("spacy")
    try:
        from coref.spanish.ranker import SpanishResolver

        resolver = SpanishResolver()
    except (OSError, ImportError) as exc:
        pytest.skip(f"the Spanish pipeline is not installed ({exc})")
    from cad.translate.analysis import analyse

    assert not resolver.reads_case
    cased = [["María", "compró", "un", "coche", "."], ["Ella", "lo", "vendió", "ayer", "."]]
    got = analyse(resolver, "d", cased, with_roles=False).records
    assert got == resolver.resolve("d", [[t.lower() for t in s] for s in cased])
    assert any(r.token == "ella" for r in got)


def test_context_scores_added_to_the_template_equal_scoring_the_option_whole(tmp_path):
    import copy

    from cad.decoder.options import _finish, sentence_options

    model = tiny_model(tmp_path, 2.0)
    words = "the mouse runs it sleeps".split()
    fem = {"pronouns": {3: {"it-subj-fem-sing": 1.0}}}

    def whole(opts, model=model):
        out = {}
        for span, kept in opts.items():
            again = []
            for o in kept:
                c = copy.copy(o)
                c.values, c.stateless, c.future, c.in_context = (), 0.0, 0.0, 0.0
                _finish(c, model)
                again.append((c.values, c.stateless, c.future, c.in_context))
            out[span] = again
        return out

    def view(opts):
        return {span: [(o.values, o.stateless, o.future, o.in_context) for o in kept] for span, kept in opts.items()}

    assert model.context_last
    got = sentence_options(model, words, fem).options
    assert view(got) == whole(got)          # the same floats, not approximately
    elle = next(o for o in got[(3, 4)] if o.words == ("elle",))
    assert elle.in_context == pytest.approx(2.0 * math.log(0.9))
    assert elle.stateless == pytest.approx(elle.in_context + sum(
        w * x for f in model.stateless if not f.reads_context
        for v in [f.evaluate(elle)] if v is not None for w, x in zip(f.slot.weights, v)))
    # the CM first in moses.ini order: each option is scored whole, in that order (so its sums
    # equal these up to the order of the additions)
    first = copy.copy(model)
    first.stateless = sorted(model.stateless, key=lambda f: not f.reads_context)
    assert not first.context_last
    reordered = sentence_options(first, words, fem).options
    assert view(reordered) == whole(reordered, first) and list(reordered) == list(got)
    for span, kept in reordered.items():
        assert [(o.words, sorted(o.values), o.stateless, o.future) for o in kept] == [
            (o.words, sorted(o.values), pytest.approx(o.stateless), pytest.approx(o.future)) for o in got[span]]
    # a sentence whose context has no pronoun is collected as plain decoding collects it
    plain = sentence_options(model, words, None)
    empty = sentence_options(model, words, {"pronouns": {}})
    assert empty.read == frozenset() and view(empty.options) == view(plain.options)


def test_an_animate_antecedent_reads_a_subject_of_be_as_a_subject():
    """*it was dead* with *the mouse* is *elle était morte*: the animate antecedent's bundle takes
    the subject role; the nonref share, a thing's bundle and *it is a mouse* (copn) keep theirs."""
    from cad.cm.class_classifier import role_of_mixture

    kinds = {"the mouse": "anim", "the key": "ent", "the idea": "abst"}
    fem = {"the mouse": ("fem", "sing"), "the key": ("fem", "sing"), "the idea": ("fem", "sing")}
    cands = [Candidate(0, 0, 2, 1, text, p) for text, p in (("the mouse", 0.5), ("the key", 0.3), ("the idea", 0.2))]
    r = PronounResolution("d", 1, 0, "it", True, cands, 0.8)

    def mix(role):
        return pronoun_mixture(r, role, lambda c: {fem[c.text]: 1.0}, animacy=lambda c: kinds[c.text])

    assert mix("copa") == pytest.approx({"it-copa-nonref": 0.2, "it-subj-fem-sing-anim": 0.4,
                                         "it-copa-fem-sing-ent": 0.24, "it-copa-fem-sing-abst": 0.16})
    assert mix("cop")["it-subj-fem-sing-anim"] == pytest.approx(0.4)
    assert mix("copn") == pytest.approx({"it-copn-nonref": 0.2, "it-copn-fem-sing-anim": 0.4,
                                         "it-copn-fem-sing-ent": 0.24, "it-copn-fem-sing-abst": 0.16})
    assert mix("obj")["it-obj-fem-sing-anim"] == pytest.approx(0.4)
    # the classifier's role feature follows the most weight: subj .4 against copa .6 here
    assert role_of_mixture(mix("copa")) == "copa"
    assert role_of_mixture({"it-copa-nonref": 0.2, "it-subj-fem-sing-anim": 0.8}) == "subj"
    assert role_of_mixture({"it-copa-nonref": 0.5, "it-subj-fem-sing-anim": 0.5}) == "copa"
    # a later pronoun of the chain passes the animacy on, and its own role is read the same way
    chained = PronounResolution("d", 2, 0, "it", True, [Candidate(1, 0, 1, 0, "it", 1.0)], 1.0)
    passed = antecedent_distribution(mix("copa"))
    assert passed[("fem", "sing", "anim")] == pytest.approx(0.4 / 0.8)
    assert pronoun_mixture(chained, "copa", lambda c: passed, animacy=lambda c: None) == pytest.approx(
        {"it-subj-fem-sing-anim": 0.5, "it-copa-fem-sing-ent": 0.3, "it-copa-fem-sing-abst": 0.2})


def test_referent_types_of_debians_wordnet():
    from cad.cm.referent import head_animacy
    from cad.downloads import debian

    try:
        debian.package_files(debian.WORDNET)
    except Exception as exc:            # noqa: BLE001 - the message names make resources
        pytest.skip(f"WordNet is not installed: {exc}")
    assert [head_animacy(w) for w in ("mouse", "cat", "teacher", "woman")] == ["anim"] * 4
    assert [head_animacy(w) for w in ("car", "house", "computer")] == ["ent"] * 3
    assert [head_animacy(w) for w in ("idea", "explosion", "country")] == ["abst"] * 3
    # a group of people is no living being to WordNet (noun.group), a name or a pronoun is unknown
    assert head_animacy("people") == "abst"
    assert head_animacy("it") is None and head_animacy("qwzx") is None


def agreeing_model(tmp_path, cm_weight):
    """tiny_model's pronouns with a predicate that agrees: the table holds *mort*, never *morte*."""
    from cad.lm.arpa import write_arpa
    from cad.lm.kneser_ney import estimate

    (tmp_path / "apt").write_text("it ||| il ||| 0.7 0.7 0.7 0.7 ||| 0-0\nit ||| elle ||| 0.3 0.3 0.3 0.3 ||| 0-0\n"
                                  "is ||| est ||| 1 1 1 1 ||| 0-0\ndead ||| mort ||| 0.5 0.5 0.5 0.5 ||| 0-0\n"
                                  "the mouse ||| la souris ||| 1 1 1 1 ||| 0-0 1-1\n"
                                  "the cat ||| le chat ||| 1 1 1 1 ||| 0-0 1-1\nruns ||| court ||| 1 1 1 1 ||| 0-0\n")
    write_arpa(estimate([["il", "est", "mort"], ["elle", "est", "morte"], ["la", "souris", "court"],
                         ["le", "chat", "court"]], 2), tmp_path / "alm.arpa")
    write_config(baseline_config(str(tmp_path / "apt"), None, str(tmp_path / "alm.arpa"), 2, table_limit=0),
                 tmp_path / "abase.ini")
    ClassTable({"it-subj-fem-sing": {"elle": 0.9, "il": 0.05, NONE: 0.05},
                "it-subj-masc-sing": {"il": 0.9, "elle": 0.05, NONE: 0.05}}).write(tmp_path / "aclasses.gz")
    write_config(feature_config(tmp_path / "abase.ini", tmp_path / "aclasses.gz", cm_weight), tmp_path / "acm.ini")
    return DecoderModel.load(tmp_path / "acm.ini")


TWINS = {"il": ("elle",), "elle": ("il",), "mort": ("morte",), "morte": ("mort",)}


def test_forced_decoding_backs_off_to_other_gender_twins(tmp_path):
    """The table pairs *dead* with *mort* only: without twins *elle est morte* needs an unknown
    word's penalty that *il est mort* does not, whatever the context; with them *dead → mort*
    stands for *morte* with its own table scores, the language model reads *morte*, and no
    penalty is paid. A piece the table holds itself (*it → elle*) keeps its own entry."""
    model = agreeing_model(tmp_path, 2.0)
    dec = Decoder(model)
    fem = {"pronouns": {0: {"it-subj-fem-sing": 1.0}}}
    twins = lambda w: TWINS.get(w, ())          # noqa: E731
    plain = dec.force("it is dead", "elle est morte", context=fem, reach=True)
    assert plain.feature_dict()["UnknownWordPenalty0"] == [-100.0]
    tr = dec.force("it is dead", "elle est morte", context=fem, reach=True, twins=twins)
    assert [(s.words, s.table, s.twin) for s in tr.best.steps] == [(("elle",), 0, False), (("est",), 0, False),
                                                                   (("morte",), 0, True)]
    f = tr.feature_dict()
    lm = model.lm.score_words(model.lm.begin(), ("elle", "est", "morte", "</s>"))[0]
    assert f["UnknownWordPenalty0"] == [0.0] and f["PhrasePenalty0"] == [3.0]
    assert f["TranslationModel0"] == pytest.approx([math.log(0.3) + math.log(0.5)] * 4)    # elle's and mort's
    assert f["LM0"] == pytest.approx([lm]) and f[FEATURE_NAME] == pytest.approx([math.log(0.9)])
    assert tr.best.total == pytest.approx(sum(w * v for w, v in zip(model.weights(), tr.best.features)))
    assert tr.best.total > plain.best.total
    # what the table reaches itself is scored as before, and nothing of it is a twin
    il = dec.force("it is dead", "il est mort", context=fem, reach=True)
    il_twins = dec.force("it is dead", "il est mort", context=fem, reach=True, twins=twins)
    assert il_twins.best.total == il.best.total and not any(s.twin for s in il_twins.best.steps)
    # without a real *it → elle*, the twin of *it → il* stands for it, and the CM reads *elle*
    table = (tmp_path / "apt").read_text()
    (tmp_path / "apt").write_text(table.replace("it ||| elle ||| 0.3 0.3 0.3 0.3 ||| 0-0\n", ""))
    model = DecoderModel.load(tmp_path / "acm.ini")
    tr = Decoder(model).force("it is dead", "elle est morte", context=fem, reach=True, twins=twins)
    assert [s.twin for s in tr.best.steps] == [True, False, True]
    assert tr.feature_dict()["TranslationModel0"] == pytest.approx([math.log(0.7) + math.log(0.5)] * 4)
    assert tr.feature_dict()[FEATURE_NAME] == pytest.approx([math.log(0.9)])
    assert Decoder(model).translate("it is dead").text == "il est mort"      # translation has no twins


def test_forced_decoding_along_a_given_path_scores_that_derivation(tmp_path):
    """`path`: another target's steps (source spans, target positions) read with this target's
    words: the one derivation they make, scored in full; None where a step's words have no option."""
    model = agreeing_model(tmp_path, 2.0)
    dec = Decoder(model)
    fem = {"pronouns": {0: {"it-subj-fem-sing": 1.0}}}
    twins = lambda w: TWINS.get(w, ())          # noqa: E731
    il = dec.force("it is dead", "il est mort", context=fem, reach=True, twins=twins)
    path = [(s.src_start, s.src_end, s.tgt_start, s.tgt_end) for s in il.best.steps]
    again = dec.force("it is dead", "il est mort", context=fem, reach=True, twins=twins, path=path)
    assert again.best.total == il.best.total and again.best.words == il.best.words
    elle = dec.force("it is dead", "elle est morte", context=fem, reach=True, twins=twins, path=path)
    assert [(s.src_start, s.src_end, s.tgt_start, s.tgt_end) for s in elle.best.steps] == path
    assert [s.twin for s in elle.best.steps] == [False, False, True]
    assert elle.best.total == pytest.approx(sum(w * v for w, v in zip(model.weights(), elle.best.features)))
    # *it is* as one phrase: the table has none, and a penalized option covers one source word only
    assert dec.force("it is dead", "elle est morte", context=fem, reach=True, twins=twins,
                     path=[(0, 2, 0, 2), (2, 3, 2, 3)]) is None
    # a path that leaves a word uncovered finds nothing either
    assert dec.force("it is dead", "elle est morte", reach=True, twins=twins, path=[(0, 1, 0, 1), (1, 2, 1, 3)]) is None
