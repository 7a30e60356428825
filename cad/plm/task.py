"""The language pair of cross-lingual pronoun prediction (seed 001): DiscoMT 2015's task is
English→French, its classes (cad/plm/tsv.py) are French words, so the PLM, its data and its
classifiers read both languages' facts from that pair (cad/lang/pairs.py) instead of a language's
module: the source pronouns predicted and the target's morphology and parser."""

from __future__ import annotations

from cad.lang.facts import Morph
from cad.lang.pairs import Pair, pair


def task_pair() -> Pair:
    """DiscoMT 2015's pair."""
    return pair("en", "fr")


def source_pronouns() -> tuple[str, ...]:
    """The source pronouns whose translation is predicted (*it*, *they*)."""
    return task_pair().source.cm_pronouns


def tag(sentences: list[list[str]]) -> list[list[Morph]]:
    """The target's morphology of tokenized sentences."""
    return task_pair().target.morphology().tag(sentences)


def target_pipeline(lemmas: bool = False):
    """The target's parsing pipeline (spaCy's French), with lemmas where asked."""
    return task_pair().target.morphology().pipeline(lemmas)
