"""The construction of *it*/*they* read from spaCy's English parse (coref/english/constructions.py):
several sentences per construction, each with the pronoun's position, whether its predicate is
a past participle, and the predicate's word."""

import pytest

from coref.english.constructions import (CLEFT, CONSTRUCTIONS, COPULA_ADJECTIVE, COPULA_CLAUSE, COPULA_NOUN_PHRASE,
                                         COPULA_OTHER, EXTRAPOSITION, OBJECT, OTHER, PREPOSITIONAL_OBJECT, SUBJECT,
                                         Construction, pronoun_constructions)

pytest.importorskip("spacy")


# (sentence, the pronoun's position, label, participle, the predicate's word or None)
CASES = [
    # il/elle + être + adjective or participle: the predicate agrees
    ("it was very old .", 0, COPULA_ADJECTIVE, False, "old"),
    ("they are expensive .", 0, COPULA_ADJECTIVE, False, "expensive"),
    ("and it was not dead but it was mortally wounded .", 1, COPULA_ADJECTIVE, False, "dead"),
    ("and it was not dead but it was mortally wounded .", 6, COPULA_ADJECTIVE, True, "wounded"),
    ("it wasn 't dead .", 0, COPULA_ADJECTIVE, False, "dead"),            # Moses's split negation
    ("they aren 't ready .", 0, COPULA_ADJECTIVE, False, "ready"),
    ("they are happy to help .", 0, COPULA_ADJECTIVE, False, "happy"),   # *they* is never extraposed
    ("is it true ?", 1, COPULA_ADJECTIVE, False, "true"),
    ("it will be fine .", 0, COPULA_ADJECTIVE, False, "fine"),
    ("it was so fast that nobody saw it .", 0, COPULA_ADJECTIVE, False, "fast"),   # a result clause
    # passives: a participle after *be*
    ("they were sold .", 0, COPULA_ADJECTIVE, True, "sold"),
    ("it was sold yesterday .", 0, COPULA_ADJECTIVE, True, "sold"),
    ("it has been sold .", 0, COPULA_ADJECTIVE, True, "sold"),
    ("they have been destroyed .", 0, COPULA_ADJECTIVE, True, "destroyed"),
    ("it was eaten by the cat .", 0, COPULA_ADJECTIVE, True, "eaten"),
    ("it 's gone .", 0, COPULA_ADJECTIVE, True, "gone"),
    ("it seems to be broken .", 0, COPULA_ADJECTIVE, True, "broken"),    # the *be* of the infinitive
    ("it has to be done .", 0, COPULA_ADJECTIVE, True, "done"),
    # ce + être + noun phrase
    ("it is a good idea .", 0, COPULA_NOUN_PHRASE, False, "idea"),
    ("they were my friends .", 0, COPULA_NOUN_PHRASE, False, "friends"),
    ("it 's me .", 0, COPULA_NOUN_PHRASE, False, "me"),
    ("it isn 't a problem .", 0, COPULA_NOUN_PHRASE, False, "problem"),
    ("it has been a long time .", 0, COPULA_NOUN_PHRASE, False, "time"),
    ("it is a tool that cuts wood .", 0, COPULA_NOUN_PHRASE, False, "tool"),      # a relative clause
    ("they are the ones who left .", 0, COPULA_NOUN_PHRASE, False, "ones"),
    # ce + être + clause
    ("it is what I wanted .", 0, COPULA_CLAUSE, False, "wanted"),
    ("it is that he never came .", 0, COPULA_CLAUSE, False, "came"),
    ("it is because he was tired .", 0, COPULA_CLAUSE, False, "was"),
    ("it 's how we do it .", 0, COPULA_CLAUSE, False, "do"),
    # il impersonnel: *it* stands for the clause after it
    ("it is important to know .", 0, EXTRAPOSITION, False, "important"),
    ("it is clear that they lied .", 0, EXTRAPOSITION, False, "clear"),
    ("it is easy to see why .", 0, EXTRAPOSITION, False, "easy"),
    ("it 's not easy to do .", 0, EXTRAPOSITION, False, "easy"),
    ("it is important for us to talk .", 0, EXTRAPOSITION, False, "important"),
    ("it is a pity that he left .", 0, EXTRAPOSITION, False, "pity"),
    ("it is time to go .", 0, EXTRAPOSITION, False, "time"),
    ("it seems that he left .", 0, EXTRAPOSITION, False, "seems"),
    ("it turns out that she was right .", 0, EXTRAPOSITION, False, "turns"),
    ("it takes time to learn .", 0, EXTRAPOSITION, False, "takes"),
    ("it makes sense to wait .", 0, EXTRAPOSITION, False, "makes"),
    ("it is said that he was rich .", 0, EXTRAPOSITION, True, "said"),
    ("it was decided to wait .", 0, EXTRAPOSITION, True, "decided"),
    # a clause after a noun phrase belongs to it: the passive's *it* refers
    ("it 's based on this great research that shows it .", 0, COPULA_ADJECTIVE, True, "based"),
    # clefts
    ("it was John who broke it .", 0, CLEFT, False, "John"),
    ("it 's John who broke it .", 0, CLEFT, False, "John"),
    ("it was the cat that ate it .", 0, CLEFT, False, "cat"),
    ("it was in Paris that we met .", 0, CLEFT, False, "in"),
    ("it is this that matters .", 0, CLEFT, False, "this"),
    ("it was then that I understood .", 0, CLEFT, False, "then"),
    ("it was mary that told me .", 0, CLEFT, False, "mary"),      # lowercased, as the decoder's tokens
    ("it is people who decide .", 0, CLEFT, False, "people"),
    # be with neither adjective, noun phrase nor clause
    ("it is in the box .", 0, COPULA_OTHER, False, None),
    ("it 's over .", 0, COPULA_OTHER, False, None),
    # a wh-word before the subject is no noun phrase after *be* (*ce qu'ils sont*, *ce que c'est*)
    ("I know what they are .", 3, COPULA_OTHER, False, None),
    ("I wonder who it was .", 3, COPULA_OTHER, False, None),
    ("they were gifts from my father .", 0, COPULA_NOUN_PHRASE, False, "gifts"),
    # objects
    ("I bought it .", 2, OBJECT, False, None),
    ("we gave it to him .", 2, OBJECT, False, None),
    ("what is the best way to kill it humanely ?", 7, OBJECT, False, None),
    ("it was John who broke it .", 5, OBJECT, False, None),
    ("I think about it .", 3, PREPOSITIONAL_OBJECT, False, None),
    ("that 's it .", 2, OTHER, False, None),
    # other subjects
    ("it has changed a lot .", 0, SUBJECT, False, None),
    ("it ran away .", 0, SUBJECT, False, None),
    ("it changed my life .", 0, SUBJECT, False, None),
    ("they work .", 0, SUBJECT, False, None),
    ("it is raining .", 0, SUBJECT, False, None),
    ("it 's raining .", 0, SUBJECT, False, None),       # the participle parsed as an adjective
    ("it seems to work .", 0, SUBJECT, False, None),    # a raised subject, not extraposition
]


@pytest.mark.parametrize("sentence, index, label, participle, predicate", CASES,
                         ids=[f"{c[0]}@{c[1]}" for c in CASES])
def test_construction_of_each_frame(parser, sentence, index, label, participle, predicate):
    words = sentence.split()
    assert words[index].lower() in ("it", "they")
    got = pronoun_constructions([words], {(0, index)})[(0, index)]
    assert (got.label, got.participle) == (label, participle)
    assert (words[got.predicate] if got.predicate is not None else None) == predicate


def test_every_label_is_read_and_none_has_a_hyphen():
    # a label stands as one part of a CM bundle, whose parts are split on hyphens
    assert {c[2] for c in CASES} == set(CONSTRUCTIONS)
    assert all("-" not in label for label in CONSTRUCTIONS)


def test_a_documents_pronouns_from_its_own_parse_or_the_resolvers(parser):
    from coref.english.tokens import moses_doc

    sents = [["My", "cat", "brought", "home", "a", "mouse", ",", "and", "it", "was", "not", "dead", "but", "it",
              "was", "mortally", "wounded", "."], ["What", "is", "the", "best", "way", "to", "kill", "it", "?"]]
    positions = {(0, 8), (0, 13), (1, 7)}
    own = pronoun_constructions(sents, positions)
    assert own == {(0, 8): Construction(COPULA_ADJECTIVE, False, 11), (0, 13): Construction(COPULA_ADJECTIVE, True, 16),
                   (1, 7): Construction(OBJECT)}
    parsed = list(parser.pipe(moses_doc(parser.vocab, s) for s in sents))
    assert pronoun_constructions(sents, positions, parsed) == own
    assert pronoun_constructions(sents, set()) == {}


AUXILIARY = [("it has been a long time .", True), ("it will be fine .", True), ("it might be simple .", True),
             ("it 's going to be delicious .", True), ("it would have been great .", True),
             ("it 's been hard .", True), ("it is a good idea .", False), ("it was very old .", False),
             ("it isn 't a problem .", False), ("it is in the box .", False)]


@pytest.mark.parametrize("sentence, auxiliary", AUXILIARY, ids=[c[0] for c in AUXILIARY])
def test_a_copula_after_an_auxiliary_is_marked(parser, sentence, auxiliary):
    """*ce* needs *être* right after it: *c'est*, but *ça a été*, *ça va être* (Construction.auxiliary)."""
    got = pronoun_constructions([sentence.split()], {(0, 0)})[(0, 0)]
    assert got.label in (COPULA_ADJECTIVE, COPULA_NOUN_PHRASE, COPULA_OTHER) and got.auxiliary == auxiliary


def test_a_plain_subject_names_its_verb_and_no_other_construction_does(parser):
    # the verb whose subject French writes ça or not (cad/cm/governors.py)
    sents = [s.split() for s in ("it ran away .", "I will show you how it works .", "it seems to work .",
                                 "it was very old .", "I bought it .")]
    got = pronoun_constructions(sents, {(0, 0), (1, 5), (2, 0), (3, 0), (4, 2)})
    governors = {k: sents[k[0]][c.governor] if c.governor is not None else None for k, c in got.items()}
    assert governors == {(0, 0): "ran", (1, 5): "works", (2, 0): "seems", (3, 0): None, (4, 2): None}
