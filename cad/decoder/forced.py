"""The options of constrained decoding (Moses's -constraint; `Decoder.force`, `cad score`).

A constrained search may only take an option whose words are the given target's from the
position its hypothesis has reached, so the options are indexed by that position: `at(s, e, t)`
lists the options of source span [s, e) whose words are target[t:t + len(words)], in the order of
the span's option list (search then expands exactly what it expanded when it tried every option
and refused the others, in the same order).

`penalized=True` adds what makes every target reachable: each source word may become any part of
the target, or nothing, as an unknown word becomes itself. Such an option is an
unknown-word option (table -1): UnknownWordPenalty scores it log(0) floored (-100) times its
weight once per target word (once for nothing), as Moses scores each unknown word, so that the
target words the table does pair with the source are taken from the table and a pronoun keeps its
own option, which the coreference model reads; and every other feature scores it as any option (the
word and phrase penalties, the language model, the coreference model reading the class of its
words); the reordering table has no entry for it, so lexicalized reordering scores nothing for it
(cad's and Moses's treatment of a phrase pair the table lacks). Moses's -constraint has no such
options (its ConstrainedDecoding feature only refuses hypotheses that leave the reference); they
are cad's, for scoring translations the phrase table cannot produce.

`twins` (a function from a target word to its other-gender forms: *il*/*elle*, *mort*/*morte*)
adds a back-off before any penalty: a real option whose words are a target piece but for words that
are other-gender twins of the piece's (*they want* → *ils* where the target says *elles*) gives an
option of the piece's words with that option's table scores, alignment and reordering scores,
scored again by every feature that reads its words (the language model, the coreference model).
Only where the span has no real option of the piece itself: the table's own preference between
*il* and *elle* stands wherever it has both. Without it, two candidates that differ only in a
pronoun's gender and the words that agree with it are decided by which of them the phrase table
happens to hold (one candidate needs an unknown word's penalty, the other not), not by any feature
that reads the context. Moses has no such back-off (its factored models' generation steps come
nearest: a lemma's translation generated in another form); cad's, for contrastive scoring.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

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
                 penalized: bool = False, twins: Callable[[str], Iterable[str]] | None = None,
                 path: frozenset[tuple[int, int, int, int]] | None = None):
        """`path`: the only steps (source span, target span) search may take, so that it finds the
        one derivation they make, if the options of these words exist (Decoder.force)."""
        kept = within(options, target)
        super().__init__(kept)
        self.target = target
        self.penalized = penalized
        self.path = path
        self._model = model
        self._real: dict[tuple[int, int], dict[int, list[TranslationOption]]] = {}
        for span, opts in kept.items():
            by_t: dict[int, list[TranslationOption]] = {}
            for o in opts:
                for t in _positions(o.words, target):
                    by_t.setdefault(t, []).append(o)
            self._real[span] = by_t
        if twins is not None:
            self._back_off(options, twins)
        self._cache: dict[tuple[int, int, int], list[TranslationOption]] = {}
        self._n = len(tokens)
        self._bounds: dict[tuple[int, int], float] = {}
        # (source mask, first source word, end, first target position, end) of each real option's match
        self._matches = sorted({(((1 << (e - s)) - 1) << s, s, e, t, t + len(o.words))
                                for (s, e), by_t in self._real.items() for t, opts in by_t.items() for o in opts})
        if penalized:
            self._penalize(tokens)

    # ------------------------------------------------------------- other-gender twins
    def _back_off(self, options: dict, twins: Callable[[str], Iterable[str]]) -> None:
        target, model = self.target, self._model
        m = len(target)
        accept = [{w, *twins(w)} for w in target]
        starts: dict[str, list[int]] = {}
        for t, words in enumerate(accept):
            for w in words:
                starts.setdefault(w, []).append(t)
        for span, opts in options.items():
            real = self._real.get(span, {})
            made: dict[tuple[int, tuple[str, ...]], TranslationOption] = {}
            for o in opts:
                n = len(o.words)
                for t in starts.get(o.words[0], ()) if n else ():
                    piece = target[t:t + n]
                    if (len(piece) < n or piece == o.words or any(r.words == piece for r in real.get(t, ()))
                            or not all(o.words[j] in accept[t + j] for j in range(1, n))):
                        continue
                    twin = TranslationOption(span[0], span[1], piece, o.table, o.scores, o.alignment, o.reordering,
                                             reordering_forward=o.reordering_forward, twin=True)
                    _finish(twin, model)
                    old = made.get((t, piece))
                    if old is None or twin.future > old.future:
                        made[(t, piece)] = twin
            if not made:
                continue
            # search takes a position's twins after its real options; the span's list keeps its best
            # estimate first, for the future-cost table
            by_t = self._real.setdefault(span, {})
            for (t, _), twin in made.items():
                by_t.setdefault(t, []).append(twin)
            kept = self.get(span, [])
            best = max(made.values(), key=lambda o: o.future)
            rest = [o for o in made.values() if o is not best]
            self[span] = ([best] + kept if not kept or best.future > kept[0].future else kept + [best]) + rest

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
        target (each must become a part of it, or nothing, at a penalty) and the target words left
        that no real option left produces (a penalty each). Without it the search keeps the
        hypotheses that put off an unavoidable penalty, which then need more."""
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
            unmade = sum(1 for j in range(tlen, len(self.target)) if j not in made)
            got = self._bounds[key] = max(need, unmade) * self._penalty
        return got

    # ------------------------------------------------------------- search's view
    def at(self, s: int, e: int, t: int) -> list[TranslationOption]:
        key = (s, e, t)
        got = self._cache.get(key)
        if got is None:
            got = list(self._real.get((s, e), {}).get(t, ()))
            if self.penalized and e == s + 1:
                got += [self._chunk(s, self.target[t:end]) for end in range(t, len(self.target) + 1)]
            if self.path is not None:
                got = [o for o in got if (s, e, t, t + len(o.words)) in self.path]
            self._cache[key] = got
        return got
