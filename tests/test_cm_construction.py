"""The CM's bundles read the pronoun's construction (as the role) and the coreference's referent
type (cad/cm/construction.py), the same way in training and in translation; and the shipped
objective scores the probability of the class the decoder writes, not APT's credit."""

import math

import pytest

from cad.cm.class_model import ClassTable, pronoun_mixture, read_mixture, referent_split, score_class
from cad.lang import NONE
from cad.cm.config import feature_config
from cad.cm.construction import cm_parts, construction_role
from cad.core.errors import CadError
from coref.english.constructions import COPULA_ADJECTIVE, EXTRAPOSITION, SUBJECT, Construction
from coref.records import Candidate, PronounResolution


def test_the_parts_and_their_setting(monkeypatch):
    assert cm_parts() == {"construction", "referent", "demonstrative", "complement", "governor"}
    monkeypatch.setenv("CAD_CM_PARTS", "referent")
    assert cm_parts() == {"referent"}
    monkeypatch.setenv("CAD_CM_PARTS", "")
    assert cm_parts() == set()
    monkeypatch.setenv("CAD_CM_PARTS", "construction,gender")
    with pytest.raises(CadError, match="gender"):
        cm_parts()


def test_construction_roles_keep_the_parse_roles_names_and_part_the_new_ones():
    assert construction_role(Construction(COPULA_ADJECTIVE)) == "copa"
    assert construction_role(Construction(COPULA_ADJECTIVE, participle=True)) == "copp"
    assert construction_role(Construction(EXTRAPOSITION)) == "ext"
    # *be* after an auxiliary: no *ce* in French (*ça a été*), whatever follows
    assert construction_role(Construction(COPULA_ADJECTIVE, auxiliary=True)) == "copm"
    assert construction_role(Construction(COPULA_ADJECTIVE, participle=True, auxiliary=True)) == "copp"
    assert construction_role(Construction(SUBJECT)) == "subj"
    # no hyphen: a role is one part of a bundle
    from cad.cm.construction import ROLE_OF_CONSTRUCTION

    assert all("-" not in r for r in ROLE_OF_CONSTRUCTION.values())


SENTENCES = [s.split() for s in ("the house is old .", "it is important to know it .", "it is a ruin .",
                                 "it was sold last year .", "it was very old .", "it works .",
                                 "it was the roof that fell .", "it has been a ruin for years .")]
ROLES = {(1, 0): "ext", (1, 5): "obj", (2, 0): "copn", (3, 0): "copp", (4, 0): "copa", (5, 0): "subs",
         (6, 0): "cleft", (7, 0): "copm"}
PARSE_ROLES = {(1, 0): "copa", (1, 5): "obj", (2, 0): "copn", (3, 0): "subj", (4, 0): "copa", (5, 0): "subj",
               (6, 0): "copn", (7, 0): "copn"}


def test_cm_roles_are_the_constructions_unless_left_out(parser, monkeypatch):
    from cad.cm.construction import cm_roles

    assert cm_roles(SENTENCES, set(ROLES)) == ROLES
    monkeypatch.setenv("CAD_CM_PARTS", "referent")
    assert cm_roles(SENTENCES, set(ROLES)) == PARSE_ROLES


def test_a_noun_phrase_that_names_a_person_is_a_role_of_its_own(parser, monkeypatch):
    """*they are doctors* (*elles sont médecins*) apart from *they were gifts* (*c'étaient des
    cadeaux*); without the complement part both are `copn`."""
    from cad.cm.construction import cm_roles

    sentences = [s.split() for s in ("they are doctors .", "they were gifts from my father .", "it was a mouse .",
                                     "it was a good idea .", "I know what they are .")]
    positions = {(0, 0), (1, 0), (2, 0), (3, 0), (4, 3)}
    want = {(0, 0): "coph", (1, 0): "copn", (2, 0): "coph", (3, 0): "copn", (4, 3): "cop"}
    assert cm_roles(sentences, positions) == want
    monkeypatch.setenv("CAD_CM_PARTS", "construction,referent,demonstrative")
    assert cm_roles(sentences, positions) == {k: "copn" if v == "coph" else v for k, v in want.items()}


def test_a_subject_of_a_verb_that_takes_a_situation_is_a_role_of_its_own(parser, monkeypatch):
    """*it works* (*ça marche*) apart from *it broke* (*il s'est cassé*), by the shipped list of
    situation governors (cad/cm/governors.py); *they* and the copula keep theirs, and without the
    governor part every plain subject is `subj`."""
    from cad.cm.construction import cm_roles
    from cad.cm.governors import shipped

    assert {"works", "happened", "means"} <= shipped().verbs and "broke" not in shipped().verbs
    sentences = [s.split() for s in ("I will show you how it works .", "it broke last week .",
                                     "it happened again .", "they work .", "it is what it means .")]
    positions = {(0, 5), (1, 0), (2, 0), (3, 0), (4, 0), (4, 3)}
    want = {(0, 5): "subs", (1, 0): "subj", (2, 0): "subs", (3, 0): "subj", (4, 0): "copc", (4, 3): "subs"}
    assert cm_roles(sentences, positions) == want
    monkeypatch.setenv("CAD_CM_PARTS", "construction,referent,demonstrative,complement")
    assert cm_roles(sentences, positions) == {k: "subj" if v == "subs" else v for k, v in want.items()}


def _records(referent_probs=None):
    """*it* of sentence 1 pleonastic; the others referring to *the house* of sentence 0."""
    house = Candidate(0, 0, 2, 1, "the house", 1.0, "sing", kind="np")
    out = []
    for (s, i) in sorted(ROLES):
        if (s, i) == (1, 0):
            out.append(PronounResolution("d", s, i, "it", False, [], 0.0))
        else:
            out.append(PronounResolution("d", s, i, "it", True, [house], 1.0, referent_probs=referent_probs))
    return out


def test_training_puts_the_construction_in_the_bundle(parser, monkeypatch):
    """cad cm build's instances: the construction is the bundle's role (dropping it fails here)."""
    from cad.cm.collect import collect_class_instances

    tgt = [s.split() for s in ("la maison est vieille .", "il est important de le savoir .", "c' est une ruine .",
                               "elle a été vendue l' an dernier .", "elle était très vieille .", "ça marche .",
                               "c' était le toit qui est tombé .", "ça a été une ruine pendant des années .")]
    align = [[(k, k) for k in range(min(len(a), len(b)))] for a, b in zip(SENTENCES, tgt)]
    morph: dict = {}
    monkeypatch.setattr("cad.cm.collect.candidate_features", lambda c, src, tgt, al, m, pair=None: ("fem", "sing"))
    out = []
    collect_class_instances(SENTENCES, tgt, align, _records(), False, morph, out)
    mixtures = [m for m, _, _ in out]
    assert mixtures[0] == {"it-ext-nonref": 1.0}                       # it is important to know
    roles = [next(iter(m)).split("-")[1] for m in mixtures]
    assert roles == [ROLES[k] for k in sorted(ROLES)]
    assert out[3][1] == "elle" and "it-copp-fem-sing" in next(iter(mixtures[3]))
    monkeypatch.setenv("CAD_CM_PARTS", "referent")
    old = []
    collect_class_instances(SENTENCES, tgt, align, _records(), False, morph, old)
    assert [next(iter(m)).split("-")[1] for m, _, _ in old] == [PARSE_ROLES[k] for k in sorted(ROLES)]


def test_translation_reads_the_same_roles_as_training(parser):
    """cad translate's analysis (the roles the feature's mixtures are built with) gives the
    constructions' roles, from the resolver's parse as from its own."""
    from cad.translate.analysis import analyse

    class Resolver:
        reads_case = True

        def resolve(self, doc_id, sentences):
            return _records()

    got = analyse(Resolver(), "d", SENTENCES, with_roles=True)
    assert got.roles == ROLES


def test_the_referent_type_splits_the_mixture():
    """The ranker's referent probabilities give the nonref, event and entity shares; an event
    candidate's own probability no longer counts (the event model's share stands for it)."""
    cands = [Candidate(0, 0, 2, 1, "the house", 0.75, kind="np"), Candidate(0, 3, 5, 4, "it rained", 0.25,
                                                                            kind="event")]
    probs = {"pleonastic": 0.1, "event": 0.3, "np:place": 0.4, "np:object": 0.2}
    r = PronounResolution("d", 1, 0, "it", True, cands, 0.9, referent_probs=probs)
    assert referent_split(r) == pytest.approx((0.1, 0.3, 0.6))
    mix = pronoun_mixture(r, "subj", lambda c: {("fem", "sing"): 1.0})
    assert mix == pytest.approx({"it-subj-nonref": 0.1, "it-subj-event": 0.3, "it-subj-fem-sing": 0.6})
    # without the part (or without referent probabilities): seed 003's shares, as before
    old = {"it-subj-nonref": 0.1, "it-subj-event": 0.225, "it-subj-fem-sing": 0.675}
    assert pronoun_mixture(r, "subj", lambda c: {("fem", "sing"): 1.0}, referent=False) == pytest.approx(old)
    bare = PronounResolution("d", 1, 0, "it", True, cands, 0.9)
    assert pronoun_mixture(bare, "subj", lambda c: {("fem", "sing"): 1.0}) == pytest.approx(old)


def test_map_takes_the_referent_the_coreference_decides_then_its_likeliest_bundle():
    # an event share of .3 against an entity split between two genders (.35 and .25): the ranker
    # calls it an event (a quarter of the referring share or more), so map reads the event bundle
    mix = {"it-subj-nonref": 0.1, "it-subj-event": 0.3, "it-subj-masc-sing": 0.35, "it-subj-fem-sing": 0.25}
    assert read_mixture(mix, "map") == {"it-subj-event": 1.0}
    assert read_mixture(mix, "map", referent=False) == {"it-subj-masc-sing": 1.0}
    entity = {"it-subj-nonref": 0.1, "it-subj-event": 0.1, "it-subj-masc-sing": 0.3, "it-subj-fem-sing": 0.5}
    assert read_mixture(entity, "map") == {"it-subj-fem-sing": 1.0}
    pleonastic = {"it-ext-nonref": 0.45, "it-ext-event": 0.1, "it-ext-masc-sing": 0.2, "it-ext-fem-sing": 0.25}
    assert read_mixture(pleonastic, "map") == {"it-ext-nonref": 1.0}
    assert read_mixture(mix, "mixture") == mix


def test_the_shipped_objective_scores_the_written_class():
    """The reference's class is il .40, ce .35, ça .25: the likelihood objective pays each class
    its own probability, so il wins; credit pays ce for il and ça too (1.0), so ce always won."""
    dist = {"il": 0.40, "ce": 0.35, "ça": 0.25}
    likelihood = {c: score_class(dist, c) for c in ("il", "ce", "ça", NONE)}
    assert likelihood["il"] == pytest.approx(math.log(0.40)) and likelihood["ça"] == pytest.approx(math.log(0.25))
    assert max(likelihood, key=likelihood.get) == "il"
    credit = {c: score_class(dist, c, "credit") for c in ("il", "ce", "ça")}
    assert credit["ce"] == pytest.approx(0.0) and max(credit, key=credit.get) == "ce"
    table = ClassTable({"it-subj": dist})
    assert table.score({"it-subj": 1.0}, "il") == pytest.approx(math.log(0.40))


def test_feature_configurations_score_the_likelihood_unless_told(tmp_path):
    from cad.moses.ini import baseline_config, write_config

    base = tmp_path / "moses.ini"
    write_config(baseline_config(str(tmp_path / "pt.gz"), None, str(tmp_path / "lm.arpa"), 3), base)
    line = next(f for f in feature_config(base, tmp_path / "classes.gz").features if f.type == "CoreferenceModel")
    assert "objective" not in line.args                  # the decoder's default: likelihood
    line = next(f for f in feature_config(base, tmp_path / "classes.gz", objective="credit").features
                if f.type == "CoreferenceModel")
    assert line.args["objective"] == "credit"


def test_a_demonstrative_antecedent_is_a_situation(monkeypatch):
    """*that leads to starvation. It leads to unrest*: *that* on its own stands for a situation,
    in training and in translation (its share goes to the event bundle, and it passes nothing on)."""
    cands = [Candidate(0, 4, 5, 4, "that", 0.6, kind="np"), Candidate(0, 0, 2, 1, "the drought", 0.4, kind="np")]
    r = PronounResolution("d", 1, 0, "it", True, cands, 1.0)
    fem = lambda c: {("fem", "sing"): 1.0} if c.text == "the drought" else {None: 1.0}
    assert pronoun_mixture(r, "subj", fem, pass_through=True) == pytest.approx(
        {"it-subj-event": 0.6, "it-subj-fem-sing": 0.4})
    monkeypatch.setenv("CAD_CM_PARTS", "construction,referent")
    # as before: *that* says nothing, and in translation passes its weight on to the noun
    assert pronoun_mixture(r, "subj", fem, pass_through=True) == pytest.approx({"it-subj-fem-sing": 1.0})
    assert pronoun_mixture(r, "subj", fem) == pytest.approx({"it-subj": 0.6, "it-subj-fem-sing": 0.4})


def test_a_subject_it_translated_ca_is_a_situation(monkeypatch):
    from cad.cm.construction import SITUATION, situation_translation

    it = Candidate(0, 0, 1, 0, "it", 1.0, kind="np")
    words, alignment = ["ça", "marche", "."], [(0, 0), (1, 1), (2, 2)]
    assert situation_translation(it, words, alignment, "subj")
    assert not situation_translation(it, words, alignment, "obj")         # *j'ai goûté ça*: a thing
    assert not situation_translation(it, ["il", "marche", "."], alignment, "subj")
    assert not situation_translation(it, ["c'", "est", "."], alignment, "copa")
    # a fact of the pair's target (Language.situation_classes): German declares none
    from cad.lang.pairs import pair

    assert not situation_translation(it, ["das", "geht", "."], alignment, "subj", pair("en", "de"))
    r = PronounResolution("d", 1, 0, "it", True, [it], 1.0)
    assert pronoun_mixture(r, "subj", lambda c: {SITUATION: 1.0}) == {"it-subj-event": 1.0}
    monkeypatch.setenv("CAD_CM_PARTS", "construction,referent")
    assert not situation_translation(it, words, alignment, "subj")


def test_a_table_built_with_other_situation_governors_is_warned_about(tmp_path, caplog):
    import json
    import logging

    from cad.cm.construction import CM_PARTS, check_parts, governors_read

    table = tmp_path / "classes.gz"
    table.write_text("")

    def provenance(verbs):
        (tmp_path / "provenance.json").write_text(json.dumps({"cm_parts": sorted(CM_PARTS), "situation_governors": verbs}))
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            check_parts(table, "table", None)
        return [r.getMessage() for r in caplog.records]

    assert provenance(governors_read()) == []
    assert any("situation governors" in m for m in provenance(["works"]))
    # the classifier records them in its meta
    class Classifier:
        meta = {"cm_parts": sorted(CM_PARTS), "situation_governors": ["works"]}

    caplog.clear()
    with caplog.at_level(logging.WARNING):
        check_parts(tmp_path / "classifier.json", "classifier", Classifier())
    assert any("situation governors" in m for m in caplog.messages)
