"""What an antecedent is, read from its English head: a thing or a living being (WordNet's
classes of persons, animals, artifacts, natural objects, bodies, food, places, plants and substances, or a
sense whose hypernyms reach person or animal), or an abstraction (an act, an idea, a quality, an
event, a group, a time, ...). A French pronoun for a thing or an animal takes the noun's gender
(*la souris ... elle était morte*), while *ce*/*ça* stand for what is no such entity; the type
gives the CM's bundles and the classifier that distinction where the role alone (the subject of
*be*) would say *c'est*. Animals and things share one type: the training corpus (TED talks) holds
too few animal antecedents to learn them apart, and French treats both alike.

The type is "ent" where the head's senses that are things or living beings weigh at least half
(WordNet's tag counts, cad/lang/wordnet.py), else "abst"; None for a head WordNet does not know (a
name, a pronoun), so that the bundle stays the coarser one. CAD_GENDER_SOURCES without `wordnet`
turns it off (an ablation)."""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Sequence

from cad.lang.en import PRONOUN_CLASS, SPEAKER_PRONOUNS
from cad.lang.fr_morph import gender_sources
from cad.lang import wordnet

ANIMACY = ("ent", "abst")
ENTITY_CLASSES = frozenset({"noun.person", "noun.animal", "noun.artifact", "noun.object", "noun.body", "noun.food",
                            "noun.location", "noun.plant", "noun.substance"})


@lru_cache(maxsize=1)
def noun_classes() -> wordnet.NounClasses:
    return wordnet.load()


@lru_cache(maxsize=50000)
def head_animacy(word: str) -> str | None:
    """"ent", "abst", or None for a word WordNet has no noun for (or a pronoun)."""
    low = word.lower()
    if low in PRONOUN_CLASS or low in SPEAKER_PRONOUNS or not any(ch.isalpha() for ch in low):
        return None
    nouns = noun_classes()
    senses = nouns._weighted(low)
    if not senses:
        return None
    share = sum(w for s, w in senses if s.lexname() in ENTITY_CLASSES or nouns._sense_animate(s))
    return "ent" if share >= 0.5 else "abst"


def animacy_of(sentences: Sequence[Sequence[str]]) -> Callable | None:
    """candidate -> its head's animacy, in a document of `sentences` (English tokens); None when
    the run leaves WordNet out."""
    if "wordnet" not in gender_sources():
        return None

    def animacy(c) -> str | None:
        if c.kind != "np" or not 0 <= c.sentence < len(sentences) or not 0 <= c.head < len(sentences[c.sentence]):
            return None
        return head_animacy(sentences[c.sentence][c.head])

    return animacy
