"""Stack decoding (normal beam search and cube pruning), recombination, and n-best extraction.

Mirrors Moses's SearchNormal / SearchCubePruning: stacks by number of covered source words,
hypothesis recombination on coverage, last source position and every stateful feature's state,
threshold and histogram pruning on score + future cost, Moses's distortion-limit rule (a phrase
that does not start at the first gap must end within the limit of it), and n-best lists from the
recombination arcs (Moses's trellis paths).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterable

from cad.decoder import native
from cad.decoder.derivation import Derivation, Step, Translation
from cad.decoder.forced import ForcedOptions
from cad.decoder.model import DecoderModel
from cad.decoder.options import (NEG_INF, FutureCosts, SentenceOptions, TranslationOption, future_cost_of,
                                 future_costs, sentence_options)
from cad.decoder.ranking import Ranking
from cad.decoder.stateful import StatefulFeature


class Hypothesis:
    __slots__ = ("prev", "opt", "cov", "ncov", "score", "total", "states", "last_start", "last_end",
                 "arcs", "tlen")

    def __init__(self, prev, opt, cov, ncov, score, total, states, last_start, last_end, tlen=0):
        self.prev = prev
        self.opt = opt
        self.cov = cov
        self.ncov = ncov
        self.score = score
        self.total = total
        self.states = states        # one state per stateful feature
        self.last_start = last_start
        self.last_end = last_end
        self.arcs: list[Hypothesis] = []
        self.tlen = tlen            # target words so far


def _spans_of(n: int, options: dict, limit: int) -> Callable[[int], list[tuple[int, int]]]:
    """The spans with options that a hypothesis of a coverage may translate next under Moses's
    distortion-limit rule (memoized per sentence)."""
    spans_cache: dict[int, list[tuple[int, int]]] = {}
    max_len = max((e - s for s, e in options), default=1)

    def spans(cov: int) -> list[tuple[int, int]]:
        out = spans_cache.get(cov)
        if out is not None:
            return out
        out = []
        gap = (~cov & (cov + 1)).bit_length() - 1       # the first uncovered position
        # under a limit, a phrase away from the gap must end within it: none starts at gap + limit
        stop = min(n, max(gap + 1, gap + limit)) if limit >= 0 else n
        for s in range(gap, stop):
            if cov >> s & 1:
                continue
            for e in range(s + 1, min(n, s + max_len) + 1):
                if cov >> (e - 1) & 1:
                    break
                if (s, e) not in options:
                    continue
                # Moses: away from the first gap, the phrase must end within the limit of it
                if s != gap and limit >= 0 and e - gap > limit:
                    continue
                out.append((s, e))
        spans_cache[cov] = out
        return out

    return spans


RECENT = 8      # sentences whose options a decoder keeps
FORCED_STACK = 50   # the stack of forced decoding with penalized options (no threshold pruning)


class Decoder:
    """Search over the options the stateless features scored, extended through the stateful
    features of `model.stateful`; it names no model."""

    def __init__(self, model: DecoderModel, native: bool = True):
        """`native`: search with the compiled core where it can run (cad/decoder/native.py);
        False keeps the Python search."""
        self.model = model
        self.weights = model.weights()
        self.stateful = model.stateful
        self._constraint: tuple[str, ...] | None = None
        self._twins: Callable[[str], Iterable[str]] | None = None
        self._path: frozenset[tuple[int, int, int, int]] | None = None
        self._penalized = False
        self._bound: Callable[[int, int], float] | None = None
        self._bounds: list[float] = []
        self._evaluate = [f.evaluate for f in self.stateful]
        self._check = [f.expensive for f in self.stateful]
        self._native: object | None = None
        self._native_checked = not native
        self._ranking: Ranking | None = None
        # the last few sentences' options, for a second pass over the same words (seed 004's
        # intra-sentential pass, which cad translate may interleave with other sentences)
        self._recent: dict[tuple[str, ...], SentenceOptions] = {}
        # only features whose score depends on the jump alone order cube pruning's edges
        self._jump = [f.jump_score for f in self.stateful if type(f).jump_score is not StatefulFeature.jump_score]

    def _begin(self, tokens: list[str]) -> None:
        self.weights = self.model.weights()
        for f in self.stateful:
            f.begin_sentence(tokens)
        # bounds[i]: the most features i.. can add; checked before each expensive feature
        bounds = [0.0] * (len(self.stateful) + 1)
        for i in range(len(self.stateful) - 1, -1, -1):
            bounds[i] = bounds[i + 1] + self.stateful[i].upper_bound
        self._bounds = bounds

    # ---------------------------------------------------------------- expansion
    def _expand(self, h: Hypothesis, opt: TranslationOption, n: int, full: int, fc_of,
                threshold: float = NEG_INF) -> Hypothesis | None:
        """Extend `h` by `opt`; None when the result falls below `threshold` (Moses's AddPrune),
        checked before each expensive feature whose score cannot rise above its bound."""
        s, e = opt.start, opt.end
        cov = h.cov | (((1 << (e - s)) - 1) << s)
        tlen = h.tlen + len(opt.words)
        c = self._constraint
        if c is not None and (c[h.tlen:tlen] != opt.words or (
                tlen < len(c) if cov == full else tlen == len(c) and not self._penalized)):
            # forced decoding: the output must stay a prefix of the given target, and be it once
            # the source is covered (penalized options may translate words left by nothing)
            return None
        future = fc_of(cov)
        if self._bound is not None:
            future += self._bound(cov, tlen)     # forced decoding: the penalties still needed
        complete = cov == full
        score = h.score + opt.stateless
        states = []
        last_start, last_end = h.last_start, h.last_end
        for evaluate, check, bound, state in zip(self._evaluate, self._check, self._bounds, h.states):
            if check and score + future + bound < threshold:
                return None
            v, st = evaluate(state, last_start, last_end, opt, complete)
            score += v
            states.append(st)
        if score + future < threshold:
            return None
        return Hypothesis(h, opt, cov, h.ncov + e - s, score, score + future, tuple(states), s, e, tlen)

    def _key(self, h: Hypothesis):
        # the last phrase's end stays in the key whatever the features: the distortion limit reads it
        if self._constraint is not None:
            return (h.cov, h.last_end, h.states, h.tlen)
        return (h.cov, h.last_end, h.states)

    @staticmethod
    def _add(stack: dict, key, h: Hypothesis) -> None:
        old = stack.get(key)
        if old is None:
            stack[key] = h
        elif h.score > old.score:
            h.arcs = old.arcs + [old]
            old.arcs = []
            stack[key] = h
        else:
            old.arcs.append(h)

    def _prune(self, stack: dict) -> list[Hypothesis]:
        hyps = sorted(stack.values(), key=lambda x: -x.total)
        if not hyps:
            return hyps
        limit = hyps[0].total + self.model.settings.log_beam
        hyps = [h for h in hyps if h.total >= limit]
        size = self.model.settings.stack
        return hyps[:size] if size > 0 else hyps

    def _lazy_prune(self, stacks: list[dict], k: int, size: int, floor: list[float]) -> dict:
        """Moses's lazy pruning (HypothesisStackNormal::Add): once a stack holds twice its size, keep
        the best `size` and refuse anything worse than the last of them from then on. Such
        hypotheses could never reach the stack's final top `size`, so the search result is the same
        with less memory and fewer LM calls."""
        kept = sorted(stacks[k].values(), key=lambda x: -x.total)[:size]
        floor[k] = kept[-1].total
        stacks[k] = {self._key(x): x for x in kept}
        return stacks[k]

    # ---------------------------------------------------------------- search
    def force(self, sentence: str, target: str, context=None, reach: bool = False,
              twins: Callable[[str], Iterable[str]] | None = None,
              path: Iterable[tuple[int, int, int, int]] | None = None) -> Translation | None:
        """Constrained decoding (Moses's -constraint): the best derivation whose output is exactly
        `target`, by normal stack search over the options whose words occur in the target; None
        when the search finds none (the target is unreachable under the table and the limits).
        `reach`: an unreachable target is searched again with penalized options added
        (cad/decoder/forced.py: each source word to a part of the target or to nothing, at an
        unknown word's cost), so that every non-empty target of a non-empty source is reached; a
        target the real options reach keeps the derivation and score they give. The search with penalized options prunes
        by histogram alone (FORCED_STACK hypotheses a stack), its future costs counting the
        penalties a hypothesis cannot avoid (ForcedOptions.penalty_bound): hypotheses hundreds
        apart in score may end equal, so a threshold would prune the ones that paid early.
        `twins`: a target word's other-gender forms; real options then also stand in for the
        target pieces that differ from their words only by such forms, before any penalty
        (ForcedOptions; the steps they give are marked `twin`). `path`: (source start, end, target
        start, end) of every step: the one derivation of the target they make, scored in full
        (another target's derivation read with this target's words), or None."""
        words = tuple(target.split())
        if not words:
            return None
        settings = self.model.settings
        kept = (settings.search_algorithm, settings.beam_threshold, settings.stack)
        self._constraint = words
        self._twins = twins
        self._path = None if path is None else frozenset(path)
        settings.search_algorithm = 0     # cube pruning assumes every expansion exists
        try:
            for penalized in (False, True) if reach else (False,):
                if penalized:
                    # hypotheses a few penalties apart may end equal: no threshold, a smaller stack
                    settings.beam_threshold, settings.stack = 0.0, min(kept[2], FORCED_STACK) or FORCED_STACK
                self._penalized = penalized
                try:
                    return self.translate(sentence, context=context)
                except RuntimeError:
                    pass
            return None
        finally:
            self._constraint = self._twins = self._path = None
            self._penalized, self._bound = False, None
            settings.search_algorithm, settings.beam_threshold, settings.stack = kept

    def translate(self, sentence: str, nbest: int = 0, distinct: bool = False, context=None) -> Translation:
        """`context`: per-sentence input for stateless features that read more than the words
        (the coreference model's {"pronouns": {index: {bundle: weight}}})."""
        tokens = sentence.split()
        names = [(s.name, s.offset, s.size) for s in self.model.slots]
        n = len(tokens)
        if n == 0:
            empty = Derivation([], 0.0, [0.0] * self.model.size, [])
            return Translation(tokens, empty, [empty] if nbest else [], names)
        collected = self._options(tokens, context)
        forced = None
        if self._constraint is not None:
            forced = ForcedOptions(self.model, tokens, collected.options, self._constraint, self._penalized,
                                   self._twins, self._path)
        self._bound = forced.penalty_bound if forced is not None and self._penalized else None
        self._begin(tokens)
        core = self._core() if forced is None else None
        if core is not None and native.fits(n, collected.raw, self.model.settings.distortion_limit):
            best_opts, paths = native.search(self, core, tokens, collected.raw, nbest, distinct)
            out = Translation(tokens, self._replay(best_opts), [], names)
            if nbest:
                out.nbest = self._nbest_of(paths, nbest, distinct)
            return out
        options = collected.options if forced is None else forced
        finals = self._search(n, options, future_costs(n, options, self.model.settings.distortion_limit))
        if not finals:
            raise RuntimeError("no complete translation survived the search")
        best = self._derivation(self._chain(finals[0]), names)
        out = Translation(tokens, best, [], names)
        if nbest:
            out.nbest = self._nbest(finals, nbest, distinct, names)
        return out

    def _options(self, tokens: list[str], context) -> SentenceOptions:
        """The sentence's options; kept among the recent sentences' unless decoding is forced."""
        words = tuple(tokens)
        collected = sentence_options(self.model, tokens, context, self._recent.get(words), self._ranker())
        if self._constraint is None:
            self._recent.pop(words, None)
            self._recent[words] = collected
            if len(self._recent) > RECENT:
                del self._recent[next(iter(self._recent))]
        return collected

    def _search(self, n: int, options: dict, fc: FutureCosts) -> list[Hypothesis]:
        """The Python search: the hypotheses of the last stack that survive pruning, best first."""
        full = (1 << n) - 1
        fc_of = future_cost_of(n, fc)
        limit = self.model.settings.distortion_limit
        spans = _spans_of(n, options, limit)
        root = Hypothesis(None, None, 0, 0, 0.0, fc_of(0), tuple(f.empty_state() for f in self.stateful), 0, 0)
        stacks: list[dict] = [dict() for _ in range(n + 1)]
        stacks[0][self._key(root)] = root
        if self.model.settings.search_algorithm == 1:
            self._cube_pruning(stacks, options, spans, n, full, fc_of, limit)
        else:
            self._stack_search(stacks, options, spans, n, full, fc_of, limit)
        return self._prune(stacks[n])

    def _stack_search(self, stacks, options, spans, n, full, fc_of, limit: int) -> None:
        """Moses's SearchNormal: the hypotheses of each stack that survive its pruning, extended by
        every option of every span they may take next."""
        log_beam = self.model.settings.log_beam
        size = self.model.settings.stack
        best = [NEG_INF] * (n + 1)
        floor = [NEG_INF] * (n + 1)    # worst score kept by the last lazy pruning of each stack
        at = getattr(options, "at", None)      # forced decoding: the options that fit the target there
        for k in range(n):
            hyps = self._prune(stacks[k])
            stacks[k] = {}             # what pruning dropped can go now
            for h in hyps:
                for s, e in spans(h.cov):
                    # Moses: the jump from the previous phrase must be within the limit too
                    if limit >= 0 and abs(h.last_end - s) > limit:
                        continue
                    k2 = k + e - s
                    target = stacks[k2]
                    for opt in options[(s, e)] if at is None else at(s, e, h.tlen):
                        nh = self._expand(h, opt, n, full, fc_of, max(best[k2] + log_beam, floor[k2]))
                        if nh is None:
                            continue
                        if nh.total > best[k2]:
                            best[k2] = nh.total
                        self._add(target, self._key(nh), nh)
                        if size > 0 and len(target) >= 2 * size:
                            target = self._lazy_prune(stacks, k2, size, floor)

    def _cube_pruning(self, stacks, options, spans, n, full, fc_of, limit: int) -> None:
        pop_limit = self.model.settings.pop_limit
        edges: list[list] = [[] for _ in range(n + 1)]
        counter = itertools.count()
        for k in range(n + 1):
            if k > 0:
                heap = []
                seen = set()
                for ei, (hyps, opts) in enumerate(edges[k]):
                    nh = self._expand(hyps[0], opts[0], n, full, fc_of)
                    heap.append((-nh.total, next(counter), ei, 0, 0, nh))
                    seen.add((ei, 0, 0))
                heapq.heapify(heap)
                pops = 0
                while heap and pops < pop_limit:
                    _, _, ei, i, j, nh = heapq.heappop(heap)
                    pops += 1
                    self._add(stacks[k], self._key(nh), nh)
                    hyps, opts = edges[k][ei]
                    for ni, nj in ((i + 1, j), (i, j + 1)):
                        if ni < len(hyps) and nj < len(opts) and (ei, ni, nj) not in seen:
                            seen.add((ei, ni, nj))
                            nx = self._expand(hyps[ni], opts[nj], n, full, fc_of)
                            heapq.heappush(heap, (-nx.total, next(counter), ei, ni, nj, nx))
                edges[k] = []
            if k == n:
                break
            by_cov: dict[int, list[Hypothesis]] = {}
            for h in self._prune(stacks[k]):
                by_cov.setdefault(h.cov, []).append(h)
            stacks[k] = {}
            for cov, hyps in by_cov.items():
                hyps.sort(key=lambda x: -x.score)
                for s, e in spans(cov):
                    if limit < 0:
                        edge = hyps
                    else:
                        # Moses's BackwardsEdge: only hypotheses within the distortion limit of
                        # this span, ordered by score plus the distortion cost of the jump to it
                        edge = [h for h in hyps if abs(h.last_end - s) <= limit]
                        if not edge:
                            continue
                        jumps = self._jump
                        if len(jumps) == 1:
                            jump = jumps[0]
                            edge.sort(key=lambda x: jump(x.last_end, s) - x.score)
                        else:
                            edge.sort(key=lambda x: sum(j(x.last_end, s) for j in jumps) - x.score)
                    edges[k + e - s].append((edge, options[(s, e)]))

    def _ranker(self) -> Ranking | None:
        """The compiled core's ranking of the table limit, where the core runs (the Python engine
        ranks in Python, as it searches)."""
        core = self._core()
        if core is None:
            return None
        if self._ranking is None or self._ranking.core is not core:
            self._ranking = Ranking(core, self.model)
        return self._ranking

    def _core(self):
        if not self._native_checked:
            self._native = native.core_for(self.stateful)
            self._native_checked = True
        return self._native

    # ---------------------------------------------------------------- output
    def _replay(self, opts: list[TranslationOption]) -> Derivation:
        """The derivation of a sequence of options found by the compiled core: the stateful
        features are run along it from their empty states (the same values and sums as
        `_derivation` reads from the hypotheses of the Python search)."""
        m = self.model
        feats = [0.0] * m.size
        words: list[str] = []
        steps: list[Step] = []
        states = [f.empty_state() for f in self.stateful]
        last_start = last_end = 0
        last = len(opts) - 1
        for j, o in enumerate(opts):
            for offset, values in o.values:
                for i, v in enumerate(values):
                    feats[offset + i] += v
            complete = j == last
            for k, f in enumerate(self.stateful):
                base = f.slot.offset
                for i, v in f.values(states[k], last_start, last_end, o, complete):
                    feats[base + i] += v
                states[k] = f.evaluate(states[k], last_start, last_end, o, complete)[1]
            last_start, last_end = o.start, o.end
            steps.append(Step(o.start, o.end, len(words), len(words) + len(o.words), o.words, o.table, o.alignment,
                              o.twin))
            words.extend(o.words)
        total = sum(w * f for w, f in zip(self.weights, feats))
        return Derivation(words, total, feats, steps)

    def _nbest_of(self, paths, n: int, distinct: bool) -> list[Derivation]:
        """`_nbest`'s selection over the core's paths (native.Paths), given in the order the trellis
        pops them; only the kept ones are placed and replayed."""
        out: list[Derivation] = []
        seen_text = set()
        for k in range(len(paths)):
            if len(out) >= n:
                break
            text = paths.text(k)
            if not distinct or text not in seen_text:
                seen_text.add(text)
                out.append(self._replay(paths[k]))
        return out

    @staticmethod
    def _chain(h: Hypothesis) -> list[Hypothesis]:
        out = []
        while h.prev is not None:
            out.append(h)
            h = h.prev
        out.reverse()
        return out

    def _derivation(self, chain: list[Hypothesis], names) -> Derivation:
        m = self.model
        feats = [0.0] * m.size
        words: list[str] = []
        steps: list[Step] = []
        last = len(chain) - 1
        for j, h in enumerate(chain):
            o = h.opt
            for offset, values in o.values:
                for i, v in enumerate(values):
                    feats[offset + i] += v
            # the step's stateful values, from its predecessor on this path (an n-best path may
            # pass through a recombined arc, whose states equal those of the hypothesis it replaced)
            p = chain[j - 1] if j else h.prev
            for f, state in zip(self.stateful, p.states):
                base = f.slot.offset
                for i, v in f.values(state, p.last_start, p.last_end, o, j == last):
                    feats[base + i] += v
            steps.append(Step(o.start, o.end, len(words), len(words) + len(o.words), o.words, o.table, o.alignment,
                              o.twin))
            words.extend(o.words)
        total = sum(w * f for w, f in zip(self.weights, feats))
        return Derivation(words, total, feats, steps)

    def _nbest(self, finals: list[Hypothesis], n: int, distinct: bool, names) -> list[Derivation]:
        """Trellis paths: replace one hypothesis of a path by one of its recombination arcs."""
        counter = itertools.count()
        heap = []
        for h in finals:
            chain = self._chain(h)
            heapq.heappush(heap, (-h.score, next(counter), chain, len(chain)))
        out: list[Derivation] = []
        seen_text = set()
        # distinct lists look further, as Moses does (n * 20 candidates)
        budget = n * 20 if distinct else n
        popped = 0
        while heap and len(out) < n and popped < budget:
            neg, _, chain, dev_limit = heapq.heappop(heap)
            popped += 1
            d = self._derivation(chain, names)
            if not distinct or d.text not in seen_text:
                seen_text.add(d.text)
                out.append(d)
            # a path may deviate only before the position where it was made, so no path comes twice
            for i in range(dev_limit - 1, -1, -1):
                node = chain[i]
                for arc in node.arcs:
                    arc_chain = self._chain(arc)
                    heapq.heappush(heap, (neg + node.score - arc.score, next(counter),
                                          arc_chain + chain[i + 1:], len(arc_chain) - 1))
        return out
