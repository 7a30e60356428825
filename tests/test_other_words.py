"""P(word | OTHER) (cad/cm/other_words.py): the estimate by hand, the file, the collection, and the
CoreferenceModel feature that scores an OTHER option by its word's share."""

import math

import pytest

from cad.cli import main
from cad.cm.class_model import ClassTable
from cad.cm.collect import collect_class_instances
from cad.cm.config import FEATURE_NAME, feature_config
from cad.cm.other_words import OtherWords, count_words, other_word
from cad.core.errors import CadError
from cad.decoder import Decoder, DecoderModel
from cad.lang import NONE, OTHER
from cad.moses.ini import baseline_config, parse_config, write_config
from coref.records import PronounResolution

COUNTS = {"it-obj": {"les": 3.0, "pas": 1.0}, "it-subj": {"les": 1.0}}


def test_witten_bell_by_hand():
    o = OtherWords(COUNTS)
    # every pronoun (""): les 4, pas 1, c = 5, T = 2, over a uniform 1/3 (two words seen and one unseen)
    assert o.prob("", "les") == pytest.approx((4 + 2 / 3) / 7)
    assert o.prob("", "réparer") == pytest.approx((2 / 3) / 7)
    # "it": the same counts, on the row above
    p_it_les, p_it_new = (4 + 2 * 2 / 3) / 7, 2 * (2 / 21) / 7
    assert o.prob("it", "les") == pytest.approx(p_it_les)
    # it-obj: c = 4, T = 2
    assert o.prob("it-obj", "les") == pytest.approx((3 + 2 * p_it_les) / 6)
    assert o.prob("it-obj", "réparer") == pytest.approx(2 * p_it_new / 6) == pytest.approx(4 / 441)
    # the seen words and one unseen word share 1 in every context
    for ctx in ("", "it", "it-obj", "it-subj"):
        assert sum(o.prob(ctx, w) for w in ("les", "pas", "réparer")) == pytest.approx(1.0)
    # a context never seen is its parent's; a mixture's bundles read their pronoun and role
    assert o.prob("they-subj", "les") == o.prob("", "les")
    assert o.mixture_prob({"it-obj-fem-sing-ent": 0.5, "it-subj-nonref": 1.5}, "les") == \
        pytest.approx(0.25 * o.prob("it-obj", "les") + 0.75 * o.prob("it-subj", "les"))


def test_file_round_trip_and_errors(tmp_path):
    OtherWords(COUNTS).write(tmp_path / "other-words.gz")
    back = OtherWords.read(tmp_path / "other-words.gz")
    assert back.counts == COUNTS
    for text, what in (("it-obj\tles\n", "context<TAB>word<TAB>count"), ("it-obj\tles\tmany\n", "malformed count"),
                       ("it-obj\tles\t-1\n", "not a finite number"), ("", "empty")):
        (tmp_path / "bad").write_text("it-subj\tpas\t2\n" + text if text else "")
        with pytest.raises(CadError, match=what) as e:
            OtherWords.read(tmp_path / "bad")
        assert "bad" in str(e.value) and (not text or "bad:2" in str(e.value))


def test_collected_from_the_aligned_words():
    # it -> réparer (OTHER), it -> la (a class), it -> nothing (NONE)
    src = [["repair", "it"], ["repair", "it"], ["repair", "it"]]
    tgt = [["réparer"], ["la", "réparer"], ["réparer", "!"]]
    align = [[(0, 0), (1, 0)], [(0, 1), (1, 0)], [(0, 0)]]
    recs = [PronounResolution("d", k, 1, "it", False, []) for k in range(3)]
    out, words = [], []
    assert collect_class_instances(src, tgt, align, recs, False, {}, out, 2.0, words=words) == 3
    assert [c for _, c, _ in out] == [OTHER, "la", NONE] and words == ["réparer", "", ""]
    # the weight of a document, shared by the mixture's bundles' contexts
    counts = count_words([({"it-obj-nonref": 1.0}, OTHER, 2.0), ({"it-obj": 0.5, "it-subj": 0.5}, OTHER, 1.0),
                          ({"it-obj": 1.0}, "la", 1.0)], ["réparer", "tout", ""])
    assert counts == {"it-obj": {"réparer": 2.0, "tout": 0.5}, "it-subj": {"tout": 0.5}}
    assert other_word(["Réparer", "la"]) == "réparer"


def tiny(tmp_path, other: bool, weight: float = 1.0):
    """repair it -> réparer (the phrase table's favourite, *it* aligned to the verb) or la réparer."""
    from cad.lm.arpa import write_arpa
    from cad.lm.kneser_ney import estimate

    (tmp_path / "pt").write_text("repair it ||| réparer ||| 0.9 0.9 0.9 0.9 ||| 0-0 1-0\n"
                                 "repair it ||| la réparer ||| 0.1 0.1 0.1 0.1 ||| 0-1 1-0\n")
    write_arpa(estimate([["réparer"], ["la", "réparer"]], 2), tmp_path / "lm.arpa")
    write_config(baseline_config(str(tmp_path / "pt"), None, str(tmp_path / "lm.arpa"), 2, table_limit=0),
                 tmp_path / "base.ini")
    ClassTable({"it-obj-fem-sing": {"la": 0.3, OTHER: 0.4, NONE: 0.3}}).write(tmp_path / "classes.gz")
    OtherWords({"it-obj": {"les": 10.0, "pas": 5.0}}).write(tmp_path / "other-words.gz")
    cfg = feature_config(tmp_path / "base.ini", tmp_path / "classes.gz", weight,
                         other=tmp_path / "other-words.gz" if other else None)
    write_config(cfg, tmp_path / "cm.ini")
    return DecoderModel.load(tmp_path / "cm.ini")


def test_the_feature_scores_other_by_its_word(tmp_path):
    fem = {"pronouns": {1: {"it-obj-fem-sing": 1.0}}}
    # P(OTHER) whole: réparer collects .4 against la's .3
    tr = Decoder(tiny(tmp_path, False)).translate("repair it", context=fem)
    assert tr.text == "réparer" and tr.feature_dict()[FEATURE_NAME] == pytest.approx([math.log(0.4)])
    # P(OTHER) x P(réparer | OTHER, it-obj): a word the corpus never aligned to it
    model = tiny(tmp_path, True)
    assert "other=" in (tmp_path / "cm.ini").read_text()
    share = OtherWords({"it-obj": {"les": 10.0, "pas": 5.0}}).prob("it-obj", "réparer")
    tr = Decoder(model).translate("repair it", context=fem, nbest=2)
    assert tr.text == "la réparer" and tr.feature_dict()[FEATURE_NAME] == pytest.approx([math.log(0.3)])
    offset = next(s.offset for s in model.slots if s.name == FEATURE_NAME)
    verb = [d for d in tr.nbest if d.text == "réparer"]
    assert verb and verb[0].features[offset] == pytest.approx(math.log(0.4 * share))
    # no pronoun context: the feature says nothing, the phrase table decides
    assert Decoder(model).translate("repair it").text == "réparer"


def test_config_and_errors(tmp_path):
    tiny(tmp_path, False)
    args = ["-q", "cm", "config", "--mode", "feature", "--base", str(tmp_path / "base.ini"),
            "--cm", str(tmp_path / "classes.gz"), "--out", str(tmp_path / "out.ini")]

    def line():
        return next(f for f in parse_config(tmp_path / "out.ini").features if f.type == "CoreferenceModel")

    # the table cad cm build wrote beside the class table, by default
    assert main(args + ["--objective", "likelihood"]) == 0
    assert line().args["other"] == str((tmp_path / "other-words.gz").resolve())
    assert main(args + ["--other-words", "none"]) == 0 and "other" not in line().args
    # a credit objective shares nothing out by word: no table by default, an error when asked for one
    assert main(args + ["--objective", "credit"]) == 0 and "other" not in line().args
    assert main(args + ["--objective", "credit", "--other-words", str(tmp_path / "other-words.gz")]) == 1
    assert main(args + ["--other-words", str(tmp_path / "missing.gz")]) == 1
    # the source-feature table (Spanish->English) has no French words to share out; a path for it is refused
    from cad.cm.config import other_words_beside

    assert other_words_beside(tmp_path / "classes.gz", None, "likelihood", reads_words=False) is None
    with pytest.raises(CadError, match="--other-words"):
        other_words_beside(tmp_path / "classes.gz", str(tmp_path / "other-words.gz"), "likelihood", reads_words=False)
    # and the decoder refuses the same, naming the configuration's line
    text = (tmp_path / "cm.ini").read_text()
    (tmp_path / "credit.ini").write_text(text.replace("CoreferenceModel ", "CoreferenceModel objective=credit other="
                                                      + str(tmp_path / "other-words.gz") + " "))
    with pytest.raises(CadError, match="credit.ini:.*objective=likelihood only"):
        DecoderModel.load(tmp_path / "credit.ini")
    (tmp_path / "gone.ini").write_text(text.replace("CoreferenceModel ", f"CoreferenceModel other={tmp_path}/gone.gz "))
    with pytest.raises(CadError, match="gone.ini:.*other=.*gone.gz"):
        DecoderModel.load(tmp_path / "gone.ini")


def test_the_reranker_scores_other_by_its_word_as_the_feature_does():
    """cad translate --cm-mode rerank and CM-rerank: the same share of P(OTHER) as the feature's."""
    from cad.translate.rerank import ClassReranker, Hypothesis

    table = ClassTable({"it-obj-fem-sing": {"la": 0.3, OTHER: 0.4, NONE: 0.3}})
    words = OtherWords({"it-obj": {"les": 10.0, "pas": 5.0}})
    mix = {1: {"it-obj-fem-sing": 1.0}}
    verb = Hypothesis(["réparer"], 0.0, [(0, 0), (1, 0)])
    clitic = Hypothesis(["la", "réparer"], 0.0, [(0, 1), (1, 0)])
    source = ["repair", "it"]
    whole = ClassReranker(table, 1.0, tagger=lambda s: [[]], objective="likelihood", reading="mixture")
    shared = ClassReranker(table, 1.0, tagger=lambda s: [[]], objective="likelihood", reading="mixture", other=words)
    assert whole.cm_score(mix, verb, source) == pytest.approx(math.log(0.4))
    assert shared.cm_score(mix, verb, source) == pytest.approx(math.log(0.4 * words.prob("it-obj", "réparer")))
    # a pronoun's class is scored as before
    assert shared.cm_score(mix, clitic, source) == whole.cm_score(mix, clitic, source) == pytest.approx(math.log(0.3))
    # two weights: the word's share goes with the form's
    split = ClassReranker(table, (2.0, 5.0), tagger=lambda s: [[]], objective="likelihood", reading="mixture",
                          other=words)
    base = ClassReranker(table, (2.0, 5.0), tagger=lambda s: [[]], objective="likelihood", reading="mixture")
    assert split.cm_score(mix, verb, source) - base.cm_score(mix, verb, source) == \
        pytest.approx(2.0 * math.log(words.prob("it-obj", "réparer")))
    with pytest.raises(CadError, match="objective likelihood"):
        ClassReranker(table, 1.0, tagger=lambda s: [[]], objective="credit", other=words)


def test_cad_translate_rerank_reads_the_table_beside_classes_or_the_one_named(tmp_path):
    from cad.cli import build_parser
    from cad.cli.translate import _reranker

    ClassTable({"it-obj-fem-sing": {"la": 0.3, OTHER: 0.4, NONE: 0.3}}).write(tmp_path / "classes.gz")

    def reranker(*extra):
        a = build_parser().parse_args(["translate", "--config", "x.ini", "--input", "x.en", "--cm-mode", "rerank",
                                       "--classes", str(tmp_path / "classes.gz"), *extra])
        return _reranker(a, "rerank")

    assert reranker().other is None                              # none written beside it
    OtherWords(COUNTS).write(tmp_path / "other-words.gz")
    assert reranker().other.counts == COUNTS                     # cad cm build's, beside classes.gz
    assert reranker("--other-words", "none").other is None
    assert reranker("--objective", "credit").other is None       # credit shares nothing out by word
    with pytest.raises(CadError, match="no such file"):
        reranker("--other-words", str(tmp_path / "missing.gz"))
    with pytest.raises(CadError, match="objective likelihood"):
        reranker("--objective", "credit", "--other-words", str(tmp_path / "other-words.gz"))
