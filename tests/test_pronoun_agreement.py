"""The PronounAgreement decoder feature (cad/decoder/agreement.py): the reading of agreement as
states (cad/lang/fr_agreement.py, AgreementStates), the inflected copies of predicate phrases, and
the feature deciding a translation on a tiny model, in the Python search and in the compiled core
alike. The lexicon is a small one written here in Grammalecte's format, so that nothing depends on
Debian's package."""

from __future__ import annotations

import pytest

from cad.core.errors import CadError
from cad.decoder import Decoder, DecoderModel
from cad.resources import fr_inflection
from cad.lang.fr_agreement import NONE, STATES, SUBJECTS, AgreementStates

from conftest import write

AFF = """SET UTF-8
FLAG long

SFX F+ Y 4
SFX F+ 0 0 [^sxz] is:mas is:sg
SFX F+ 0 s [^sxz] is:mas is:pl
SFX F+ 0 e [^sxz] is:fem is:sg
SFX F+ 0 es [^sxz] is:fem is:pl

SFX S. Y 2
SFX S. 0 0 [^sxz] is:sg
SFX S. 0 s [^sxz] is:pl
"""
DIC = """10
rapide/S. po:adj is:epi
mort/F+ po:adj
blessé/F+ po:adj
très po:mg po:adv
pas po:mg po:negadv
une po:detind is:fem is:sg
souris po:nom is:fem is:inv
mort po:nom is:fem is:sg
était po:v0e
dort po:v1
"""


@pytest.fixture
def states(tmp_path):
    return AgreementStates(fr_inflection.load(write(tmp_path / "fr.dic", DIC), write(tmp_path / "fr.aff", AFF)))


def before(subject: str) -> int:     # the state after a subject, before its *être*
    return 1 + SUBJECTS.index(subject)


def after(subject: str) -> int:      # after its *être*
    return 1 + len(SUBJECTS) + SUBJECTS.index(subject)


def read(states: AgreementStates, words: str, start: int, twin: int = -1) -> tuple[int, int]:
    """(the state after `words` from `start`, agreeing less disagreeing predicates)"""
    t = states.transitions(words.split(), twin)
    return t[start], t[STATES + start] - t[2 * STATES + start]


def test_a_phrase_read_from_every_state(states):
    # a predicate agrees with the subject before it (+1) or not (-1); nothing to agree with: 0
    assert read(states, "était mort", before("il")) == (NONE, 1)
    assert read(states, "était mort", before("elle")) == (NONE, -1)
    assert read(states, "était mortes", before("elles")) == (NONE, 1)
    assert read(states, "était mort", NONE) == (NONE, 0)
    # the subject inside the phrase, whatever came before; the reading goes on over adverbs, the
    # negation and English words the table let through
    assert read(states, "elle était pas très morte", before("il")) == (NONE, 1)
    assert read(states, "elle était mortally", NONE) == (after("elle"), 0)
    assert read(states, "blessé .", after("elle")) == (NONE, -1)
    assert read(states, "blessée .", after("elle")) == (NONE, 1)
    # a noun phrase after a personal pronoun's *être* disagrees with the pronoun (French says *c'était
    # une souris*), after *ce* it counts nothing; another verb: no predicate; the reading ends
    assert read(states, "était une souris", before("elle")) == (NONE, -1)
    assert read(states, "était pas des souris", before("ils")) == (NONE, -1)
    assert read(states, "était une souris", before("ce")) == (NONE, 0)
    assert read(states, "une souris", NONE) == (NONE, 0)
    assert read(states, "dort", before("elle")) == (NONE, 0)
    # an inflected copy's word counts against it unless it is a predicate that agrees
    assert read(states, "morte", after("elle"), twin=0) == (NONE, 1)
    assert read(states, "morte", after("il"), twin=0) == (NONE, -1)
    assert read(states, "morte souris", NONE, twin=0) == (NONE, -1)


@pytest.mark.parametrize("phrase", ["était mort .", "pas mort une souris", "elle était", "une souris", "mort",
                                    "très mort dort", "était pas très", "mortally blessé dort ."])
def test_a_phrase_table_is_its_words_read_one_by_one(states, phrase):
    """The shortcut for phrases whose last word ends any reading gives the word-by-word tables."""
    words = phrase.split()
    expected = bytearray(3 * STATES)
    for s in range(STATES):
        state, agree, disagree = s, 0, 0
        for w in words:
            state, a, d = states.step(state, w)
            agree, disagree = agree + a, disagree + d
        expected[s], expected[STATES + s], expected[2 * STATES + s] = state, agree, disagree
    assert states.transitions(words) == bytes(expected)


def test_ce_takes_a_masculine_singular_predicate(states):
    # a feminine predicate after c' disagrees; a masculine one earns nothing, as after il a
    # predicate of both genders: the reading gives the search no reason to write either
    assert read(states, "c' était mort", NONE) == (NONE, 0)
    assert read(states, "c' était morte", NONE) == (NONE, -1)
    assert read(states, "elle était rapide", NONE) == (NONE, 0)
    assert read(states, "elle était rapides", NONE) == (NONE, -1)
    assert read(states, "elles étaient rapides", NONE) == (NONE, 0)
    assert read(states, "ce sont des souris", NONE) == (NONE, 0)


def test_a_subject_pronoun_copied_in_the_forms_its_etre_allows(states):
    copies = states.pronoun_copies
    assert copies(("ils", "étaient", "des")) == [("elles", "étaient", "des"), ("c'", "étaient", "des")]
    assert copies(("il", "n'", "est", "pas")) == [("elle", "n'", "est", "pas"), ("ce", "n'", "est", "pas")]
    assert copies(("c'", "était", "mort")) == [("il", "était", "mort"), ("elle", "était", "mort")]
    assert copies(("ce", "sont")) == [("ils", "sont"), ("elles", "sont")]
    assert copies(("Elle", "sera")) == [("Il", "sera"), ("Ce", "sera")]
    # a compound tense of *être*: the personal pronouns of its number, from *on* too (*it was
    # stolen* → *on a été volé*)
    assert copies(("il", "a", "été")) == [("elle", "a", "été")]
    assert copies(("on", "a", "été", "volé")) == [("il", "a", "été", "volé"), ("elle", "a", "été", "volé")]
    assert copies(("ils", "n'", "ont", "pas", "été")) == [("elles", "n'", "ont", "pas", "été")]
    # no finite *être* right after it, *ça*, no subject first, *on* or *ce* before anything but a
    # compound *être* of the singular: nothing to copy
    for words in [("il",), ("ça", "est"), ("cela", "était"), ("la", "est"), ("il", "y", "est"), ("il", "a", "vu"),
                  ("on", "est"), ("on", "a", "volé"), ("on", "ont", "été"), ("c'", "a", "été"), ("ça", "a", "été")]:
        assert copies(words) == []


def test_the_compiled_core_counts_the_same_states():
    from cad.decoder import native

    if not native.available():
        pytest.skip("the compiled core is not built")
    assert native._core.AGREEMENT_STATES == STATES


def test_the_word_to_inflect_and_its_forms(states):
    assert states.predicate_index(["mort"]) == 0
    assert states.predicate_index(["n'", "était", "pas", "mort"]) == 3
    assert states.predicate_index(["une", "souris", "morte"]) is None
    assert states.predicate_index(["mortally", "blessé"]) == 1
    assert states.twin_forms("mort") == ["morte", "morts", "mortes"]
    assert states.twin_forms("blessées") == ["blessé", "blessée", "blessés"]


# -- the feature on a tiny model: "it was dead" is "il était mort" by the table and the LM ----------

TABLE = ("it ||| il ||| 0.7 0.7 0.7 0.7 ||| 0-0\nit ||| elle ||| 0.3 0.3 0.3 0.3 ||| 0-0\n"
         "was ||| était ||| 1 1 1 1 ||| 0-0\ndead ||| mort ||| 1 1 1 1 ||| 0-0\n"
         "wounded ||| blessé ||| 1 1 1 1 ||| 0-0\n"
         "it was dead ||| il était mort ||| 0.1 0.1 0.1 0.1 ||| 0-0 1-1 2-2\n")
# the LM has seen *mort* and *blessé*, never their feminine forms
LM = [["il", "était", "mort"], ["elle", "était", "là"], ["il", "était", "blessé"]]


def tiny_model(tmp_path, monkeypatch, states, agreement: tuple[float, float] | None, extra: str = "",
               table: str = TABLE, lm: list[list[str]] = LM):
    from cad.cm.class_model import ClassTable
    from cad.cm.config import feature_config
    from cad.decoder import agreement as agreement_module
    from cad.lang import NONE as NO_CLASS
    from cad.lm.arpa import write_arpa
    from cad.lm.kneser_ney import estimate
    from cad.moses.ini import baseline_config, write_config

    monkeypatch.setattr(agreement_module, "pair_states", lambda pair: states)
    write(tmp_path / "pt", table)
    write_arpa(estimate(lm, 3), tmp_path / "lm.arpa")
    write_config(baseline_config(str(tmp_path / "pt"), None, str(tmp_path / "lm.arpa"), 3, table_limit=0),
                 tmp_path / "base.ini")
    ClassTable({"it-subj-fem-sing": {"elle": 0.9, "il": 0.05, NO_CLASS: 0.05},
                "it-subj-masc-sing": {"il": 0.9, "elle": 0.05, NO_CLASS: 0.05}}).write(tmp_path / "classes.gz")
    cfg = feature_config(tmp_path / "base.ini", tmp_path / "classes.gz", 2.0, agreement=agreement)
    if extra:
        line = next(f for f in cfg.features if f.type == "PronounAgreement")
        line.args.update(dict(kv.split("=") for kv in extra.split()))
        n = int(line.args["num-features"])
        cfg.weights[line.name] = (cfg.weights[line.name] + [1.0] * n)[:n]
    write_config(cfg, tmp_path / "cm.ini")
    return DecoderModel.load(tmp_path / "cm.ini")


FEM = {"pronouns": {0: {"it-subj-fem-sing": 1.0}}}
MASC = {"pronouns": {0: {"it-subj-masc-sing": 1.0}}}


@pytest.mark.parametrize("native", [False, True])
def test_the_predicate_agrees_with_the_pronoun_the_decoder_writes(tmp_path, monkeypatch, states, native):
    from cad.decoder import native as native_core

    if native and not native_core.available():
        pytest.skip("the compiled core is not built")
    calls = []
    search = native_core.search
    monkeypatch.setattr(native_core, "search", lambda *a, **k: calls.append(1) or search(*a, **k))
    without = Decoder(tiny_model(tmp_path / "a", monkeypatch, states, None), native=native)
    assert without.translate("it was dead", context=FEM).text == "elle était mort"
    model = tiny_model(tmp_path / "b", monkeypatch, states, (1.0, 3.0))
    dec = Decoder(model, native=native)
    # the CM chose elle; the predicate follows it, through an inflected copy of *dead ||| mort*
    tr = dec.translate("it was dead", context=FEM, nbest=3)
    assert tr.text == "elle était morte"
    assert tr.feature_dict()["PronounAgreement0"] == [1.0, 0.0]
    assert [s.twin for s in tr.best.steps] == [False, False, True]
    assert tr.best.total == pytest.approx(sum(w * v for w, v in zip(model.weights(), tr.best.features)))
    assert dec.translate("it was dead", context=MASC).text == "il était mort"
    # the agreement does not choose the pronoun: without context, the table's il and its predicate
    assert dec.translate("it was dead").text == "il était mort"
    # an English word the table let through keeps the reading going
    assert dec.translate("it was mortally wounded", context=FEM).text == "elle était mortally blessée"
    # the compiled core ran the searches it was asked to, with the same results as Python's
    assert bool(calls) == native


def test_without_inflected_copies_the_feature_has_nothing_to_choose(tmp_path, monkeypatch, states):
    dec = Decoder(tiny_model(tmp_path, monkeypatch, states, (1.0, 3.0), extra="twins=0"))
    tr = dec.translate("it was dead", context=FEM)
    assert tr.text == "elle était mort" and tr.feature_dict()["PronounAgreement0"] == [0.0, -1.0]


def test_no_copies_away_from_a_subject_pronoun(tmp_path, monkeypatch, states):
    """Only options of spans within `reach` words after an English subject pronoun are copied."""
    from cad.decoder.options import sentence_options

    model = tiny_model(tmp_path, monkeypatch, states, (1.0, 3.0), extra="reach=1 pronouns=0")
    words = ["it", "was", "dead"]
    # the pronoun's own span and the one after it, not the one two words on
    assert [o.words for o in sentence_options(model, words).options[(2, 3)]] == [("mort",)]
    feature = next(f for f in model.stateful if type(f).__name__ == "PronounAgreement")
    feature.reach = 2
    got = sentence_options(model, words).options[(2, 3)]
    assert sorted(o.words for o in got) == [("mort",), ("morte",), ("mortes",), ("morts",)]
    assert [o.twin for o in got] == [False, True, True, True]
    # a phrase that holds the pronoun with its predicate is copied too
    feature.reach = 0
    got = sentence_options(model, words)
    assert sorted(o.words for o in got.options[(0, 3)])[:2] == [("il", "était", "mort"), ("il", "était", "morte")]
    assert [o.words for o in got.options[(2, 3)]] == [("mort",)]


@pytest.mark.parametrize("native", [False, True])
def test_a_noun_phrase_after_be_gets_ce_through_a_copy_of_the_pronoun(tmp_path, monkeypatch, states, native):
    """The table has *they were* → *ils étaient* only; the copy *c'étaient* is the option that lets
    the noun phrase after it (*des souris*) have the pronoun French gives it."""
    from cad.decoder import native as native_core

    if native and not native_core.available():
        pytest.skip("the compiled core is not built")
    table = ("they were ||| ils étaient ||| 1 1 1 1 ||| 0-0 1-1\nmice ||| des souris ||| 1 1 1 1 ||| 0-0 0-1\n"
             "dead ||| morts ||| 1 1 1 1 ||| 0-0\n")
    # the LM knows both subjects before either predicate equally
    lm = [[subject, "étaient", *rest] for subject in ("ils", "c'") for rest in (["morts"], ["des", "souris"])]
    got = {}
    for name, extra in [("without", "pronouns=0"), ("with", "")]:
        model = tiny_model(tmp_path / name, monkeypatch, states, (1.0, 3.0), extra=extra, table=table, lm=lm)
        got[name] = Decoder(model, native=native).translate("they were mice")
    assert got["without"].text == "ils étaient des souris"
    assert got["without"].feature_dict()["PronounAgreement0"] == [0.0, -1.0]
    assert got["with"].text == "c' étaient des souris"
    assert got["with"].feature_dict()["PronounAgreement0"] == [0.0, 0.0]
    assert [s.twin for s in got["with"].best.steps] == [True, False]
    # a predicate: the copy is there, but *morts* agrees with *ils*, and not with *ce*
    model = tiny_model(tmp_path / "dead", monkeypatch, states, (1.0, 3.0), table=table, lm=lm)
    assert Decoder(model, native=native).translate("they were dead").text == "ils étaient morts"


def test_pronoun_copies_only_on_it_and_they(tmp_path, monkeypatch, states):
    from cad.decoder.options import sentence_options

    table = "they were ||| ils étaient ||| 1 1 1 1 ||| 0-0 1-1\nhe was ||| il était ||| 1 1 1 1 ||| 0-0 1-1\n"
    model = tiny_model(tmp_path, monkeypatch, states, (1.0, 3.0), table=table, lm=[["ils", "étaient"]])
    got = sentence_options(model, ["they", "were", "he", "was"]).options
    assert sorted(o.words for o in got[(0, 2)]) == [("c'", "étaient"), ("elles", "étaient"), ("ils", "étaient")]
    assert [o.words for o in got[(2, 4)]] == [("il", "était")]


def test_an_object_clitic_aligned_to_it_is_copied_in_its_other_gender(tmp_path, monkeypatch, states):
    from cad.decoder.options import sentence_options

    table = ("repair it ||| le réparer ||| 1 1 1 1 ||| 0-1 1-0\nrepair him ||| le réparer ||| 1 1 1 1 ||| 0-1 1-0\n"
             "see it ||| l' voir ||| 1 1 1 1 ||| 0-1 1-0\nexplained it ||| expliqué le ||| 1 1 1 1 ||| 0-0 1-1\n"
             "it ||| le ||| 1 1 1 1 ||| 0-0\n")
    model = tiny_model(tmp_path, monkeypatch, states, (1.0, 3.0), table=table, lm=[["le", "réparer"]])
    got = sentence_options(model, ["repair", "it", "repair", "him", "see", "it", "explained", "it"]).options
    assert sorted(o.words for o in got[(0, 2)]) == [("la", "réparer"), ("le", "réparer")]
    # not aligned to it/they (*him*), or a clitic of both genders (*l'*): no copy
    assert [o.words for o in got[(2, 4)]] == [("le", "réparer")]
    assert [o.words for o in got[(4, 6)]] == [("l'", "voir")]
    # a clitic that ends its phrase would stand after the verb (*j'ai expliqué la*): no copy
    assert [o.words for o in got[(6, 8)]] == [("expliqué", "le")]
    assert [o.words for o in got[(7, 8)]] == [("le",)]
    # pronouns=0: none
    model = tiny_model(tmp_path / "off", monkeypatch, states, (1.0, 3.0), extra="pronouns=0", table=table,
                       lm=[["le", "réparer"]])
    assert [o.words for o in sentence_options(model, ["repair", "it"]).options[(0, 2)]] == [("le", "réparer")]


@pytest.mark.parametrize("args, message", [("reach=x", "reach=x is not a whole number"),
                                           ("twins=2", "twins= is 0 or 1"), ("pronouns=2", "pronouns= is 0 or 1"),
                                           ("num-features=1", "num-features=2")])
def test_a_wrong_line_names_the_file_and_line(tmp_path, monkeypatch, states, args, message):
    with pytest.raises(CadError) as err:
        tiny_model(tmp_path, monkeypatch, states, (1.0, 3.0), extra=args)
    assert message in str(err.value) and err.value.path.endswith("cm.ini") and err.value.line is not None


def test_cm_config_writes_the_feature_at_its_weight(tmp_path, monkeypatch, states):
    from cad.cm.config import AGREEMENT_NAME, feature_config
    from cad.moses.ini import baseline_config, write_config

    write_config(baseline_config("pt", None, "lm.arpa", 3), tmp_path / "base.ini")
    write(tmp_path / "classes.gz", "")
    cfg = feature_config(tmp_path / "base.ini", tmp_path / "classes.gz", 10.0, agreement=(1.5, 4.0))
    assert [f.type for f in cfg.features].count("PronounAgreement") == 1
    assert cfg.weights[AGREEMENT_NAME] == [1.5, 4.0]
    # written again over it with 0: gone
    write_config(cfg, tmp_path / "with.ini")
    cfg = feature_config(tmp_path / "with.ini", tmp_path / "classes.gz", 10.0)
    assert "PronounAgreement" not in [f.type for f in cfg.features] and AGREEMENT_NAME not in cfg.weights
