"""What a mention takes from its antecedent, and which mentions make one entity, while a document
is read (coref.spanish.ranker's walk).

A pronoun or elided subject takes the gender, number and humanness of what it was linked to
(CorZu propagates its features along chains the same way), so a later *su* linked to an earlier
*él* still says "masc sing human". Elided subjects are linked by a rule (the nearest earlier
subject agreeing in number): CorZu's records give no antecedents for them to learn from. A
relative pronoun is linked to the noun its clause modifies. Nominal mentions that name the same
thing share an entity, whose size is a feature of the ranker.
"""

from __future__ import annotations

from collections import Counter

from cad.lang.es import FORM_MORPH
from coref.spanish.mentions import MARKS_ANTECEDENT, EsMention


def inherit(m: EsMention, ante: EsMention | None) -> None:
    """A pronoun or elided subject takes its antecedent's features, except what its own form says."""
    g, n, h = (ante.gender, ante.number, ante.human) if ante is not None else (None, None, None)
    if m.kind in MARKS_ANTECEDENT:
        fg, fn = FORM_MORPH[m.word]
        g, n = fg or g, fn or n
    elif m.kind == "zero" and m.number is not None:
        n = m.number            # the verb's agreement is the subject's number
    m.gender, m.number, m.human = g, n, h


def relative_antecedent(doc, m: EsMention, noun_at: dict[int, EsMention]) -> EsMention | None:
    """The noun a relative clause modifies (*el hombre [que] vino*: hombre)."""
    t = doc[m.head]
    for _ in range(4):
        if t.dep_ == "acl" and t.head.i in noun_at:
            return noun_at[t.head.i]
        if t.head is t:
            return None
        t = t.head
    return None


def name_key(m: EsMention) -> tuple | None:
    """Nominal mentions that name the same thing: one proper noun, or a definite noun repeated
    (*la crisis ... esta crisis*); an indefinite one (*otros países*) starts its own entity."""
    if m.kind == "propn":
        return ("propn", m.word)
    if m.kind == "noun" and m.det in ("def", "dem"):
        return ("noun", m.word, m.number)
    return None


def zero_antecedent(zero: EsMention, seen: list[EsMention], window: int) -> EsMention | None:
    """The rule for elided subjects: the nearest earlier subject agreeing in number, else the
    nearest earlier noun that does (Spanish drops the subject that continues the topic)."""
    lo = zero.sentence - window
    near = [c for c in reversed(seen) if c.sentence >= lo]

    def agrees(c: EsMention) -> bool:
        return zero.number is None or c.number is None or c.number == zero.number

    for c in near:
        if c.role == "subj" and agrees(c) and c.kind not in ("rel", "dem"):
            return c
    for c in near:
        if c.kind in ("noun", "propn") and agrees(c):
            return c
    return None


class Entities:
    """The entities of one document's mentions, in reading order, and how many mentions each has."""

    def __init__(self) -> None:
        self.sizes: Counter[int] = Counter()         # entity -> mentions so far
        self.names: dict[tuple, int] = {}            # what nominal mentions of one entity share

    def join(self, m: EsMention, ante: EsMention | None) -> None:
        """`m` joins its antecedent's entity, else that of a mention named alike, else a new one."""
        key = name_key(m)
        if ante is not None and ante.entity >= 0:
            m.entity = ante.entity
        elif key is not None and key in self.names:
            m.entity = self.names[key]
        else:
            m.entity = len(self.sizes)
        if key is not None:
            self.names.setdefault(key, m.entity)
        self.sizes[m.entity] += 1
