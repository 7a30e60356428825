"""spaCy Docs from cad's Spanish tokens, read with their case restored.

The MT pipeline lowercases, and spaCy's small Spanish model tags `obama` an adjective and finds a
third fewer persons in lowercased text: the parser reads the tokens truecased, while the Docs keep
the given tokens' positions. The truecasing table is learned from the training text
(coref.spanish.train) and stored in the model file (coref.spanish.ranker), so the resolver has one
file to load.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable


@dataclass
class Truecaser:
    """The usual written form of words that are not usually lowercase (names, acronyms), learned
    from their occurrences inside sentences (a sentence's first word is capitalized anyway)."""

    forms: dict[str, str] = field(default_factory=dict)

    @classmethod
    def learn(cls, sentences: Iterable[list[str]], min_count: int = 3) -> "Truecaser":
        total: Counter[str] = Counter()
        cased: dict[str, Counter[str]] = {}
        for toks in sentences:
            for t in toks[1:]:
                if not t.isalpha():
                    continue
                low = t.lower()
                total[low] += 1
                if t != low:
                    cased.setdefault(low, Counter())[t] += 1
        forms = {}
        for low in sorted(cased):
            form = max(sorted(cased[low].items()), key=lambda x: x[1])[0]
            if total[low] >= min_count and sum(cased[low].values()) * 2 > total[low]:
                forms[low] = form
        return cls(forms)

    def apply(self, tokens: list[str]) -> list[str]:
        """Only all-lowercase tokens change: text that kept its case is left as it is."""
        out = []
        for i, t in enumerate(tokens):
            if t == t.lower():
                form = self.forms.get(t)
                if form is not None:
                    t = form
                elif i == 0 and t[:1].isalpha():
                    t = t[:1].upper() + t[1:]
            out.append(t)
        return out


def parse(nlp, sentences: list[list[str]], truecaser: Truecaser | None = None) -> list:
    """spaCy Docs whose tokens are exactly `sentences` (indices match); the parser reads the
    truecased forms, while `token.lower_` is the same either way."""
    from spacy.tokens import Doc      # spaCy loads late: the model file is read without it

    words = [truecaser.apply(s) if truecaser else list(s) for s in sentences]
    return list(nlp.pipe(Doc(nlp.vocab, words=w) for w in words))


def lowered(sentences: list[list[str]]) -> list[list[str]]:
    """The sentences lowercased, as the MT pipeline gives them."""
    return [[t.lower() for t in s] for s in sentences]
