"""The antecedent's French gender (cad/cm/projection.py, cad/lang/fr_morph.py): the lexicon over the
determiner over the tagger, and the dictionary for an untranslated head. On Debian's lexicons
(`make resources`) and spaCy's French model; skipped with a message where they are absent."""

import pytest

from cad.core.errors import CadError
from coref.records import Candidate


def test_the_lexicon_gives_the_noun_its_own_gender_over_a_wrong_article(lexicons, monkeypatch):
    from cad.lang.fr_morph import tag

    words = ["la", "problème", "est", "grave", "."]
    m = tag([words])[0][1]
    assert (m.pos, m.gender, m.source) == ("NOUN", "masc", "lexicon")
    monkeypatch.setenv("CAD_GENDER_SOURCES", "determiner")
    m = tag([words])[0][1]
    assert (m.gender, m.source) == ("fem", "determiner")


def test_a_noun_of_both_genders_takes_the_determiners(lexicons):
    from cad.lang.fr_morph import tag

    m = tag([["une", "souris", "est", "là", "."]])[0][1]
    assert (m.gender, m.number, m.source) == ("fem", "sing", "determiner")


def test_a_plural_form_is_plural_whatever_its_article(lexicons):
    """*We bought some keys* → *nous avons acheté une clés*: the lexicon knows *clés* as plural only,
    and a pronoun that refers to them is *elles*; a noun of one form for both numbers (*tapis*)
    takes its article's."""
    from cad.lang.fr_morph import tag

    got = tag([["nous", "avons", "acheté", "une", "clés", "hier", "."], ["le", "tapis", "et", "les", "tapis"]])
    assert (got[0][4].gender, got[0][4].number) == ("fem", "plur")
    assert [(m.gender, m.number) for m in (got[1][1], got[1][4])] == [("masc", "sing"), ("masc", "plur")]


def test_an_untranslated_head_takes_its_dictionary_translations_gender(lexicons):
    from cad.cm.projection import SOURCES, project
    from cad.lang.fr_morph import tag

    # *the bottle* passed through untranslated: the dictionary's *bouteille* is feminine
    source = ["the", "bottle", "is", "here", "."]
    target = ["la", "bottle", "est", "là", "."]
    c = Candidate(0, 0, 2, 1, "the bottle", number="sing")
    before = SOURCES["dictionary"]
    p = project(c, source, target, [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)], tag([target])[0])
    assert (p.gender, p.number, p.word, p.source, p.position) == ("fem", "sing", "bouteille", "dictionary", None)
    assert SOURCES["dictionary"] == before + 1
    # nothing aligned to the antecedent: the dictionary still speaks
    p = project(c, source, target, [(2, 2)], tag([target])[0])
    assert (p.gender, p.source) == ("fem", "dictionary")
    # a plural passed through is looked up by its singular (*bottles*: *bouteille*)
    source[1] = target[1] = "bottles"
    p = project(c, source, target, [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)], tag([target])[0])
    assert (p.gender, p.word, p.source) == ("fem", "bouteille", "dictionary")
    # nothing aligned to it: the word itself is looked up, not its singular (*runs* is no noun's plural here)
    assert project(c, source, target, [(2, 2)], tag([target])[0]) is None
    # without the source sentence, nothing can be looked up
    assert project(c, None, target, [(2, 2)], tag([target])[0]) is None


def test_a_pronoun_antecedent_is_never_looked_up_in_the_dictionary(lexicons):
    """*it* translated *c'* (no gender of its own) or left unaligned: the dictionary would say
    *la* (the note, masculine), so it is not asked; the chain gives the gender instead."""
    from cad.cm.projection import dictionary_gender, project
    from cad.lang.fr_morph import tag

    assert dictionary_gender("it") is not None          # why the guard is needed
    source = ["it", "was", "not", "dead", "."]
    target = ["c'", "était", "pas", "mort", "."]
    for al in ([(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)], [(1, 1)]):
        assert project(Candidate(0, 0, 1, 0, "it"), source, target, al, tag([target])[0]) is None
    # a personal pronoun's translation still speaks for it
    target = ["elle", "était", "pas", "morte", "."]
    p = project(Candidate(0, 0, 1, 0, "it"), source, target, [(0, 0), (1, 1)], tag([target])[0])
    assert (p.gender, p.source) == ("fem", "pronoun")


def test_a_translated_head_keeps_its_own_gender(lexicons):
    from cad.cm.projection import project
    from cad.lang.fr_morph import tag

    source = ["the", "bottle", "broke", "."]
    target = ["le", "flacon", "a", "cassé", "."]
    c = Candidate(0, 0, 2, 1, "the bottle")
    p = project(c, source, target, [(0, 0), (1, 1), (2, 2), (2, 3), (3, 4)], tag([target])[0])
    assert (p.gender, p.word, p.source, p.position) == ("masc", "flacon", "lexicon", 1)


def test_the_dictionary_votes_over_its_senses(lexicons):
    from cad.cm.projection import dictionary_gender

    assert dictionary_gender("idea") == ("fem", "idée")
    assert dictionary_gender("problem") == ("masc", "problème")
    assert dictionary_gender("no-such-english-word") is None


def test_unknown_gender_source_is_an_error(monkeypatch):
    from cad.lang.fr_morph import gender_sources

    monkeypatch.setenv("CAD_GENDER_SOURCES", "lexicon,guess")
    with pytest.raises(CadError, match="guess"):
        gender_sources()


def test_a_noun_the_tagger_reads_as_an_adjective_is_found_through_the_lexicon(lexicons, monkeypatch):
    """*si vous avez capsules*: without its article the small tagger reads *capsules* as an
    adjective, so no noun is aligned to the antecedent; the word aligned to the English head is a
    feminine plural noun in the lexicon."""
    from cad.cm.projection import project
    from cad.lang.fr_morph import tag

    source = ["if", "you", "have", "capsules", ",", "they", "work", "."]
    target = ["si", "vous", "avez", "capsules", ",", "elles", "marchent", "."]
    morph = tag([target])[0]
    assert morph[3].pos != "NOUN"                  # what the fallback is for
    al = [(k, k) for k in range(8)]
    p = project(Candidate(0, 3, 4, 3, "capsules"), source, target, al, morph)
    assert (p.gender, p.number, p.word, p.source, p.position) == ("fem", "plur", "capsules", "lexicon", 3)
    # only the words aligned to the head count (here *vous*, no noun), not the span's others (*avez*):
    # the head is then untranslated: nothing by default, its cognate where asked (*capsule*)
    wrong = Candidate(0, 2, 4, 3, "have capsules")
    assert project(wrong, source, target, [(2, 2), (3, 1)], morph) is None
    monkeypatch.setenv("CAD_GENDER_SOURCES", "lexicon,cognate,dictionary,determiner")
    p = project(wrong, source, target, [(2, 2), (3, 1)], morph)
    assert (p.gender, p.word, p.source) == ("fem", "capsule", "cognate")


def test_the_word_aligned_to_the_head_stands_for_the_antecedent(lexicons):
    """*some natural fireflies* → *une réelle lucioles*: the span's first word the tagger calls a noun
    (*réelle*, feminine singular after *une*) is not the head's translation, *lucioles* is."""
    from cad.cm.projection import project
    from cad.lang.fr_morph import tag

    source = ["so", "here", "we", "have", "some", "natural", "fireflies", "."]
    target = ["on", "a", "donc", "une", "réelle", "lucioles", "."]
    al = [(0, 0), (1, 1), (2, 0), (3, 2), (4, 3), (5, 4), (6, 5), (7, 6)]
    p = project(Candidate(0, 4, 7, 6, "some natural fireflies"), source, target, al, tag([target])[0])
    assert (p.gender, p.number, p.word, p.position) == ("fem", "plur", "lucioles", 5)
    # nothing aligned to the head: the span's first noun, as seed 004 reads it
    p = project(Candidate(0, 4, 7, 6, "some natural fireflies"), source, target, al[:6], tag([target])[0])
    assert (p.gender, p.number, p.word, p.position) == ("fem", "sing", "réelle", 4)
