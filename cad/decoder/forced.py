"""The options of constrained decoding (Moses's -constraint; `Decoder.force`, `cad score`).

A constrained search may only take an option whose words are the given target's from the
position its hypothesis has reached, so the options are indexed by that position: `at(s, e, t)`
lists the options of source span [s, e) whose words are target[t:t + len(words)], in the order of
the span's option list (search then expands exactly what it expanded when it tried every option
and refused the others, in the same order).

`penalized=True` adds what makes every target reachable: each source word may become any part of
the target, or nothing, as an unknown word becomes itself. Such an option is an
unknown-word option (table -1): UnknownWordPenalty scores it log(0) floored (-100) times its
weight, as Moses scores an unknown word, and every other feature scores it as any option (the
word and phrase penalties, the language model, the coreference model reading the class of its
words); the reordering table has no entry for it, so lexicalized reordering scores nothing for it
(cad's and Moses's treatment of a phrase pair the table lacks). Moses's -constraint has no such
options (its ConstrainedDecoding feature only refuses hypotheses that leave the reference); they
are cad's, for scoring translations the phrase table cannot produce.
"""

from __future__ import annotations

from cad.decoder.model import DecoderModel
from cad.decoder.options import TranslationOption, _finish, _finish_in_context, _place


def within(options: dict, target: tuple[str, ...]) -> dict:
    """The options whose words occur somewhere in `target` (others can never be used)."""
    n = len(target)
    pieces = {target[i:j] for i in range(n) for j in range(i + 1, n + 1)}
    return {span: kept for span, opts in options.items() if (kept := [o for o in opts if o.words in pieces])}


def _positions(words: tuple[str, ...], target: tuple[str, ...]) -> list[int]:
    n = len(words)
    return [t for t in range(len(target) - n + 1) if target[t:t + n] == words]


class ForcedOptions(dict):
    """Span -> options (the keys are the spans search may take, the first option of each list
    is its best estimate for the future-cost table); `at(s, e, t)` the options a hypothesis with
    `t` target words may take on span [s, e)."""

    def __init__(self, model: DecoderModel, tokens: list[str], options: dict, target: tuple[str, ...],
                 penalized: bool = False):
        kept = within(options, target)
        super().__init__(kept)
        self.target = target
        self.penalized = penalized
        self._model = model
        self._real: dict[tuple[int, int], dict[int, list[TranslationOption]]] = {}
        for span, opts in kept.items():
            by_t: dict[int, list[TranslationOption]] = {}
            for o in opts:
                for t in _positions(o.words, target):
                    by_t.setdefault(t, []).append(o)
            self._real[span] = by_t
        self._cache: dict[tuple[int, int, int], list[TranslationOption]] = {}
        self._n = len(tokens)
        self._bounds: dict[tuple[int, int], float] = {}
        # (source mask, first source word, end, first target position, end) of each real option's match
        self._matches = sorted({(((1 << (e - s)) - 1) << s, s, e, t, t + len(o.words))
                                for (s, e), by_t in self._real.items() for t, opts in by_t.items() for o in opts})
        if penalized:
            self._penalize(tokens)

    # ------------------------------------------------------------- penalized options
    def _penalize(self, tokens: list[str]) -> None:
        """Templates of every target substring and of nothing, scored without the context; the
        features that read the sentence's context score them where placed (`_chunk`)."""
        model = self._model
        m = len(self.target)
        self._templates: dict[tuple[str, ...], TranslationOption] = {}
        for t in range(m + 1):
            for end in range(t, m + 1):
                words = self.target[t:end]
                if words not in self._templates:
                    opt = TranslationOption(0, 0, words, -1, (), tuple((0, j) for j in range(len(words))), None)
                    _finish(opt, model, with_context=False)
                    self._templates[words] = opt
        self._scoring = [f for f in model.stateless if f.reads_context and f.reads_sentence()]
        self._penalty = min(0.0, max(o.stateless for o in self._templates.values()))
        self._placed: dict[tuple[int, tuple[str, ...]], TranslationOption] = {}
        best_free = max(self._templates.values(), key=lambda o: o.future)
        for i in range(len(tokens)):
            span = (i, i + 1)
            if any(f.reads_span(i, i + 1) for f in self._scoring):
                best = max((self._chunk(i, w) for w in self._templates), key=lambda o: o.future)
            else:
                best = self._chunk(i, best_free.words)
            opts = self.get(span, [])
            # the span's best estimate first, for the future-cost table (ties: the real option)
            self[span] = [best] + opts if not opts or best.future > opts[0].future else opts + [best]

    def _chunk(self, i: int, words: tuple[str, ...]) -> TranslationOption:
        key = (i, words)
        opt = self._placed.get(key)
        if opt is None:
            opt = _place(self._templates[words], i, i + 1)
            scoring = [f for f in self._scoring if f.reads_span(i, i + 1)]
            if scoring:
                _finish_in_context(opt, self._model, scoring)
            self._placed[key] = opt
        return opt

    def penalty_bound(self, cov: int, tlen: int) -> float:
        """What the penalized options a hypothesis (source coverage `cov`, `tlen` target words)
        still needs will cost, for its future cost: the cheapest penalized option's score times the
        larger of the source words left that no real option left can translate into the rest of the
        target (each must become a part of it, or nothing, at a penalty) and the runs of target
        words left that no real option left produces (each run needs a penalized option, unless
        one option takes two runs and what lies between: an estimate, not a bound). Without it the
        search keeps the hypotheses that put off an unavoidable penalty, which then need more."""
        key = (cov, tlen)
        got = self._bounds.get(key)
        if got is None:
            free = 0
            made: set[int] = set()
            for mask, s, e, t, end in self._matches:
                if t >= tlen and not cov & mask:
                    free |= mask
                    made.update(range(t, end))
            need = sum(1 for i in range(self._n) if not (cov | free) >> i & 1)
            runs, inside = 0, False
            for j in range(tlen, len(self.target)):
                if j not in made and not inside:
                    runs += 1
                inside = j not in made
            got = self._bounds[key] = max(need, runs) * self._penalty
        return got

    # ------------------------------------------------------------- search's view
    def at(self, s: int, e: int, t: int) -> list[TranslationOption]:
        key = (s, e, t)
        got = self._cache.get(key)
        if got is None:
            got = list(self._real.get((s, e), {}).get(t, ()))
            if self.penalized and e == s + 1:
                got += [self._chunk(s, self.target[t:end]) for end in range(t, len(self.target) + 1)]
            self._cache[key] = got
        return got
