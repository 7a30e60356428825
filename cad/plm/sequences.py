"""PLM training sequences: the gender/number of the (pro)nouns preceding each French pronoun.

Walking each document word by word, the gender and number of the last nouns and pronouns are kept
(history of N-1 = 4 for N = 5); at every pronoun of seed 001 §4.2's list (le/la/l' only when tagged
as pronouns) the sequence `features... pronoun` is emitted as one training sentence.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from cad.lang.facts import Morph
from cad.plm.task import tag

PLM_PRONOUNS = {"il", "ils", "elle", "elles", "le", "la", "lui", "l'", "on", "ce", "ça", "c'", "ç'", "ceci", "cela",
                "celà", "celui", "celui-ci", "celui-là", "celle", "celle-ci", "celle-là", "ceux", "ceux-ci",
                "ceux-là", "celles", "celles-ci", "celles-là"}
AMBIGUOUS = {"le", "la", "l'"}        # also determiners


def feature(m: Morph) -> str | None:
    if m.gender and m.number:
        return f"{m.gender}.{m.number}"
    return None


def is_plm_pronoun(word: str, m: Morph) -> bool:
    w = word.lower()
    if w not in PLM_PRONOUNS:
        return False
    return m.pos == "PRON" if w in AMBIGUOUS else True


class History:
    """The last `size` noun/pronoun features of a running text."""

    def __init__(self, size: int = 4):
        self.size = size
        self.items: list[str] = []

    def push(self, feat: str | None) -> None:
        if feat:
            self.items.append(feat)
            if len(self.items) > self.size:
                self.items.pop(0)

    def observe(self, m: Morph) -> None:
        if m.pos in ("NOUN", "PROPN", "PRON"):
            self.push(feature(m))


def document_sequences(sentences: list[list[str]], morph: list[list[Morph]], history: int = 4) -> Iterator[list[str]]:
    h = History(history)
    for words, tags in zip(sentences, morph):
        for w, m in zip(words, tags):
            if is_plm_pronoun(w, m):
                yield list(h.items) + [w.lower()]
            h.observe(m)


def corpus_sequences(documents: Iterable[list[list[str]]], history: int = 4, batch: int = 2000) -> Iterator[list[str]]:
    for doc in documents:
        morph = []
        for i in range(0, len(doc), batch):
            morph.extend(tag(doc[i:i + batch]))
        yield from document_sequences(doc, morph, history)
