"""n-best reranking with the Coreference Model, for any decoder that writes Moses n-best lists.

Each hypothesis of a distinct n-best list (with word alignments: Moses's
`-print-alignment-info-in-n-best`) gets one more score: for every source pronoun with antecedent
candidates, ln Σ_c p(c) · P(target | bundle_c) / Σ_c p(c), where the target is what the hypothesis
aligns to the pronoun, bundle_c the pronoun with the gender and number of candidate c's translation,
and the sums run over the candidates whose translation yields a bundle of the table (seed 003's
expected value over candidates; at least 1e-5, the table's own cut). An antecedent in an earlier sentence is read from that
sentence's chosen hypothesis; one in the same sentence from the hypothesis itself, so that each
hypothesis is judged by its own agreement. The new total is the decoder's total plus
λ_CM · that score; the best total wins (the first on a tie, as in the list's order).

`ClassReranker` is the class CM's (the decoder feature's score over n-best lists); where the pair's
source states the antecedents' features (Spanish→English), `SourceReranker` reads the
source-feature table: the bundles are the source antecedents' own, so nothing depends on the
translation of earlier sentences and each sentence is reranked on its own.
"""

from __future__ import annotations

import math
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field

from cad.cm.bundles import Bundle, source_bundle
from cad.cm.class_model import (READINGS, antecedent_distribution, gender_shares, pronoun_mixture,
                                read_mixture, score_class, split_scores, through_chain)
from cad.cm.classes import aligned_words, pronoun_class
from cad.cm.construction import SITUATION, cm_roles, situation_translation
from cad.cm.other_words import OtherWords, other_word
from cad.cm.projection import aligned_targets, gender_number, project
from cad.cm.referent import animacy_of
from cad.core.alignment import parse_alignment
from cad.core.errors import CadError
from cad.defaults import CM_IMPLICIT_OBJECTIVE, CM_IMPLICIT_READING
from cad.core.textio import read_lines
from cad.lang import OTHER
from cad.lang.pairs import Pair, chosen
from coref.records import PronounResolution

_SEGMENT_MARK = re.compile(r"^\|\d+-\d+\|$")

FLOOR = 1e-5        # the CM table's own cut: a target it does not list is at most this likely


@dataclass
class Hypothesis:
    words: list[str]
    total: float
    alignment: list[tuple[int, int]]         # source-target word pairs
    line: str = ""                          # the n-best line as read


@dataclass
class RerankTrace:
    sentence: int
    chosen: int                              # rank in the n-best list, 0-based
    cm_scores: list[float] = field(default_factory=list)


def read_cm_table(path: str | os.PathLike) -> dict[str, dict[str, float]]:
    table: dict[str, dict[str, float]] = defaultdict(dict)
    for lineno, line in enumerate(read_lines(path), 1):
        f = line.split(" ||| ")
        if len(f) < 3:
            raise CadError("not a phrase table line", str(path), lineno)
        try:
            table[f[0].strip()][f[1].strip()] = float(f[2].split()[0])
        except (ValueError, IndexError):
            raise CadError("malformed probability", str(path), lineno) from None
    return dict(table)


def read_nbest(path: str | os.PathLike) -> list[list[Hypothesis]]:
    """A Moses n-best list with word alignments, grouped by sentence id (ids must be 0..N-1 in order)."""
    out: list[list[Hypothesis]] = []
    for lineno, line in enumerate(read_lines(path), 1):
        f = line.split(" ||| ")
        if len(f) < 5:
            raise CadError("n-best line without word alignment (decode with -print-alignment-info-in-n-best)",
                           str(path), lineno)
        try:
            sid = int(f[0])
            total = float(f[3])
        except ValueError:
            raise CadError("malformed n-best line", str(path), lineno) from None
        # in target order whatever the decoder's (Moses prints each phrase's points by source
        # position): the projection reads them in one order
        alignment = sorted(parse_alignment(f[4], path=str(path), lineno=lineno), key=lambda p: (p[1], p[0]))
        if sid == len(out):
            out.append([])
        elif sid != len(out) - 1:
            raise CadError(f"sentence id {sid} out of order (expected {len(out) - 1} or {len(out)})", str(path), lineno)
        out[-1].append(Hypothesis(_words(f[1]), total, alignment, line))
    return out


def _words(text: str) -> list[str]:
    """An n-best translation's words, without the |i-j| marks Moses adds with -report-segmentation."""
    return [w for w in text.split() if not _SEGMENT_MARK.match(w)]


def pronoun_target(h: Hypothesis, index: int) -> str:
    return " ".join(h.words[t] for s, t in sorted(h.alignment, key=lambda x: x[1]) if s == index)


class Reranker:
    def __init__(self, table: dict[str, dict[str, float]], weight: float, with_human: bool = False, tagger=None,
                 pair: Pair | None = None):
        """`pair`: the language pair, whose target's morphology `tagger` defaults to."""
        self.table = table
        self.weight = weight
        self.with_human = with_human
        self.pair = chosen(pair)
        self._tag = tagger or self.pair.target.morphology().tag
        self._cache: dict[tuple[str, ...], list] = {}

    def morph(self, words: list[str]):
        key = tuple(words)
        if key not in self._cache:
            self._cache[key] = self._tag([list(words)])[0]
        return self._cache[key]

    def bundle(self, h: Hypothesis, c, pronoun: str, human) -> str | None:
        # no source sentence here (an n-best list names none): no dictionary fallback
        aligned = aligned_targets(c.start, c.end, h.alignment)
        if not aligned:
            return None
        m = project(c, None, h.words, h.alignment, self.morph(h.words), self.pair)
        return None if m is None else Bundle(pronoun.lower(), m.gender, m.number, human).token(self.with_human)

    def cm_score(self, k: int, h: Hypothesis, records: list[PronounResolution], chosen: list[Hypothesis]) -> float:
        """ln of the CM's expected probability of each pronoun's translation, summed over the sentence."""
        total = 0.0
        for r in records:
            if not r.referential or not r.candidates:
                continue
            mix = 0.0
            mass = 0.0
            target = pronoun_target(h, r.index)
            for c in r.candidates:
                if c.kind != "np" or c.sentence > k:
                    continue
                src = h if c.sentence == k else chosen[c.sentence]
                b = self.bundle(src, c, r.token, c.human)
                if b is None or b not in self.table:
                    continue
                mix += c.probability * self.table[b].get(target, 0.0)
                mass += c.probability
            if mass > 0:
                total += math.log(max(mix / mass, FLOOR))
        return total

    def rerank_document(self, nbests: list[list[Hypothesis]],
                        records: list[PronounResolution]) -> tuple[list[Hypothesis], list[RerankTrace]]:
        by_sentence: dict[int, list[PronounResolution]] = defaultdict(list)
        for r in records:
            by_sentence[r.sentence].append(r)
        chosen: list[Hypothesis] = []
        traces = []
        for k, hyps in enumerate(nbests):
            if not hyps:
                raise CadError(f"sentence {k} has no hypothesis")
            recs = by_sentence.get(k, [])
            scores = [self.cm_score(k, h, recs, chosen) if recs else 0.0 for h in hyps]
            best = max(range(len(hyps)), key=lambda i: (hyps[i].total + self.weight * scores[i], -i))
            chosen.append(hyps[best])
            traces.append(RerankTrace(k, best, scores))
        return chosen, traces


class ClassReranker:
    """Reranking with the class CM (cad/cm/class_model.py; or the classifier CM,
    cad/cm/class_classifier.py: `table` is any pronoun model), the same score as the decoder feature:
    for every it/they of the sentence, ln Σ_b w_b P(class | b), the class read from what the
    hypothesis aligns to the pronoun, the mixture from the pronoun's role, anaphoricity and
    candidates, each candidate's gender and number read from the chosen translation of its
    sentence (or from the hypothesis itself for a candidate in the same sentence)."""

    def __init__(self, table, weight: float | tuple[float, float], with_human: bool = False, tagger=None,
                 morph_cache: dict | None = None, objective: str = CM_IMPLICIT_OBJECTIVE,
                 reading: str = CM_IMPLICIT_READING, pair: Pair | None = None, other: OtherWords | None = None):
        """`morph_cache`: target morphology by hypothesis words, shareable between rerankers of
        the same lists (tagging every hypothesis is most of the cost). `reading`: the part of each
        pronoun's mixture that is scored, as the decoder feature's `reading=` (READINGS); the next
        pronouns of the chain inherit the whole mixture either way, as in the driver. `pair`: the
        language pair (default: the model's own, else the default pair). `other`: the OTHER-word
        table, as the decoder feature's `other=` (a pronoun translated by a non-pronoun word scores
        P(OTHER) x P(word | OTHER); cad/cm/other_words.py), with objective likelihood."""
        if reading not in READINGS:
            raise CadError(f"unknown CM reading {reading!r} (choose from {', '.join(READINGS)})")
        self.table = table
        # a pair of weights: ln P(form) and the gender's log-odds weighed apart, as the two-valued feature does
        self.split = tuple(weight) if isinstance(weight, (tuple, list)) else None
        if self.split is not None and (len(self.split) != 2 or objective != "likelihood"):
            raise CadError("a reranker's two weights (the form's, the gender's) split ln P(class): objective likelihood")
        self.weight = 1.0 if self.split is not None else weight
        if other is not None and objective != "likelihood":
            raise CadError(f"the OTHER-word table is read with objective likelihood, not {objective}")
        self.other = other
        self.objective = objective
        self.reading = reading
        self.with_human = with_human
        self.pair = chosen(pair if pair is not None else getattr(table, "pair", None))
        self._tag = tagger or self.pair.target.morphology().tag
        self._cache: dict[tuple[str, ...], list] = {} if morph_cache is None else morph_cache

    def _gender_number(self, h: Hypothesis, c, source: list[str] | None) -> tuple[str, str] | None:
        """(gender, number) of candidate `c`'s translation in hypothesis `h` of its sentence, whose
        source tokens are `source`."""
        aligned = aligned_targets(c.start, c.end, h.alignment)
        morph: list = []
        if aligned:
            key = tuple(h.words)
            if key not in self._cache:
                self._cache[key] = self._tag([list(h.words)])[0]
            morph = self._cache[key]
        return gender_number(c, source, h.words, h.alignment, morph, self.pair)

    def mixtures(self, k: int, h: Hypothesis, records: list[PronounResolution], chosen: list[Hypothesis],
                 roles: dict, passed_on: dict, sentences: list[list[str]]) -> dict[int, dict[str, float]]:
        def project(c):
            src = h if c.sentence == k else chosen[c.sentence] if c.sentence < k else None
            if src is not None and situation_translation(c, src.words, src.alignment, roles.get((c.sentence, c.start)),
                                                         self.pair):
                return {SITUATION: 1.0}
            gn = None if src is None else self._gender_number(src, c, sentences[c.sentence])
            return through_chain(gn, passed_on.get((c.sentence, c.head)))

        animacy = animacy_of(sentences, self.pair)
        return {r.index: pronoun_mixture(r, roles[(k, r.index)], project, self.with_human, animacy, pass_through=True)
                for r in records}

    def cm_score(self, mixtures: dict[int, dict[str, float]], h: Hypothesis, source: list[str]) -> float:
        read = {i: read_mixture(mix, self.reading) for i, mix in mixtures.items()}
        pair = self.pair
        total = 0.0
        for i, mix in read.items():
            words = aligned_words(source, h.words, h.alignment, i, pair)
            cls = pronoun_class(words, pair)
            dist = self.table.class_distribution(mix, source, i)
            if self.split is not None:
                v = split_scores(dist, cls, pair)
                total += self.split[0] * v[0] + self.split[1] * v[1]
            else:
                total += score_class(dist, cls, self.objective, gender_shares(mix, pair), pair)
            if self.other is not None and cls == OTHER:
                # the form's share of ln P(OTHER), as the decoder feature adds it (its first value)
                form_weight = self.split[0] if self.split is not None else 1.0
                total += form_weight * self.other.log_prob(mix, other_word(words))
        return total

    def rerank_document(self, nbests: list[list[Hypothesis]], records: list[PronounResolution],
                        sentences: list[list[str]], roles: dict | None = None) -> tuple[list[Hypothesis], list[RerankTrace]]:
        by_sentence: dict[int, list[PronounResolution]] = defaultdict(list)
        for r in records:
            if r.token.lower() in self.pair.source.cm_pronouns:
                by_sentence[r.sentence].append(r)
        if roles is None:
            roles = cm_roles(sentences, {(r.sentence, r.index) for rs in by_sentence.values() for r in rs})
        chosen: list[Hypothesis] = []
        traces = []
        passed_on: dict = {}
        for k, hyps in enumerate(nbests):
            if not hyps:
                raise CadError(f"sentence {k} has no hypothesis")
            recs = by_sentence.get(k, [])
            if any(c.sentence == k and c.kind == "np" for r in recs for c in r.candidates):
                # every hypothesis is read for its own antecedent: tag them in one batch
                todo = list({tuple(h.words) for h in hyps if h.words and tuple(h.words) not in self._cache})
                for words, morph in zip(todo, self._tag([list(w) for w in todo]) if todo else []):
                    self._cache[words] = morph
            scores, mixes = [], []
            for h in hyps:
                m = self.mixtures(k, h, recs, chosen, roles, passed_on, sentences) if recs else {}
                mixes.append(m)
                scores.append(self.cm_score(m, h, sentences[k]) if m else 0.0)
            best = max(range(len(hyps)), key=lambda i: (hyps[i].total + self.weight * scores[i], -i))
            for i, mix in mixes[best].items():
                passed_on[(k, i)] = antecedent_distribution(mix, self.pair)
            chosen.append(hyps[best])
            traces.append(RerankTrace(k, best, scores))
        return chosen, traces


# ---------------------------------------------------------------- the source-feature table's reranking
def pronoun_mixtures(records: list[PronounResolution]) -> dict[int, dict[int, dict[str, float]]]:
    """{sentence: {token index: {bundle: p}}} for the pronouns with candidates, each bundle the
    candidate's own features (cad.cm.bundles.source_bundle)."""
    out: dict[int, dict[int, dict[str, float]]] = defaultdict(dict)
    for r in records:
        if not r.candidates:
            continue
        mix: dict[str, float] = defaultdict(float)
        for c in r.candidates:
            mix[source_bundle(r.token, c)] += c.probability
        out[r.sentence][r.index] = dict(mix)
    return out


class SourceReranker:
    """Any decoder's n-best list rescored by the quantity the CoreferenceModel feature adds with the
    source-feature table (cad/cm/source_table.py): weight × Σ ln Σ_c p(c) P(class | bundle(c)) over
    the sentence's pronouns with candidates, the class read from the words the hypothesis aligns to
    the pronoun (as SourceClassTable.option_class reads an option's), in the table's pair's classes."""

    def __init__(self, table, weight: float):
        self.table = table
        self.weight = weight

    def hypothesis_class(self, h: Hypothesis, index: int) -> str:
        return self.table.pair.target.class_of_words(
            [h.words[j] for i, j in sorted(h.alignment, key=lambda x: x[1]) if i == index])

    def cm_score(self, mixtures: dict[int, dict[str, float]], h: Hypothesis) -> float:
        return sum(score_class(self.table.class_distribution(mix), self.hypothesis_class(h, i))
                   for i, mix in mixtures.items())

    def best(self, hyps: list[Hypothesis], mixtures: dict[int, dict[str, float]] | None) -> tuple[int, list[float]]:
        """(index of the best hypothesis by model score + weight × CM score, the CM scores); ties
        go to the earlier (the decoder's better) hypothesis."""
        scores = [self.cm_score(mixtures, h) for h in hyps] if mixtures else [0.0] * len(hyps)
        return max(range(len(hyps)), key=lambda i: (hyps[i].total + self.weight * scores[i], -i)), scores

    def rerank_document(self, nbests: list[list[Hypothesis]], records: list[PronounResolution],
                        sentences: list[list[str]] | None = None, roles: dict | None = None
                        ) -> tuple[list[Hypothesis], list[RerankTrace]]:
        """As ClassReranker's (`sentences` and `roles` are not read: the bundles need neither)."""
        mixes = pronoun_mixtures(records)
        chosen_, traces = [], []
        for k, hyps in enumerate(nbests):
            if not hyps:
                raise CadError(f"sentence {k} has no hypothesis")
            best, scores = self.best(hyps, mixes.get(k))
            chosen_.append(hyps[best])
            traces.append(RerankTrace(k, best, scores))
        return chosen_, traces
