"""Stateful feature functions: scored inside search, when a hypothesis is extended by an option
(Moses's StatefulFeatureFunction). Each carries a state per hypothesis; hypotheses recombine only
when every feature's state is equal, so a state holds exactly what the feature's future scores
depend on. Search calls the interface below and names no model.

A new stateful feature is one class, registered under its moses.ini type (cad/decoder/registry.py):
`empty_state`, `evaluate` (the weighted score of one expansion and the new state), `values` (the
same expansion's unweighted values, asked only for the derivations that are output, so that
search allocates nothing for them), where it has one a context-free `estimate` of an option for
the future-cost table, and `from_line` when its moses.ini line says more than its slot (a table).
The compiled search core runs the three below itself (each registered with the core's kind of
it), and PronounAgreement (cad/decoder/agreement.py); a search with any other stateful feature
runs in Python. A stateful feature may also add options of its own beside the table's
(`variants`: the agreement's inflected copies of predicate phrases).

Distortion scores minus the jump width; the language model scores natural logs.
"""

from __future__ import annotations

import math
from typing import Any

from cad.core.errors import CadError
from cad.decoder.registry import FeatureSlot, Loading, register
from cad.decoder.tables import LanguageModel, ReorderingTable
from cad.moses.ini import Feature

MONO, SWAP, OTHER = 0, 1, 2
# the compiled core's names for the features it runs itself (enum Kind in cad/decoder/_core.cpp)
NATIVE_DISTORTION, NATIVE_REORDERING, NATIVE_LM = 0, 1, 2
Values = tuple[tuple[int, float], ...]      # (index within the slot, unweighted value), sparse


class StatefulFeature:
    """Base class. `upper_bound` is the most one expansion can add to the weighted score: search
    checks its pruning threshold before an expensive feature whose bound is 0 (Moses's early
    discarding), so a feature that can only lower the score saves its own evaluation."""

    expensive = False         # evaluated after the cheap ones, so that the threshold check can skip it

    def __init__(self, slot: FeatureSlot):
        self.slot = slot
        self.weights = list(slot.weights)

    @classmethod
    def from_line(cls, line: Feature, slot: FeatureSlot, config_path: str | None,
                  loading: Loading) -> StatefulFeature:
        """The feature of one moses.ini line; `config_path` names the file in errors."""
        return cls(slot)

    def begin_sentence(self, tokens: list[str]) -> None:
        """Called once per sentence; reads the weights, which tuning may have changed."""
        self.weights = list(self.slot.weights)

    @property
    def upper_bound(self) -> float:
        return math.inf

    def empty_state(self) -> Any:
        return None

    def annotate(self, opt, source: str) -> None:
        """Attach what the feature reads of an option at collection time (Moses's
        EvaluateInIsolation of a stateful feature). It runs after the table limit, on the options
        kept: no `estimate` and no stateless feature may read what it attaches."""

    def annotate_all(self, opts: list, source: str) -> None:
        """`annotate` of each of the options of one source phrase (the kept ones of a table): a
        feature that looks its annotations up in a table may look them up together."""
        for opt in opts:
            self.annotate(opt, source)

    def annotate_unknown(self, opt) -> None:
        """Attach what the feature reads of an unknown word's option (the source word passed
        through), which `annotate` never sees."""

    def makes_variants(self, start: int, end: int) -> bool:
        """Whether `variants` may add options on span [start, end) of this sentence."""
        return False

    def variants(self, start: int, end: int, opt, make) -> list:
        """Options the feature adds beside `opt` on span [start, end) of this sentence (after
        begin_sentence): each built by `make(words)`, a copy of `opt` with other words scored by
        the stateless features, or None where the span has an option of those words already."""
        return []

    def estimate(self, opt) -> float:
        """Weighted context-free estimate of `opt`, added to its future cost (from the option's
        words and scores: the annotations come later)."""
        return 0.0

    def jump_score(self, last_end: int, start: int) -> float:
        """Weighted score that depends only on the jump from the previous phrase to `start`; cube
        pruning orders a backwards edge's hypotheses by it (Moses's BackwardsEdge)."""
        return 0.0

    def evaluate(self, state, last_start: int, last_end: int, opt, complete: bool) -> tuple[float, Any]:
        """Extend a hypothesis whose last phrase covered [last_start, last_end) and whose state is
        `state` by `opt`; `complete`: the result covers the whole sentence. Returns the weighted
        score and the new state."""
        raise NotImplementedError

    def values(self, state, last_start: int, last_end: int, opt, complete: bool) -> Values:
        """The unweighted values of the same expansion, for n-best lists and tuning."""
        raise NotImplementedError


@register("Distortion", native_kind=NATIVE_DISTORTION)
class Distortion(StatefulFeature):
    """Minus the width of the jump from the previous phrase's end; its state is that end."""

    @property
    def upper_bound(self) -> float:
        return 0.0 if self.weights[0] >= 0 else math.inf

    def empty_state(self) -> Any:
        return 0

    def jump_score(self, last_end: int, start: int) -> float:
        return self.weights[0] * abs(last_end - start)

    def evaluate(self, state, last_start, last_end, opt, complete):
        return self.weights[0] * -abs(last_end - opt.start), opt.end

    def values(self, state, last_start, last_end, opt, complete):
        return ((0, float(-abs(last_end - opt.start))),)


@register("LexicalReordering", native_kind=NATIVE_REORDERING)
class LexicalReordering(StatefulFeature):
    """msd-bidirectional-fe: the backward score of an option for its orientation to the previous
    phrase, and the previous option's forward score for the same orientation. The state holds the
    previous phrase's span and forward scores."""

    def __init__(self, slot: FeatureSlot, table: ReorderingTable):
        super().__init__(slot)
        self.table = table

    @classmethod
    def from_line(cls, line: Feature, slot: FeatureSlot, config_path: str | None,
                  loading: Loading) -> LexicalReordering:
        if loading.reordering is not None:
            raise CadError("only one LexicalReordering feature is supported", config_path, line.line)
        loading.reordering = ReorderingTable(line, config_path)
        return cls(slot, loading.reordering)

    def empty_state(self) -> Any:
        return (0, 0, None)

    def annotate(self, opt, source: str) -> None:
        ro = self.table.scores.get((source, " ".join(opt.words)))
        opt.reordering = ro
        if ro is not None:
            opt.reordering_forward = ro[3:6]

    def annotate_all(self, opts: list, source: str) -> None:
        for opt, ro in zip(opts, self.table.scores.get_many(source, [" ".join(o.words) for o in opts])):
            opt.reordering = ro
            if ro is not None:
                opt.reordering_forward = ro[3:6]

    @staticmethod
    def _orientation(state, opt) -> int:
        if opt.start == state[1]:
            return MONO
        if opt.end == state[0]:
            return SWAP
        return OTHER

    def evaluate(self, state, last_start, last_end, opt, complete):
        orient = self._orientation(state, opt)
        w = self.weights
        score = 0.0
        ro = opt.reordering
        if ro is not None:
            score = w[orient] * ro[orient]
        fwd = state[2]
        if fwd is not None:
            score += w[3 + orient] * fwd[orient]
        return score, (opt.start, opt.end, opt.reordering_forward)

    def values(self, state, last_start, last_end, opt, complete):
        orient = self._orientation(state, opt)
        out: Values = ()
        if opt.reordering is not None:
            out = ((orient, opt.reordering[orient]),)
        if state[2] is not None:
            out += ((3 + orient, state[2][orient]),)
        return out


@register("KENLM", native_kind=NATIVE_LM)
class KenLMFeature(StatefulFeature):
    """An n-gram language model: natural-log probability of the option's words after the state,
    plus </s> when the sentence is complete. Many hypotheses share a state, so scores are memoized
    per (state, phrase, completeness) for the sentence. A configuration may have several (Moses's
    LM0, LM1, ...: say a large out-of-domain and a small in-domain model), each its own feature
    with its own weight and state."""

    expensive = True

    def __init__(self, slot: FeatureSlot, lm: LanguageModel):
        super().__init__(slot)
        self.lm = lm
        self._memo: dict = {}

    @classmethod
    def from_line(cls, line: Feature, slot: FeatureSlot, config_path: str | None,
                  loading: Loading) -> KenLMFeature:
        lm = LanguageModel(line, config_path)
        loading.lms.append(lm)
        return cls(slot, lm)

    def begin_sentence(self, tokens: list[str]) -> None:
        super().begin_sentence(tokens)
        self._memo = {}

    @property
    def upper_bound(self) -> float:
        return 0.0 if self.weights[0] >= 0 else math.inf

    def empty_state(self) -> Any:
        return self.lm.begin()

    def estimate(self, opt) -> float:
        return self.lm.estimate(opt.words) * self.weights[0]

    def _score(self, state, opt, complete) -> tuple[float, Any]:
        key = (state, opt.words, complete)
        hit = self._memo.get(key)
        if hit is None:
            lm, new = self.lm.score_words(state, opt.words)
            if complete:
                end_score, new = self.lm.score_words(new, ("</s>",))
                lm += end_score
            hit = self._memo[key] = (lm, new)
        return hit

    def evaluate(self, state, last_start, last_end, opt, complete):
        lm, new = self._score(state, opt, complete)
        return self.weights[0] * lm, new

    def values(self, state, last_start, last_end, opt, complete):
        return ((0, self._score(state, opt, complete)[0]),)
