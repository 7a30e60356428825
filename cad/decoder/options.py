"""Translation options of one sentence and the future-cost table (Moses's TranslationOptionCollection)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import mul

from cad.decoder.model import DecoderModel
from cad.decoder.stateful import StatefulFeature

NEG_INF = -math.inf
# source phrases whose table-limited options are kept across sentences (Moses prunes its tables
# once at load time; here an option is made the first time its phrase is asked for, and the
# phrases asked for least recently are let go)
TEMPLATES_KEPT = 4096


@dataclass(eq=False, slots=True)
class TranslationOption:
    start: int                      # source span [start, end)
    end: int
    words: tuple[str, ...]
    table: int                      # index of the phrase table; -1 for an unknown word
    scores: tuple[float, ...]       # the table's log scores
    alignment: tuple[tuple[int, int], ...]
    reordering: tuple[float, ...] | None     # set by the lexicalized reordering feature
    stateless: float = 0.0          # weighted sum of the stateless features
    future: float = 0.0             # stateless + weighted LM estimate
    values: tuple[tuple[int, tuple[float, ...]], ...] = ()   # (slot offset, unweighted values) per feature
    in_context: float = 0.0         # the weighted part from features that read the sentence's context
    reordering_forward: tuple[float, ...] | None = None     # reordering[3:6], kept once for the search state
    estimate: float = 0.0           # the stateful features' part of `future`
    # what the compiled search reads of the option, packed by it the first time it reads it (a
    # template is read again by every sentence with its phrase); a placed copy starts without,
    # as the features that read the context may change its scores
    native: bytes | None = None
    # forced decoding's back-off: a real option's scores under the other-gender twin of its words
    # (cad/decoder/forced.py)
    twin: bool = False
    # the pronoun agreement's transition table over its states (cad/decoder/agreement.py), set by
    # that feature's annotations; an inflected copy it made is also marked `twin`
    agreement: bytes | None = None

    @property
    def unknown(self) -> bool:
        return self.table < 0


def _plan(model: DecoderModel, with_context: bool) -> tuple[list, list]:
    """What scoring an option calls, looked up once for many options: (evaluate, slot offset,
    weights, reads the context) per stateless feature (without those that read the sentence's
    context when `with_context` is false), and the stateful features' estimates."""
    return ([(f.evaluate, f.slot.offset, f.slot.weights, f.reads_context) for f in model.stateless
             if with_context or not f.reads_context],
            [f.estimate for f in model.stateful])


def _score(opt: TranslationOption, stateless: list, estimates: list) -> None:
    s = 0.0
    values = []
    for evaluate, offset, weights, reads_context in stateless:
        v = evaluate(opt)
        if v is None:
            continue
        values.append((offset, v))
        x = sum(map(mul, weights, v))       # the same floats as a generator's sum, faster
        s += x
        if reads_context:
            opt.in_context += x
    opt.values = tuple(values)
    opt.stateless = s
    est = 0.0
    for estimate in estimates:
        est += estimate(opt)
    opt.estimate = est
    opt.future = s + est


def _finish(opt: TranslationOption, model: DecoderModel, with_context: bool = True) -> None:
    """Score `opt` with the stateless features (without those that read the sentence's context
    when `with_context` is false) and add the stateful features' estimate to its future cost."""
    _score(opt, *_plan(model, with_context))


def _finish_in_context(opt: TranslationOption, model: DecoderModel, scoring: list) -> None:
    """`_finish(opt, model)` for an option placed from its template, when the features that read
    the context come after every other stateless feature (moses.ini order): the template's sums
    then are the first terms of `_finish`'s, so adding the context's terms to them gives the same
    floats without scoring the option again. `scoring` are the context features whose reads_span
    covers the option; one that returns nothing leaves the template's scores."""
    if not model.context_last:
        if any(f.evaluate(opt) is not None for f in scoring):
            _finish(opt, model)
        return
    values = []
    s = opt.stateless
    x_in = 0.0
    for f in scoring:
        v = f.evaluate(opt)
        if v is None:
            continue
        values.append((f.slot.offset, v))
        x = sum(map(mul, f.slot.weights, v))
        s += x
        x_in += x
    if values:
        opt.values = opt.values + tuple(values)
        opt.stateless = s
        opt.in_context = x_in
        opt.future = s + opt.estimate


def _limited(model: DecoderModel) -> dict:
    """The table-limited entries per (table, source phrase) under the model's current weights,
    kept across sentences (Moses prunes its phrase tables once, at load time). Keyed by the
    weights, so tuning or a copy of the model with other weights gets its own."""
    key = tuple(model.weights()) + tuple(t.table_limit for t in model.tables)
    cache = model.limit_cache
    got = cache.get(key)
    if got is None:
        if len(cache) >= 4:
            cache.pop(next(iter(cache)))
        got = cache[key] = {}
    return got


def _templates(model: DecoderModel, t: int, entries: list) -> list[TranslationOption]:
    """An option of each entry with everything that does not depend on the sentence but the
    stateful features' annotations: `_finish(opt, model, with_context=False)`, and so its result
    wherever no context-reading feature scores the option, with the features and their weights
    looked up once per phrase, not once per entry (a dev run makes a third of a million)."""
    stateless, estimates = _plan(model, with_context=False)
    out = []
    for entry in entries:
        opt = TranslationOption(0, 0, entry.words, t, entry.scores, entry.alignment, None)
        _score(opt, stateless, estimates)
        out.append(opt)
    return out


def _limit_entries(model: DecoderModel, t: int, src: str, entries: list, limit: int) -> list[TranslationOption]:
    """The table's entries for one source phrase as templates, best first by the context-free
    estimate (stable), cut to the table limit, then annotated by the stateful features (what they
    attach, the reordering scores, is read by neither a future-cost estimate nor a stateless
    feature: most entries fall to the limit, and need none)."""
    templates = sorted(_templates(model, t, entries), key=lambda o: -o.future)
    if limit > 0:
        del templates[limit:]
    # feature by feature, each over every kept option (their annotations are their own)
    for f in model.stateful:
        f.annotate_all(templates, src)
    return templates


def _place(t: TranslationOption, start: int, end: int) -> TranslationOption:
    # every field but the span and the compiled search's packed copy from the template
    # (tests/test_decoder.py checks that none is left out); options have slots, not a __dict__,
    # to keep the kept templates small
    return TranslationOption(start, end, t.words, t.table, t.scores, t.alignment, t.reordering, t.stateless, t.future,
                             t.values, t.in_context, t.reordering_forward, t.estimate, twin=t.twin,
                             agreement=t.agreement)


def placed(opt: TranslationOption, start: int, end: int) -> TranslationOption:
    """`opt` at span [start, end): itself when it is placed already, else a placed copy of the
    template (a template's span is (0, 0), which no option has)."""
    return opt if opt.end else _place(opt, start, end)


@dataclass
class SentenceOptions:
    """One sentence's options and the spans whose options read the sentence's context: a second
    pass over the same words with another context (seed 004's intra-sentential pass) recomputes
    only those spans.

    `raw` holds, per span, the kept templates themselves where no feature that reads the context
    scored them (their span is the dict's key) and placed options where one did: the compiled
    search takes the span from the key, so only the options of the derivations it returns are
    ever placed. `options` places them all, for the Python search and forced decoding."""

    tokens: tuple[str, ...]
    key: tuple                      # the weights and settings the options were scored under
    raw: dict[tuple[int, int], list[TranslationOption]]
    read: frozenset[tuple[int, int]]
    _placed: dict | None = field(default=None, repr=False, compare=False)

    @property
    def options(self) -> dict[tuple[int, int], list[TranslationOption]]:
        if self._placed is None:
            self._placed = {(s, e): [placed(o, s, e) for o in opts] for (s, e), opts in self.raw.items()}
        return self._placed


def _key(model: DecoderModel) -> tuple:
    return tuple(model.weights()) + tuple(t.table_limit for t in model.tables) + tuple(vars(model.settings).items())


def _begin(model: DecoderModel, tokens: list[str], context) -> list:
    """Start the sentence for every feature; the stateless features that read its context."""
    model.begin_sentence(tokens, context)
    for f in model.stateful:
        f.begin_sentence(tokens)
    return [f for f in model.stateless if f.reads_context and f.reads_sentence()]


def _max_len(model: DecoderModel) -> int:
    return min(model.settings.max_phrase_length, max(t.max_source_length for t in model.tables) or 1)


def _path_options(model: DecoderModel, limited: dict, table_ids: list[int], tokens: list[str], start: int,
                  end: int, in_context: list, ranking=None) -> list[TranslationOption]:
    """The options of one decoding path's tables for source span [start, end), before pruning.
    `ranking`: a cad/decoder/ranking.py Ranking, which leaves out the entries the table limit drops."""
    src = " ".join(tokens[start:end])
    scoring = [f for f in in_context if f.reads_span(start, end)] if in_context else in_context
    opts = []
    for t in table_ids:
        # Moses applies the table limit inside the phrase table, before the features that read
        # the sentence's context (EvaluateWithSourceContext) have scored
        kept = limited.pop((t, src), None)
        if kept is not None:
            limited[(t, src)] = kept                    # the most recently asked for now
        else:
            table = model.tables[t]
            # a binary table reads them here, once
            entries = table.entries.get(src) if ranking is None else ranking.entries(t, src)
            if not entries:
                continue
            kept = _limit_entries(model, t, src, entries, table.table_limit)
            if len(limited) >= TEMPLATES_KEPT:
                del limited[next(iter(limited))]        # the least recently asked for: memory stays flat
            limited[(t, src)] = kept
        if not scoring:
            # where no feature that reads the sentence's context scores the option, the
            # template's context-free sums are already `_finish`'s result: the template serves
            opts.extend(kept)
            continue
        for template in kept:
            opt = _place(template, start, end)
            _finish_in_context(opt, model, scoring)
            opts.append(opt)
    return opts


def _unknown(model: DecoderModel, tokens: list[str], i: int) -> TranslationOption:
    opt = TranslationOption(i, i + 1, (tokens[i],), -1, (), ((0, 0),), None)
    _finish(opt, model)
    for f in model.stateful:
        f.annotate_unknown(opt)
    return opt


def _variant_makers(model: DecoderModel) -> list:
    """The stateful features that add options of their own (StatefulFeature.variants)."""
    return [f for f in model.stateful if type(f).makes_variants is not StatefulFeature.makes_variants]


def _with_variants(model: DecoderModel, makers: list, start: int, end: int,
                   opts: list[TranslationOption]) -> list[TranslationOption]:
    """`opts` and the options `makers` add beside them on span [start, end): each a copy of one
    of them with other words, scored by the stateless features, placed on the span."""
    makers = [f for f in makers if f.makes_variants(start, end)]
    if not makers:
        return opts
    have = {o.words for o in opts}
    added: list[TranslationOption] = []
    for f in makers:
        for o in list(opts):
            def make(words: tuple[str, ...], o=o) -> TranslationOption | None:
                if words in have:
                    return None
                have.add(words)
                copy = TranslationOption(start, end, words, o.table, o.scores, o.alignment, o.reordering,
                                         reordering_forward=o.reordering_forward, twin=True)
                _finish(copy, model)
                return copy

            added.extend(f.variants(start, end, o, make))
    return opts + added if added else opts


def _pruned(model: DecoderModel, opts: list[TranslationOption]) -> list[TranslationOption]:
    """Moses's TranslationOptionCollection::Prune, after unknown words: at most `cap` options per
    span (the best by estimated score), then those within the threshold of the best."""
    cap = model.settings.max_trans_opt
    ratio = model.settings.option_threshold
    opts.sort(key=lambda o: -o.future)
    if cap > 0 and len(opts) > cap:
        del opts[cap:]
    if ratio > 0 and len(opts) > 1:
        limit = opts[0].future + math.log(ratio)
        return [o for o in opts if o.future >= limit]
    return opts


def _read_spans(spans, in_context: list) -> frozenset[tuple[int, int]]:
    if not in_context:
        return frozenset()      # plain decoding: nothing to look at for every span
    return frozenset(sp for sp in spans if any(f.reads_span(*sp) for f in in_context))


def collect_options(model: DecoderModel, tokens: list[str],
                    context=None) -> dict[tuple[int, int], list[TranslationOption]]:
    """Every translation option of the sentence by source span, scored by the stateless features."""
    return sentence_options(model, tokens, context).options


def sentence_options(model: DecoderModel, tokens: list[str], context=None,
                     previous: SentenceOptions | None = None, ranking=None) -> SentenceOptions:
    """Every translation option of the sentence, scored by the stateless features; `context` goes
    to the features' begin_sentence (the coreference model's antecedent bundles). `previous`: the
    same sentence's options under another context, whose spans that neither context reads are
    kept as they are (a feature's reads_span promises that they cannot change). `ranking`: the
    compiled core's table-limit ranking (cad/decoder/ranking.py), the same options sooner."""
    in_context = _begin(model, tokens, context)
    key = _key(model)
    if previous is not None and (previous.tokens != tuple(tokens) or previous.key != key):
        previous = None
    if previous is not None:
        return _collect_again(model, tokens, in_context, previous, ranking)
    n = len(tokens)
    max_len = _max_len(model)
    options: dict[tuple[int, int], list[TranslationOption]] = {}
    limited = _limited(model)
    for g, table_ids in enumerate(model.paths):
        backoff = model.backoff[g] if g < len(model.backoff) else 0
        for start in range(n):
            for end in range(start + 1, min(n, start + max_len) + 1):
                # Moses: a later path with back-off N is used only for spans of at most N words
                # that no earlier path could translate (N = 0: always used)
                if g > 0 and backoff != 0 and (end - start > backoff or options.get((start, end))):
                    continue
                opts = _path_options(model, limited, table_ids, tokens, start, end, in_context, ranking)
                if opts:
                    options.setdefault((start, end), []).extend(opts)
    makers = _variant_makers(model)
    if makers:
        for (start, end), opts in options.items():
            options[(start, end)] = _with_variants(model, makers, start, end, opts)
    for i in range(n):
        if not options.get((i, i + 1)):
            options[(i, i + 1)] = [_unknown(model, tokens, i)]
    for span, opts in options.items():
        options[span] = _pruned(model, opts)
    return SentenceOptions(tuple(tokens), key, options, _read_spans(options, in_context))


def _collect_again(model: DecoderModel, tokens: list[str], in_context: list,
                   previous: SentenceOptions, ranking=None) -> SentenceOptions:
    """collect_options's result, in the same span order, from `previous`: the spans that either
    context reads are collected afresh (every path, unknown word, pruning), the others kept."""
    read = _read_spans(previous.raw, in_context)
    again = read | previous.read
    limited = _limited(model)
    options = {}
    for span, kept in previous.raw.items():
        if span not in again:
            options[span] = kept
            continue
        start, end = span
        opts: list[TranslationOption] = []
        for g, table_ids in enumerate(model.paths):
            backoff = model.backoff[g] if g < len(model.backoff) else 0
            if g > 0 and backoff != 0 and (end - start > backoff or opts):
                continue
            opts.extend(_path_options(model, limited, table_ids, tokens, start, end, in_context, ranking))
        makers = _variant_makers(model)
        if makers and opts:
            opts = _with_variants(model, makers, start, end, opts)
        if not opts:
            opts = [_unknown(model, tokens, start)]     # only a one-word span can have had none
        options[span] = _pruned(model, opts)
    return SentenceOptions(previous.tokens, previous.key, options, read)


EXACT_WORDS = 256       # as the compiled core's (cad/decoder/_core.cpp)


class FutureCosts:
    """fc(s, e): the best estimated score of translating source words [s, e) (Moses's future
    cost), for the spans a search can leave open: every span of at most `band` words, and every
    suffix [s, n)."""

    def __init__(self, n: int, band: int, rows: list[list[float]], suffix: list[float]):
        self.n, self.band, self.rows, self.suffix = n, band, rows, suffix

    def __call__(self, s: int, e: int) -> float:
        if e == self.n:
            return self.suffix[s]
        if e - s > self.band:
            raise ValueError(f"future cost of [{s}, {e}), wider than the band of {self.band} words")
        return self.rows[s][e - s]


def future_costs(n: int, options: dict[tuple[int, int], list[TranslationOption]], limit: int = -1) -> FutureCosts:
    """The future costs of a sentence of `n` words whose search has distortion limit `limit`
    (-1: none). Up to EXACT_WORDS words, or without a limit, the whole table by Moses's recursion
    over split points (cubic). Longer sentences get the spans of at most max(limit, longest phrase)
    words by the same recursion (the same values: a search under the limit leaves no wider gap
    before its last covered word), and each suffix [s, n) as the best first span plus the best of
    the rest (the same maximum, in time linear in the length). The compiled core computes the
    same values in the same order."""
    max_len = max((e - s for s, e in options), default=1)
    exact = n <= EXACT_WORDS or limit < 0
    band = n if exact else min(n, max(limit, max_len))
    rows = [[NEG_INF] * (band + 1) for _ in range(n + 1)]
    for (s, e), opts in options.items():
        if e - s <= band:
            rows[s][e - s] = max(rows[s][e - s], opts[0].future)
    for length in range(2, band + 1):
        for s in range(0, n - length + 1):
            row = rows[s]
            best = row[length]
            for k in range(1, length):
                v = row[k] + rows[s + k][length - k]
                if v > best:
                    best = v
            row[length] = best
    suffix = [0.0] * (n + 1)
    if exact:
        for s in range(n):
            suffix[s] = rows[s][n - s]
    else:
        for s in range(n - 1, -1, -1):
            best = NEG_INF
            row = rows[s]
            for e in range(s + 1, min(n, s + band) + 1):
                v = row[e - s] + suffix[e]
                if v > best:
                    best = v
            suffix[s] = best
    return FutureCosts(n, band, rows, suffix)


def future_cost_of(n: int, fc: FutureCosts) -> Callable[[int], float]:
    """The future cost of a coverage: the sum of fc over its gaps, left to right (memoized per
    sentence)."""
    fc_cache: dict[int, float] = {}

    def fc_of(cov: int) -> float:
        v = fc_cache.get(cov)
        if v is None:
            v = 0.0
            i = (~cov & (cov + 1)).bit_length() - 1     # the first gap
            last = cov.bit_length()                      # past the last covered word
            while i < n:
                if cov >> i & 1:
                    i += 1
                    continue
                if i >= last:
                    j = n
                else:
                    j = i
                    while j < n and not cov >> j & 1:
                        j += 1
                v += fc(i, j)
                i = j
            fc_cache[cov] = v
        return v

    return fc_of
