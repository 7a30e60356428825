"""n-best reranking with the source-feature class CM (Spanish→English): any decoder's n-best list,
Moses's too, rescored by the same quantity the CoreferenceModel feature adds inside cad's search.

Each hypothesis gains weight × Σ ln Σ_c p(c) P(class | bundle(c)) over the pronouns of its sentence
that have candidates, the class read from the English words the hypothesis aligns to the pronoun
(as SourceClassTable.option_class reads an option's). The bundles are the source antecedents' own
features, so, unlike English→French, nothing depends on the translation of earlier sentences and
each sentence is reranked on its own.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from cad.cm.class_model import score_class
from cad.cm.source_cm import SourceClassTable, bundle_of
from cad.core.errors import CadError
from cad.lang.en import pronoun_class
from cad.translate.rerank import Hypothesis
from coref.records import PronounResolution


@dataclass
class SourceRerankTrace:
    sentence: int
    chosen: int                 # index in the n-best list
    scores: list[float]         # the CM's score of each hypothesis (unweighted)


def pronoun_mixtures(records: list[PronounResolution]) -> dict[int, dict[int, dict[str, float]]]:
    """{sentence: {token index: {bundle: p}}} for the pronouns with candidates."""
    out: dict[int, dict[int, dict[str, float]]] = defaultdict(dict)
    for r in records:
        if not r.candidates:
            continue
        mix: dict[str, float] = defaultdict(float)
        for c in r.candidates:
            mix[bundle_of(r.token, c)] += c.probability
        out[r.sentence][r.index] = dict(mix)
    return out


def hypothesis_class(h: Hypothesis, index: int) -> str:
    return pronoun_class([h.words[j] for i, j in sorted(h.alignment, key=lambda x: x[1]) if i == index])


class SourceReranker:
    def __init__(self, table: SourceClassTable, weight: float):
        self.table = table
        self.weight = weight

    def cm_score(self, mixtures: dict[int, dict[str, float]], h: Hypothesis) -> float:
        return sum(score_class(self.table.class_distribution(mix), hypothesis_class(h, i))
                   for i, mix in mixtures.items())

    def best(self, hyps: list[Hypothesis], mixtures: dict[int, dict[str, float]] | None) -> tuple[int, list[float]]:
        """(index of the best hypothesis by model score + weight × CM score, the CM scores); ties
        go to the earlier (the decoder's better) hypothesis."""
        scores = [self.cm_score(mixtures, h) for h in hyps] if mixtures else [0.0] * len(hyps)
        return max(range(len(hyps)), key=lambda i: (hyps[i].total + self.weight * scores[i], -i)), scores

    def rerank_document(self, nbests: list[list[Hypothesis]], records: list[PronounResolution]
                        ) -> tuple[list[Hypothesis], list[SourceRerankTrace]]:
        mixes = pronoun_mixtures(records)
        chosen, traces = [], []
        for k, hyps in enumerate(nbests):
            if not hyps:
                raise CadError(f"sentence {k} has no hypothesis")
            best, scores = self.best(hyps, mixes.get(k))
            chosen.append(hyps[best])
            traces.append(SourceRerankTrace(k, best, scores))
        return chosen, traces
