"""What the English and the Spanish rankers share (coref/english/ranker.py, coref/spanish/ranker.py):
the model file's frame (a pair ranker, an anaphoricity model, the walk's window and threshold, how
it was trained, a version the loader checks), the decision the walk asks at each pronoun, and the
walk itself.

A walk reads a parsed document in order: each sentence's mentions and pronoun sites by token
position (a site before the mention at its own position: a pronoun is resolved before it becomes a
mention of its chain), a `Decision` built at each site, the chooser's answer recorded and passed
back. What a language adds is its state between the steps (the English entity tracker, the
Spanish entities), its mentions and sites, and its features: a subclass's `events`, `mention`,
`decide` and `chosen`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from typing import Any, Callable, ClassVar

import numpy as np

from cad.core.errors import CadError
from coref.softmax import load_json, save_json

MODEL_VERSION = 1


def default_model_path(file_name: str) -> str:
    """A model file shipped in coref/data."""
    return str(resources.files("coref") / "data" / file_name)


@dataclass
class Decision:
    """What the walk asks at each pronoun, and what it was told."""
    site: Any                       # the language's pronoun site
    candidates: list                # its candidate antecedents, most recent first
    pair_feats: list[list[str]]     # each candidate's pair features
    ana_feats: list                 # the anaphoricity model's features (names, and a source's Dense blocks)
    entities: list | None = None    # each candidate's chain when the pronoun was reached (None: none kept)


# (index of the chosen candidate or None, probabilities or None, P(referential) or None)
Choice = "tuple[int | None, np.ndarray | None, float | None]"
Chooser = Callable[[Decision], Choice]
Step = "tuple[Decision, int | None, np.ndarray | None, float | None]"


class Walk:
    """One document read in order (see the module's doc); a language's walk implements the four
    steps and keeps its state in the object."""

    def events(self, k: int, doc) -> list[tuple[Any, Any]]:
        """Sentence k's (mention, None) and (None, site) in reading order."""
        raise NotImplementedError

    def mention(self, k: int, doc, m) -> None:
        """A mention reached."""
        raise NotImplementedError

    def decide(self, k: int, doc, site) -> Decision:
        """The decision asked at a pronoun site."""
        raise NotImplementedError

    def chosen(self, k: int, doc, dec: Decision, choice: int | None) -> None:
        """What the chooser answered (an index into the candidates, or None)."""
        raise NotImplementedError

    def run(self, parsed, choose: Chooser) -> list:
        """Every decision with its answer: [(decision, choice, probabilities, P(referential))]."""
        out = []
        for k, doc in enumerate(parsed):
            for m, site in self.events(k, doc):
                if site is None:
                    self.mention(k, doc, m)
                    continue
                dec = self.decide(k, doc, site)
                choice, probs, p_ref = choose(dec)
                out.append((dec, choice, probs, p_ref))
                self.chosen(k, doc, dec, choice)
        return out


def reading_order(mentions, sites, mention_at: Callable, site_at: Callable) -> list[tuple[Any, Any]]:
    """(mention, None) and (None, site) by token position, a site before a mention at its position."""
    keyed = [(mention_at(m), 1, i, m, None) for i, m in enumerate(mentions)] + \
            [(site_at(s), 0, i, None, s) for i, s in enumerate(sites)]
    return [(m, s) for _, _, _, m, s in sorted(keyed, key=lambda e: (e[0], e[1], e[2]))]


class RankerFile:
    """The frame of a ranker's model file: its version (and, where the class names one, its
    language) checked on loading, the fields every model has written beside the language's own."""

    LANGUAGE: ClassVar[str | None] = None      # the file's "language" key (English's files have none)
    FILE: ClassVar[str] = ""                   # the shipped model, in coref/data
    KIND: ClassVar[str] = "ranker"             # for messages

    @classmethod
    def default_path(cls) -> str:
        return default_model_path(cls.FILE)

    @classmethod
    def read_dict(cls, path: str | os.PathLike) -> dict:
        """The file's contents, or a CadError naming it where it is not this kind of model."""
        d = load_json(path)
        if not isinstance(d, dict) or d.get("version") != MODEL_VERSION or \
                (cls.LANGUAGE is not None and d.get("language") != cls.LANGUAGE):
            raise CadError(f"not a cad {cls.KIND} model of version {MODEL_VERSION}", str(path))
        return d

    def write_dict(self, own: dict, path: str | os.PathLike) -> None:
        """The file: the version (and language) with the fields `own` gives."""
        d = {"version": MODEL_VERSION, **({} if self.LANGUAGE is None else {"language": self.LANGUAGE}), **own}
        save_json(d, path)
