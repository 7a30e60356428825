"""What an antecedent is, read from its English head: a living being (persons and animals:
WordNet's noun.person and noun.animal, or a sense whose hypernyms reach person or animal), another
thing (artifacts, natural objects, bodies, food, places, plants, substances), or an abstraction
(an act, an idea, a quality, an event, a group, a time, ...). A French pronoun for a thing or an
animal takes the noun's gender (*la souris ... elle était morte*), while *ce*/*ça* stand for what
is no such entity; the type gives the CM's bundles and the classifier that distinction where the
role alone (the subject of *be*) would say *c'est*.

The type is "anim" where the head's animate senses weigh at least half (WordNet's tag counts,
cad/resources/wordnet.py), else "ent" where its senses that are things or living beings do, else
"abst"; None for a head WordNet does not know (a name, a pronoun), so that the bundle stays the
coarser one. CAD_GENDER_SOURCES without `wordnet` turns it off (an ablation).

Animate and inanimate things part where French does and the training corpus cannot show it: TED
translators write *c'est* + adjective for a thing as often as for a situation (*it's beautiful*:
*c'est beau*), but a living being in that place is *il*/*elle* (*elle était morte*, never *c'était
morte*), and the corpus's few animate *it* are mostly its coreference's mistakes (*Turkey* read as
the bird). So an animate antecedent's bundle takes the role of any other subject (`subject_role`),
where the CM has learned that *it* takes the noun's gender."""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Sequence

from cad.lang.facts import gender_sources
from cad.lang.pairs import Pair, chosen

ANIMACY = ("anim", "ent", "abst")
# roles of a subject of *be* (coref/english/roles.py) that an animate antecedent reads as a subject:
# with a noun phrase after *be* (`copn`) French says *c'est* for anyone (*c'est une souris*)
BE_SUBJECT_ROLES = frozenset({"copa", "cop"})
ENTITY_CLASSES = frozenset({"noun.person", "noun.animal", "noun.artifact", "noun.object", "noun.body", "noun.food",
                            "noun.location", "noun.plant", "noun.substance"})


@lru_cache(maxsize=50000)
def head_animacy(word: str, pair: Pair | None = None) -> str | None:
    """"anim", "ent", "abst", or None for a word the source's noun senses (WordNet for English)
    have no noun for (or a pronoun, or a source without noun senses)."""
    source = chosen(pair).source
    low = word.lower()
    if low in source.third_person or low in source.speaker_pronouns or not any(ch.isalpha() for ch in low):
        return None
    nouns = source.senses()
    if nouns is None:
        return None
    senses = nouns._weighted(low)
    if not senses:
        return None
    animate = sum(w for s, w in senses if nouns._sense_animate(s))
    if animate >= 0.5:
        return "anim"
    share = sum(w for s, w in senses if s.lexname() in ENTITY_CLASSES or nouns._sense_animate(s))
    return "ent" if share >= 0.5 else "abst"


def subject_role(role: str, animacy: str | None) -> str:
    """The role an antecedent's bundle is read under: a subject of *be* before an adjective or
    anything but a noun phrase is a plain subject when the antecedent is animate."""
    return "subj" if animacy == "anim" and role in BE_SUBJECT_ROLES else role


def animacy_of(sentences: Sequence[Sequence[str]], pair: Pair | None = None) -> Callable | None:
    """candidate -> its head's animacy, in a document of `sentences` (source tokens); None when
    the run leaves WordNet out or the source has no noun senses."""
    if "wordnet" not in gender_sources() or chosen(pair).source.noun_senses is None:
        return None

    def animacy(c) -> str | None:
        if c.kind != "np" or not 0 <= c.sentence < len(sentences) or not 0 <= c.head < len(sentences[c.sentence]):
            return None
        return head_animacy(sentences[c.sentence][c.head], pair)

    return animacy
