"""What an antecedent is, read from its English head: animate (a person or an animal: WordNet's
noun.person and noun.animal, or a sense whose hypernyms reach person or animal) or not. A French
pronoun for a thing or an animal takes the noun's gender (*la souris ... elle*), while *ce*/*ça*
stand for what is no entity; animacy gives the CM's bundles and the classifier that distinction
where the role alone (subject of *be*) would say *c'est*.

The animacy is the share of the head's senses that are animate, weighted by WordNet's tag counts
(cad/lang/wordnet.py), "anim" from one half up; None for a head WordNet does not know (a name, a
pronoun), so that the bundle stays the coarser one. CAD_GENDER_SOURCES without `wordnet` turns it
off (an ablation)."""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Sequence

from cad.lang.en import PRONOUN_CLASS, SPEAKER_PRONOUNS
from cad.lang.fr_morph import gender_sources
from cad.lang import wordnet

ANIMACY = ("anim", "inan")


@lru_cache(maxsize=1)
def noun_classes() -> wordnet.NounClasses:
    return wordnet.load()


@lru_cache(maxsize=50000)
def head_animacy(word: str) -> str | None:
    """"anim", "inan", or None for a word WordNet has no noun for (or a pronoun)."""
    low = word.lower()
    if low in PRONOUN_CLASS or low in SPEAKER_PRONOUNS or not any(ch.isalpha() for ch in low):
        return None
    share = noun_classes().animacy(low)
    if share is None:
        return None
    return "anim" if share >= 0.5 else "inan"


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
