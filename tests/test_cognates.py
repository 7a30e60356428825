"""French cognates of untranslated English heads (cad/lang/cognates.py): on a hand-made lexicon in
the reader's own structure, and through the projection on Debian's lexicons."""

import pytest

from cad.lang.cognates import CognateFinder
from cad.resources.hunspell_fr import FrenchNouns
from coref.records import Candidate

LEXICON = {"adversité": {("fem", "sing")}, "symphonie": {("fem", "sing")}, "théorie": {("fem", "sing")},
           "théories": {("fem", "plur")}, "réalisme": {("masc", "sing")}, "moteur": {("masc", "sing")},
           "physique": {("masc", "sing"), ("fem", "sing")}, "cinéma": {("masc", "sing")},
           "art": {("masc", "sing")}, "arte": {("fem", "sing")}, "Paris": {("masc", "sing")}}


def finder() -> CognateFinder:
    nouns = FrenchNouns({w: frozenset(a) for w, a in LEXICON.items()})

    def gender_of(form):
        genders = {g for g, _ in LEXICON.get(form, ())}
        return (genders.pop() if len(genders) == 1 else None), None

    return CognateFinder(nouns, gender_of)


def test_suffix_correspondences_find_the_lexicons_form_accents_aside():
    f = finder()
    got = {w: (c.french, c.gender, c.number, c.rule) if c else None
           for w, c in ((w, f.find(w)) for w in ("adversity", "Symphony", "theories", "realism", "motors", "cinema"))}
    assert got == {"adversity": ("adversité", "fem", "sing", "ity>ite"),
                   "Symphony": ("symphonie", "fem", "sing", "y>ie"),
                   "theories": ("théorie", "fem", "plur", "y>ie"),       # the singular form, the English number
                   "realism": ("réalisme", "masc", "sing", "ism>isme"),
                   "motors": ("moteur", "masc", "plur", "or>eur"),
                   "cinema": ("cinéma", "masc", "sing", ">")}


def test_no_cognate_where_the_lexicon_gives_no_single_gender_or_the_word_is_short():
    f = finder()
    assert f.find("physics") is None            # physique: masculine (the body) and feminine (the science)
    assert f.find("art") is None                # too short to trust: *art*, but *arte* would match *arty*
    assert f.find("bottle") is None             # no correspondence reaches a form of the lexicon
    assert f.find("e-mail") is None and f.find("paris") is None   # not letters; only lower-case forms


@pytest.fixture
def with_cognates(lexicons, monkeypatch):
    monkeypatch.setenv("CAD_GENDER_SOURCES", "lexicon,cognate,dictionary,determiner,wordnet")


def test_an_untranslated_head_takes_its_cognates_gender_before_the_dictionarys(with_cognates, monkeypatch):
    from cad.cm.projection import SOURCES, project
    from cad.lang.fr_morph import tag

    # *adversity* passed through untranslated after *l'*: FreeDict's one translation is *abaissement*
    # (masculine, another sense); the French lexicon holds its cognate *adversité* (feminine)
    source = ["the", "adversity", "is", "real", "."]
    target = ["l'", "adversity", "est", "réelle", "."]
    al = [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)]
    c = Candidate(0, 0, 2, 1, "the adversity", number="sing")
    before = SOURCES["cognate"]
    p = project(c, source, target, al, tag([target])[0])
    assert (p.gender, p.number, p.word, p.source, p.position) == ("fem", "sing", "adversité", "cognate", None)
    assert SOURCES["cognate"] == before + 1
    # by default (the cognates are opt-in) the dictionary speaks
    monkeypatch.delenv("CAD_GENDER_SOURCES")
    p = project(c, source, target, al, tag([target])[0])
    assert (p.gender, p.word, p.source) == ("masc", "abaissement", "dictionary")
    # a head the decoder translated keeps its translation's gender: no cognate is looked for
    monkeypatch.setenv("CAD_GENDER_SOURCES", "lexicon,cognate,dictionary,determiner,wordnet")
    target = ["le", "malheur", "est", "réel", "."]
    p = project(c, source, target, al, tag([target])[0])
    assert (p.gender, p.word, p.source) == ("masc", "malheur", "lexicon")
