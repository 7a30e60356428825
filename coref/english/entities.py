"""Entities built while a document is read: which mentions were linked, and what their chains hold.

A pronoun's antecedent is only as compatible as the whole chain it would join: once *he* has been
linked to *my cat*, an *it* can no longer take *my cat* (seed 004's example). Nominal mentions
with the same words (determiners aside) or the same proper-noun head start in one entity;
pronoun links made by a resolver add to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cad.lang.en import PRONOUN_CLASS, SPEAKER_PRONOUNS
from coref.english.mentions import Mention

THIRD_PERSON = frozenset(PRONOUN_CLASS)
_DETERMINERS = {"the", "a", "an", "this", "that", "these", "those", "my", "your", "his", "her", "its", "our",
                "their", "some", "any", "every", "each"}


def pronoun_class(word: str) -> str | None:
    """it | they | he | she for a third-person personal pronoun, else None."""
    return PRONOUN_CLASS.get(word.lower())


def name_key(m: Mention, head_text: str, head_pos: str) -> str | None:
    """The string two nominal mentions share when they name the same thing."""
    if m.pronoun or m.kind != "np":
        return None
    if head_pos == "PROPN":
        return "propn:" + head_text.lower()
    words = [w for w in m.text.lower().split() if w not in _DETERMINERS]
    return "np:" + " ".join(words) if words else None


@dataclass
class Entity:
    id: int
    members: list[tuple[int, int]] = field(default_factory=list)     # (sentence, head) keys
    classes: set[str] = field(default_factory=set)                   # pronoun classes seen: it/they/he/she
    numbers: set[str] = field(default_factory=set)
    human: bool | None = None
    last_sentence: int = 0
    # the first nominal mention's WordNet class and animacy (coref.english.lexicon), which a
    # pronoun that joins the chain takes as its own; `event`: the chain started at a clause
    lexname: str | None = None
    animate: bool | None = None
    event: bool = False
    nominal: Mention | None = None       # the chain's first noun phrase (its referent type's source)

    def excludes(self, pclass: str) -> bool:
        """Hard constraint: the chain already holds a pronoun that a `pclass` pronoun can never
        share an entity with (*he*/*she* against *it*/*they*, *he* against *she*)."""
        if pclass in ("it", "they"):
            return bool(self.classes & {"he", "she"})
        if pclass in ("he", "she"):
            return bool(self.classes & {"it", "they", "she" if pclass == "he" else "he"})
        return False

    def compatible(self, pclass: str) -> bool:
        """Chain-level agreement: could a pronoun of class `pclass` join this entity?"""
        if pclass == "it":
            return not (self.classes & {"he", "she", "they"}) and self.human is not True and "plur" not in self.numbers
        if pclass == "they":
            return not (self.classes & {"he", "she", "it"})
        if pclass in ("he", "she"):
            other = "she" if pclass == "he" else "he"
            return not (self.classes & {other, "it", "they"}) and "plur" not in self.numbers
        return True


class EntityTracker:
    """Entities of one document, in reading order."""

    def __init__(self) -> None:
        self.entities: list[Entity] = []
        self.of: dict[tuple[int, int], Entity] = {}
        self._names: dict[str, Entity] = {}

    def add_mention(self, m: Mention, head_text: str, head_pos: str,
                    noun_class: tuple[str | None, bool | None] = (None, None)) -> Entity:
        key = (m.sentence, m.head)
        if key in self.of:
            return self.of[key]
        ent = self._entity_for(m, head_text, head_pos)
        if not m.pronoun and ent.nominal is None:
            ent.nominal = m
            ent.lexname, ent.animate = noun_class
        self._join(ent, key, m.number, m.human, pronoun_class(m.text) if m.pronoun else None, m.sentence)
        return ent

    def _entity_for(self, m: Mention, head_text: str, head_pos: str) -> Entity:
        name = name_key(m, head_text, head_pos)
        ent = self._names.get(name) if name else None
        if ent is None or (m.number and ent.numbers and m.number not in ent.numbers):
            ent = Entity(len(self.entities))
            self.entities.append(ent)
            if name:
                self._names[name] = ent
        return ent

    def link_event(self, pronoun_key: tuple[int, int], pclass: str) -> Entity:
        """A pronoun resolved to a clause starts (or is) an event chain, which later pronouns may join."""
        ent = self.of.get(pronoun_key)
        if ent is None:
            ent = Entity(len(self.entities))
            self.entities.append(ent)
            self._join(ent, pronoun_key, "sing", False, pclass, pronoun_key[0])
        ent.event = True
        return ent

    def link(self, pronoun_key: tuple[int, int], pclass: str, number: str | None, antecedent: Entity) -> None:
        """Add a resolved pronoun to its antecedent's entity."""
        old = self.of.get(pronoun_key)
        if old is not None and old is not antecedent:
            old.members.remove(pronoun_key)
        human = True if pclass in ("he", "she") else None
        self._join(antecedent, pronoun_key, number, human, pclass, pronoun_key[0])

    def _join(self, ent: Entity, key, number, human, pclass, sentence) -> None:
        ent.members.append(key)
        self.of[key] = ent
        if number:
            ent.numbers.add(number)
        if human is not None and ent.human is not True:
            ent.human = human
        if pclass:
            ent.classes.add(pclass)
        ent.last_sentence = max(ent.last_sentence, sentence)
