"""Stateless feature functions: scored once per translation option, before search (Moses's
StatelessFeatureFunction). Each owns one slot of the weight vector; search sees only the weighted
sum on the option and, for the n-best lists, the per-slot values the option carries.

A new stateless feature is one class with `evaluate(option)`, registered under its moses.ini type
(cad/decoder/registry.py); `from_line` builds it from its moses.ini line (by default from its slot
alone). A feature that reads something of the sentence beyond its words (the coreference model
reads antecedent bundles) gets it through `begin_sentence(tokens, context)`, where `context` is
whatever the caller passed to `Decoder.translate(..., context=...)`.

The built-in ones: WordPenalty is -|e| per phrase, PhrasePenalty 1 per phrase, an unknown word
costs UnknownWordPenalty = log(0) floored = -100, and each phrase table's scores count for the
options it produced.
"""

from __future__ import annotations

from typing import Any, Protocol

from cad.decoder.registry import FeatureSlot, Loading, register
from cad.decoder.tables import LOWEST_SCORE, PhraseTable
from cad.moses.ini import Feature


class Option(Protocol):
    start: int
    end: int
    words: tuple[str, ...]
    table: int
    scores: tuple[float, ...]
    alignment: tuple[tuple[int, int], ...]


class StatelessFeature:
    """Base class: `evaluate` returns the unweighted values of the feature's slot, or None for 0."""

    reads_context = False     # True: scores depend on begin_sentence's context (Moses's EvaluateWithSourceContext)

    def __init__(self, slot: FeatureSlot):
        self.slot = slot

    @classmethod
    def from_line(cls, line: Feature, slot: FeatureSlot, config_path: str | None,
                  loading: Loading) -> StatelessFeature:
        """The feature of one moses.ini line; `config_path` names the file in errors."""
        return cls(slot)

    def begin_sentence(self, tokens: list[str], context: dict[str, Any] | None) -> None:
        pass

    def evaluate(self, opt: Option) -> tuple[float, ...] | None:
        raise NotImplementedError

    def reads_span(self, start: int, end: int) -> bool:
        """False where no option of source span [start, end) can get a value from the sentence's
        context, so that collect_options keeps those options' context-free scores unasked."""
        return True

    def reads_sentence(self) -> bool:
        """False when, after begin_sentence, no option of this sentence can get a value from its
        context (the coreference model with no pronoun to score): the sentence is collected as
        plain decoding collects it."""
        return True


@register("PhraseDictionaryCadBinary")
@register("PhraseDictionaryMemory")
class PhraseScores(StatelessFeature):
    """The scores of one phrase table, for the options it produced."""

    def __init__(self, slot: FeatureSlot, table_index: int):
        super().__init__(slot)
        self.table_index = table_index

    @classmethod
    def from_line(cls, line: Feature, slot: FeatureSlot, config_path: str | None,
                  loading: Loading) -> PhraseScores:
        loading.tables.append(PhraseTable(line, config_path))
        return cls(slot, len(loading.tables) - 1)

    def evaluate(self, opt: Option) -> tuple[float, ...] | None:
        return opt.scores if opt.table == self.table_index else None


def unknown_word_penalties(n_words: int) -> int:
    """How many unknown-word penalties an unknown-word option of `n_words` target words pays: one per
    word, as if each were its own unknown word, and one for nothing. Search only ever makes such an
    option of one word or none, so this is Moses's log(0) floored once; constrained decoding's
    penalized options (cad/decoder/forced.py) may be longer, and at one penalty apiece search would
    pour a whole clause, pronoun and all, into one of them rather than translate its words with the
    table."""
    return max(1, n_words)


@register("UnknownWordPenalty")
class UnknownWordPenalty(StatelessFeature):
    def evaluate(self, opt: Option) -> tuple[float, ...] | None:
        return (LOWEST_SCORE * unknown_word_penalties(len(opt.words)),) if opt.table < 0 else None


@register("WordPenalty")
class WordPenalty(StatelessFeature):
    # one tuple per length, shared by every option (the decoder keeps an option per table entry)
    _VALUES = tuple((-float(n),) for n in range(64))

    def evaluate(self, opt: Option) -> tuple[float, ...] | None:
        n = len(opt.words)
        return self._VALUES[n] if n < 64 else (-float(n),)


@register("PhrasePenalty")
class PhrasePenalty(StatelessFeature):
    def evaluate(self, opt: Option) -> tuple[float, ...] | None:
        return (1.0,)
