"""French agreement with a subject pronoun: adjectives and past participles inflected through the
dictionary's paradigms (cad/resources/fr_inflection.py), and the predicate after *être* found in
hand-written translations (cad/lang/fr_agreement.py), with Debian's dictionary where it is
installed and with a small one written here."""

from functools import lru_cache

import pytest

from cad.resources import fr_inflection
from cad.lang.fr_agreement import Predicate, agreeing_predicate

from conftest import write


@lru_cache(maxsize=1)
def _debian():
    return fr_inflection.load()


@pytest.fixture
def inf(lexicons):
    return _debian()


@pytest.mark.parametrize("word, gender, number, form", [
    ("mort", "fem", "sing", "morte"), ("mort", "masc", "plur", "morts"), ("mort", "fem", "plur", "mortes"),
    ("mortes", "masc", "sing", "mort"),                 # from any form of the paradigm
    ("blessé", "fem", "sing", "blessée"), ("blessé", "fem", "plur", "blessées"),
    ("vieux", "fem", "sing", "vieille"), ("vieux", "fem", "plur", "vieilles"),
    ("vieille", "masc", "sing", "vieux"),               # not *vieil*, the form before a vowel
    ("vieux", "masc", "plur", "vieux"),                 # invariable in number
    ("heureux", "fem", "sing", "heureuse"), ("heureux", "masc", "plur", "heureux"),
    ("heureuse", "fem", "plur", "heureuses"),
    ("belle", "masc", "sing", "beau"), ("nouveau", "fem", "plur", "nouvelles"),
    ("rapide", "fem", "sing", "rapide"), ("rapide", "masc", "plur", "rapides"),   # epicene
    ("enfui", "fem", "sing", "enfuie"), ("vendu", "fem", "plur", "vendues"), ("pris", "fem", "sing", "prise"),
    ("bon", "fem", "sing", "bonne"), ("blanc", "fem", "sing", "blanche"), ("public", "fem", "sing", "publique"),
    ("Blessé", "fem", "sing", "Blessée"),               # the case kept
    ("souris", "fem", "sing", None), ("idée", "fem", "sing", None),    # nouns
    ("très", "fem", "sing", None), ("fast", "fem", "sing", None),      # an adverb, an English word
])
def test_adjectives_and_participles_inflected_through_the_lexicon(inf, word, gender, number, form):
    assert inf.inflect(word, gender, number) == form


DEMO = "et elle n' était pas mort mais elle était mortellement blessé .".split()


@pytest.mark.parametrize("words, subject, gender, number, expected", [
    # seed 004's demo: both predicates, each after its own *elle*
    (DEMO, 1, "fem", "sing", (5, "mort", "morte")),
    (DEMO, 7, "fem", "sing", (10, "blessé", "blessée")),
    ("elle était pas mort .", 0, "fem", "sing", (3, "mort", "morte")),
    ("elle était mortally blessé .", 0, "fem", "sing", (3, "blessé", "blessée")),     # English left in
    ("elle était très vieux .", 0, "fem", "sing", (3, "vieux", "vieille")),
    ("elles étaient heureux .", 0, "fem", "plur", (2, "heureux", "heureuses")),
    ("ils ont été vendu hier .", 0, "masc", "plur", (3, "vendu", "vendus")),
    ("elle n' a jamais été vendu .", 0, "fem", "sing", (5, "vendu", "vendue")),
    ("elle s' est enfui .", 0, "fem", "sing", (3, "enfui", "enfuie")),
    ("elle va être vendu .", 0, "fem", "sing", (3, "vendu", "vendue")),
    ("elle était fort beau .", 0, "fem", "sing", (3, "beau", "belle")),    # *fort* an adverb here
    ("elle était fort .", 0, "fem", "sing", (2, "fort", "forte")),         # and the predicate here
    ("Elle était morte .", 0, "fem", "sing", (2, "morte", "morte")),       # agreeing already
    ("il était important de savoir .", 0, "masc", "sing", (2, "important", "important")),
    # nothing agrees: a noun phrase, a prepositional phrase, another verb, no *être*, an English predicate
    ("elle était une souris .", 0, "fem", "sing", None),
    ("elle était dans la boîte .", 0, "fem", "sing", None),
    ("elle a mangé la souris .", 0, "fem", "sing", None),
    ("elle dort .", 0, "fem", "sing", None),
    ("elle était fast .", 0, "fem", "sing", None),
    ("elle est là .", 0, "fem", "sing", None),
])
def test_the_predicate_after_etre_in_hand_written_translations(inf, words, subject, gender, number, expected):
    words = words.split() if isinstance(words, str) else words
    got = agreeing_predicate(words, subject, gender, number, inf)
    assert (None if got is None else (got.index, got.word, got.form)) == expected
    if got is not None:
        assert got.agrees == (got.word == got.form)


# a small dictionary written as Grammalecte's: the adjectives *mort* and *vieux* (with *vieil*
# before a vowel) by suffix rules, adverbs, a negation, a determiner and a noun
AFF = """SET UTF-8
FLAG long

SFX F+ Y 4
SFX F+ 0 0 [^sxz] is:mas is:sg
SFX F+ 0 s [^sxz] is:mas is:pl
SFX F+ 0 e [^sxz] is:fem is:sg
SFX F+ 0 es [^sxz] is:fem is:pl

SFX Wx Y 4
SFX Wx 0 0 ux is:mas is:inv
SFX Wx eux eil vieux is:mas is:sg
SFX Wx eux eille vieux is:fem is:sg
SFX Wx eux eilles vieux is:fem is:pl
"""
DIC = """7
mort/F+ po:adj
vieux/Wx po:nom po:adj
très po:mg po:adv
pas po:mg po:negadv
une po:detind is:fem is:sg
souris po:nom is:fem is:inv
était po:v0e
"""


def test_agreement_with_a_dictionary_written_here(tmp_path):
    inf = fr_inflection.load(write(tmp_path / "fr.dic", DIC), write(tmp_path / "fr.aff", AFF))
    assert [inf.inflect("mort", g, n) for g, n in (("fem", "sing"), ("masc", "plur"), ("fem", "plur"))] == \
        ["morte", "morts", "mortes"]
    assert inf.inflect("vieux", "fem", "plur") == "vieilles" and inf.inflect("vieille", "masc", "sing") == "vieux"
    assert inf.inflect("souris", "fem", "sing") is None and inf.adverbs == {"très", "pas"}
    assert agreeing_predicate("elle n' était pas très mort .".split(), 0, "fem", "sing", inf) == \
        Predicate(5, "mort", "morte")
    assert agreeing_predicate("elle était mortally vieux".split(), 0, "fem", "plur", inf) == \
        Predicate(3, "vieux", "vieilles")
    assert agreeing_predicate("elle était une souris".split(), 0, "fem", "sing", inf) is None
    # the search starts after the subject it is given
    assert agreeing_predicate("mort elle était".split(), 1, "fem", "sing", inf) is None
