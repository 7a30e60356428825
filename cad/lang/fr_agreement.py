"""The predicate that agrees with a French subject pronoun: after *il*/*elle*/*ils*/*elles* and a
form of *être*, an adjective or a past participle takes the subject's gender and number (*elle
était morte*, *ils ont été vendus*, *elle s'est enfuie*). A translation built phrase by phrase
gets it wrong where the pronoun and its predicate come from two phrases (seed 004's demo: *elle
n'était pas mort mais elle était mortellement blessé*): `agreeing_predicate` finds the predicate
and its agreeing form, from the forms of Grammalecte's dictionary (cad/resources/fr_inflection.py),
for a decoder feature or option to use; it changes no translation itself.

Between the subject and *être* may stand the negation, clitics, adverbs and auxiliaries
(cad/lang/fr.py: *elle n'a pas été*, *elle va être*); between *être* and the predicate, adverbs of
the dictionary (*très*, *pas*, *mortellement*) and words it does not know at all, which are English
words the phrase table let through (*elle était mortally blessé*). Anything else ends the search:
a determiner (*elle était une idée*: a noun phrase agrees with nothing here), a preposition, a
conjunction, punctuation. Left out: the subject after the verb (*est-elle morte ?*), linking verbs
other than *être* (*elle semble heureuse*), and coordinated predicates (*morte et enterrée*: the
first only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from cad.lang.fr import BEFORE_ETRE, ETRE
from cad.resources.fr_inflection import FrenchInflections

REACH = 8           # words looked at after the subject


@dataclass(frozen=True)
class Predicate:
    index: int          # its position in the words
    word: str           # as the words have it
    form: str           # the form that agrees with the subject

    @property
    def agrees(self) -> bool:
        return self.word == self.form


def _untranslated(word: str, inflections: FrenchInflections) -> bool:
    """An English word left in the translation: letters the French dictionary does not know."""
    return word.isalpha() and not inflections.known(word)


def _predicate_word(word: str, inflections: FrenchInflections) -> bool:
    return inflections.inflected(word) and not inflections.noun_only(word)


def agreeing_predicate(words: Sequence[str], subject: int, gender: str, number: str,
                       inflections: FrenchInflections) -> Predicate | None:
    """The adjective or past participle after the form of *être* that follows the subject pronoun
    at `subject`, with its form for `gender` ("masc" | "fem") and `number` ("sing" | "plur"); None
    where no *être* follows, no adjective or participle follows it, or the dictionary has no
    single form for it. An adverb that is also an adjective (*fort*, *bien*) is the predicate
    only where no other follows (*elle était fort belle*: *belle*)."""
    be = None
    chosen = None               # an adverb that may be the predicate (*fort*), while none follows
    for i in range(subject + 1, min(len(words), subject + 1 + REACH)):
        lower = words[i].lower()
        if lower in ETRE and chosen is None:
            be = i
        elif be is None:
            if lower not in BEFORE_ETRE and lower not in inflections.adverbs:
                return None
        elif _predicate_word(lower, inflections):
            chosen = i
            if lower not in inflections.adverbs:
                break
        elif lower not in inflections.adverbs and not _untranslated(lower, inflections):
            break
    if chosen is None:
        return None
    form = inflections.inflect(words[chosen], gender, number)
    return None if form is None else Predicate(chosen, words[chosen], form)
