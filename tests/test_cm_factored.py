"""The factored class table (cad/cm/factored.py): the form from the construction, the gender from
the antecedent over every construction together."""

import math

import pytest

from cad.cm.class_model import ClassTable
from cad.cm.factored import WittenBell, accumulate, factored, is_gendered, without_role
from cad.lang import NONE
from cad.lang.pairs import pair

FRENCH = pair("en", "fr").target
CLASSES, FAMILIES = FRENCH.classes, FRENCH.gender_families

# a subject *it* with a feminine antecedent is mostly *elle*; after *be* + adjective the corpus has
# few such pronouns, and most of them are *c'est*; a masculine antecedent after *be* is *il* or *ce*
COUNTS = {
    "it-subj-fem-sing": {"elle": 40.0, "il": 4.0, "ce": 4.0, "ça": 2.0},
    "it-subj-masc-sing": {"il": 40.0, "ce": 6.0, "ça": 4.0},
    "it-copa-fem-sing": {"ce": 3.0, "il": 1.0},
    "it-copa-masc-sing": {"ce": 6.0, "il": 3.0},
    "it-copa-nonref": {"il": 2.0, "ce": 2.0},
    "it-obj-fem-sing": {"la": 5.0, "l'": 5.0},
}


def test_bundle_names():
    assert is_gendered("it-copa-fem-sing-anim") and is_gendered("they-subj-masc")
    assert not is_gendered("it-copa-nonref") and not is_gendered("it-subj") and not is_gendered("it")
    assert without_role("it-copa-fem-sing-anim") == "it-fem-sing-anim"
    assert set(FAMILIES) == {"il", "elle", "ils", "elles", "le", "la"}


def test_witten_bell_interpolates_with_the_parent_and_reads_a_bundle_without_counts_as_it():
    full = accumulate({"a-b": {"x": 3.0}})
    dist = WittenBell(full, ("x", "y"))
    # a: one kind seen 3 times, parent uniform: (3 + .5) / 4 and .5 / 4
    assert dist("a") == pytest.approx({"x": 3.5 / 4, "y": 0.5 / 4})
    assert dist("a-b") == pytest.approx({"x": (3 + 3.5 / 4) / 4, "y": (0.5 / 4) / 4})
    assert dist("a-c") == dist("a")


def test_the_factored_table_is_the_joint_one_where_the_bundle_names_no_gender():
    joint, fact = ClassTable.estimate(COUNTS), ClassTable.estimate(COUNTS, factor=True)
    assert joint.probs.keys() == fact.probs.keys()
    for b in ("it-copa-nonref", "it-copa", "it-subj", "it"):
        assert fact.probs[b] == pytest.approx(joint.probs[b])
    for b, d in fact.probs.items():
        assert sum(d.values()) == pytest.approx(1.0), b
        assert set(d) == set(CLASSES)


def test_the_form_comes_from_the_construction_and_the_gender_from_every_construction():
    joint, fact = ClassTable.estimate(COUNTS), ClassTable.estimate(COUNTS, factor=True)
    fem, masc = "it-copa-fem-sing", "it-copa-masc-sing"
    # the form: the joint table's distribution with il, elle, ils, elles pooled, so ce and the personal
    # pronouns' share about unchanged (Witten-Bell counts one kind for the pooled family, not four)
    for b in (fem, masc):
        assert fact.prob(b, "ce") == pytest.approx(joint.prob(b, "ce"), rel=1e-3)
        personal = sum(joint.prob(b, c) for c in ("il", "elle", "ils", "elles"))
        assert sum(fact.prob(b, c) for c in ("il", "elle", "ils", "elles")) == pytest.approx(personal, rel=1e-3)
    # the one *il* of the sparse feminine copula bundle no longer outweighs the 40 *elle* of its subjects
    assert joint.prob(fem, "il") > joint.prob(fem, "elle")
    assert fact.prob(fem, "elle") > 5 * fact.prob(fem, "il")
    # and the split of the personal pronouns is the same in every construction of one antecedent
    ratio = fact.prob(fem, "elle") / fact.prob(fem, "il")
    assert fact.prob("it-subj-fem-sing", "elle") / fact.prob("it-subj-fem-sing", "il") == pytest.approx(ratio)
    assert fact.prob(masc, "il") > 5 * fact.prob(masc, "elle")


def test_the_object_clitics_take_the_antecedent_s_gender_too():
    fact = ClassTable.estimate(COUNTS, factor=True)
    b = "it-obj-fem-sing"
    assert fact.prob(b, "la") > fact.prob(b, "le")
    assert fact.prob(b, "la") + fact.prob(b, "le") == pytest.approx(
        sum(ClassTable.estimate(COUNTS).prob(b, c) for c in ("la", "le")), rel=1e-3)
    assert fact.prob(b, "l'") == pytest.approx(ClassTable.estimate(COUNTS).prob(b, "l'"), rel=1e-3)


def test_em_estimates_a_factored_table_and_it_fits_its_training_data_no_worse_than_chance():
    instances = [({"it-subj-fem-sing": 0.7, "it-subj-masc-sing": 0.3}, "elle")] * 6 + \
                [({"it-copa-fem-sing": 1.0}, "ce")] * 3 + [({"it-copa-fem-sing": 0.8, "it-copa-nonref": 0.2}, "elle")] + \
                [({"it-subj-nonref": 1.0}, NONE)] * 2
    table = ClassTable.estimate_em(instances, 3, factor=True)
    loss = -sum(table.log_prob(m, c) for m, c in instances) / len(instances)
    assert loss < math.log(len(CLASSES))
    assert table.prob("it-copa-fem-sing", "elle") > table.prob("it-copa-fem-sing", "il")


def test_factored_covers_every_bundle_up_the_chains():
    probs = factored(COUNTS, CLASSES, FAMILIES)
    assert {"it", "it-copa", "it-copa-fem", "it-subj-fem", "it-obj"} <= set(probs)


def test_a_target_without_gender_families_gets_the_joint_table():
    """The families are the target's (Language.gender_families): German declares none."""
    german = pair("en", "de")
    counts = {"it-subj-neut-sing": {"es": 4.0, "das": 1.0}, "it-subj-fem-sing": {"sie": 3.0, "es": 1.0}}
    assert not german.target.gender_families
    joint, fact = ClassTable.estimate(counts, german), ClassTable.estimate(counts, german, factor=True)
    for b in joint.probs:
        assert fact.probs[b] == pytest.approx(joint.probs[b])
