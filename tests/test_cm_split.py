"""The CoreferenceModel with two values, ln P(form) and the gender's log-odds: the construction's
choice of a personal pronoun and the antecedent's choice among il/elle/ils/elles weighed apart."""

import math

import pytest

from cad.cm.class_model import ClassTable, split_scores
from cad.cm.config import FEATURE_NAME, feature_config
from cad.cm.factored import form_split
from cad.cm.feature import CoreferenceModelFeature
from cad.core.errors import CadError
from cad.decoder import Decoder, DecoderModel
from cad.decoder.options import TranslationOption
from cad.decoder.registry import FeatureSlot
from cad.lang import NONE
from cad.lang.pairs import pair
from cad.moses.ini import Feature, baseline_config, parse_config, write_config
from coref.records import Candidate, PronounResolution

FAMILIES = pair("en", "fr").target.gender_families
# after *be* + adjective a feminine antecedent's pronoun is a personal one half the time, and the
# table, which has seen few of them, splits that half between elle and il
COPA_FEM = {"elle": 0.3, "il": 0.2, "ce": 0.4, NONE: 0.1}


def option(start, end, words, alignment):
    return TranslationOption(start, end, tuple(words), 0, (), tuple(alignment), None)


def feature(table, size, args=None):
    f = CoreferenceModelFeature(FeatureSlot("CM", "CoreferenceModel", 0, size, [1.0] * size),
                                Feature("CoreferenceModel", "CM", args or {}), table=table)
    f.begin_sentence(["and", "it", "was", "old"], {"pronouns": {1: {"it-copa-fem-sing": 1.0}}})
    return f


def test_form_split_pools_a_gender_family_and_measures_a_member_against_the_likeliest():
    assert form_split(COPA_FEM, "elle", FAMILIES) == pytest.approx((0.5, 1.0))
    assert form_split(COPA_FEM, "il", FAMILIES) == pytest.approx((0.5, 0.2 / 0.3))
    assert form_split(COPA_FEM, "ce", FAMILIES) == pytest.approx((0.4, 1.0))
    assert form_split(COPA_FEM, NONE, FAMILIES) == pytest.approx((0.1, 1.0))
    # a member the distribution gives nothing: floored, not -inf
    assert form_split(COPA_FEM, "ils", FAMILIES) == pytest.approx((0.5, 0.0))
    assert split_scores(COPA_FEM, "ils") == pytest.approx((math.log(0.5), math.log(1e-7)))
    assert split_scores(COPA_FEM, "la") == pytest.approx((math.log(1e-7), math.log(1e-7)))


def test_the_feature_scores_the_form_and_the_gender_apart():
    table = ClassTable({"it-copa-fem-sing": COPA_FEM})
    one, two = feature(table, 1), feature(table, 2)
    assert two.evaluate(option(1, 2, ["elle"], [(0, 0)])) == pytest.approx((math.log(0.5), 0.0))
    assert two.evaluate(option(1, 2, ["il"], [(0, 0)])) == pytest.approx((math.log(0.5), math.log(0.2 / 0.3)))
    assert two.evaluate(option(1, 2, ["c'"], [(0, 0)])) == pytest.approx((math.log(0.4), 0.0))
    # outside a gender family the form's value is the one-valued feature's
    for words in (["c'"], ["était"]):
        assert two.evaluate(option(1, 2, words, [(0, 0)]))[0] == pytest.approx(one.evaluate(option(1, 2, words, [(0, 0)]))[0])
    # two pronouns in one phrase: each value summed over them
    two.begin_sentence(["it", "and", "it"], {"pronouns": {0: {"it-copa-fem-sing": 1.0}, 2: {"it-copa-fem-sing": 1.0}}})
    both = two.evaluate(option(0, 3, ["elle", "et", "il"], [(0, 0), (1, 1), (2, 2)]))
    assert both == pytest.approx((2 * math.log(0.5), math.log(0.2 / 0.3)))


def test_only_the_likelihood_splits():
    table = ClassTable({"it-copa-fem-sing": COPA_FEM})
    with pytest.raises(CadError, match="objective=likelihood only"):
        feature(table, 2, {"objective": "credit"})
    with pytest.raises(CadError, match="num-features=1"):
        CoreferenceModelFeature(FeatureSlot("CM", "CoreferenceModel", 0, 3, [1.0] * 3),
                                Feature("CoreferenceModel", "CM"), table=table)


def tiny_model(tmp_path, weight):
    """it -> il (the phrase table's favourite) or elle, in *it was old*; the CM's bundle names a
    feminine antecedent, where its table gives the personal form and ce about the same."""
    from cad.lm.arpa import write_arpa
    from cad.lm.kneser_ney import estimate

    (tmp_path / "pt").write_text("it ||| il ||| 0.6 0.6 0.6 0.6 ||| 0-0\nit ||| elle ||| 0.2 0.2 0.2 0.2 ||| 0-0\n"
                                 "it ||| c' ||| 0.2 0.2 0.2 0.2 ||| 0-0\n"
                                 "was old ||| était vieux ||| 1 1 1 1 ||| 0-0 1-1\n")
    write_arpa(estimate([["il", "était", "vieux"], ["elle", "était", "vieux"], ["c'", "était", "vieux"]], 2),
               tmp_path / "lm.arpa")
    write_config(baseline_config(str(tmp_path / "pt"), None, str(tmp_path / "lm.arpa"), 2, table_limit=0),
                 tmp_path / "base.ini")
    ClassTable({"it-copa-fem-sing": COPA_FEM}).write(tmp_path / "classes.gz")
    write_config(feature_config(tmp_path / "base.ini", tmp_path / "classes.gz", weight), tmp_path / "cm.ini")
    return DecoderModel.load(tmp_path / "cm.ini")


FEM = {"pronouns": {0: {"it-copa-fem-sing": 1.0}}}


def test_the_gender_weight_alone_turns_il_into_elle(tmp_path):
    # no gender weight: il and elle are one form to the CM, and the phrase table's il stays
    assert Decoder(tiny_model(tmp_path, (3.0, 0.0))).translate("it was old", context=FEM).text == "il était vieux"
    # the gender's weight makes il pay for the feminine antecedent, not elle, and not ce's rival form
    tr = Decoder(tiny_model(tmp_path, (3.0, 6.0))).translate("it was old", context=FEM)
    assert tr.text == "elle était vieux"
    assert tr.feature_dict()[FEATURE_NAME] == pytest.approx([math.log(0.5), 0.0])
    # a strong form weight without the gender's: the personal form wins over ce, the gender is the phrase table's
    assert Decoder(tiny_model(tmp_path, (30.0, 0.0))).translate("it was old", context=FEM).text == "il était vieux"


def test_config_and_cli_write_two_weights(tmp_path, capsys):
    from cad.cli import main

    tiny_model(tmp_path, 1.0)
    cfg = feature_config(tmp_path / "base.ini", tmp_path / "classes.gz", (25.0, 50.0))
    line = next(f for f in cfg.features if f.type == "CoreferenceModel")
    assert line.args["num-features"] == "2" and cfg.weights[FEATURE_NAME] == [25.0, 50.0]
    args = ["-q", "cm", "config", "--mode", "feature", "--base", str(tmp_path / "base.ini"),
            "--cm", str(tmp_path / "classes.gz"), "--out", str(tmp_path / "out.ini")]
    assert main(args + ["--weight", "10,40"]) == 0
    out = parse_config(tmp_path / "out.ini")
    assert out.weights[FEATURE_NAME] == [10.0, 40.0]
    assert main(args + ["--weight", "7"]) == 0
    assert parse_config(tmp_path / "out.ini").weights[FEATURE_NAME] == [7.0]
    assert main(args + ["--weight", "10,40", "--objective", "credit"]) == 1
    assert "--objective likelihood" in capsys.readouterr().err
    backoff = ["-q", "cm", "config", "--base", str(tmp_path / "base.ini"), "--cm", str(tmp_path / "classes.gz"),
               "--out", str(tmp_path / "b.ini"), "--weight", "1,2"]
    assert main(backoff) == 1
    assert "--mode feature" in capsys.readouterr().err


def test_the_reranker_weighs_the_two_values_as_the_feature_does():
    from cad.translate.rerank import ClassReranker, Hypothesis

    table = ClassTable({"it-subj-fem-sing": COPA_FEM})
    src = [["the", "table", "."], ["it", "was", "old", "."]]
    first = [Hypothesis(["la", "table", "."], 0.0, [(0, 0), (1, 1), (2, 2)])]
    second = [Hypothesis(["il", "était", "vieux", "."], -1.0, [(0, 0), (1, 1), (2, 2), (3, 3)]),
              Hypothesis(["elle", "était", "vieux", "."], -1.5, [(0, 0), (1, 1), (2, 2), (3, 3)])]
    r = PronounResolution("d", 1, 0, "it", True, [Candidate(0, 0, 2, 1, "the table", 1.0)], 1.0)
    roles = {(1, 0): "subj"}
    # elle against il: the same form, il ln(.2/.3) behind as the member: elle wins iff 0.5 < g ln 1.5
    for weights, expected in (((5.0, 1.0), 0), ((0.0, 1.5), 1)):
        _, traces = ClassReranker(table, weights).rerank_document([first, second], [r], src, roles=roles)
        assert traces[1].chosen == expected
    with pytest.raises(CadError, match="objective likelihood"):
        ClassReranker(table, (1.0, 1.0), objective="credit")


def test_grid_weights_round_trip_through_the_work_files(tmp_path):
    from cad.experiments.stages import SystemRun, parse_weight, stage, weight_size, weight_text

    assert parse_weight(weight_text((25.0, 50.0))) == (25.0, 50.0)
    assert parse_weight(weight_text(10.0)) == 10.0 and weight_text(10.0) == "10.0"     # as the files kept it
    assert weight_size((10.0, 40.0)) == 50.0
    run = SystemRun("CM-feature", {(10.0, 40.0): ["a"], (25.0, 25.0): ["b"]}, {(10.0, 40.0): ["0-0"], (25.0, 25.0): ["0-0"]})
    stage(tmp_path, "CM-feature", "k", lambda: run)
    back = stage(tmp_path, "CM-feature", "k", lambda: pytest.fail("computed again"))
    assert back.outputs == run.outputs and back.alignments == run.alignments
