"""`cad score`: given translations scored in context, for contrastive suites of document-level MT.

A suite item (one JSON line) holds the preceding sentences with their given translations, a
source sentence and several candidate translations of it:
    {"id": "p01", "context": [{"source": "...", "target": "..."}], "source": "...",
     "targets": ["elle fonctionne .", "il fonctionne ."], "correct": 0}
Text is tokenized as the model's training data; it is put here in the model's case (truecased by the
truecase-model.en/.fr beside its phrase table, or lowercased: cad.corpus.truecase.ModelCase).

Each context pair is force-decoded (Moses's -constraint) to get its word alignment; the source's
it/they get their CM mixture from the coreference of the whole item, the antecedents' gender and
number read from the given context translations; each candidate is then force-decoded under the
full model, the CoreferenceModel feature included, and its model score compared.

Fallback, where forced decoding cannot reach a given translation (a word the phrase table never
pairs with the source, or a reordering beyond the limits): alignments come from the phrase
table's one-word entries (each source word to the target word of highest direct probability
φ(e|f)), and a candidate scores
    w_LM · LM(target) + w_CM · CM(pronoun classes under that alignment) + w_φ · Σ ln φ(e|f) of its links.
When any candidate of an item is unreachable, all its candidates are scored by the fallback, so
that the scores of one item are always comparable.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field

# registers the CoreferenceModel feature that the configurations loaded here may name
import cad.cm.feature  # noqa: F401
from cad.cm.class_model import CM_PRONOUNS, antecedent_distribution, pronoun_mixture, score_class, through_chain
from cad.cm.classes import aligned_words, pronoun_class
from cad.cm.feature import CoreferenceModelFeature
from cad.cm.referent import animacy_of
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import read_lines
from cad.corpus.truecase import ModelCase
from cad.decoder.search import Derivation, Translation
from cad.translate.morphology import TranslationMorphology, projection
from coref.english.roles import pronoun_roles


@dataclass
class SuiteItem:
    id: str
    context: list[tuple[str, str]]
    source: str
    targets: list[str]
    correct: int | None = None


@dataclass
class ItemScore:
    id: str
    scores: list[float]
    method: str                          # forced | fallback
    best: int
    correct: int | None = None
    classes: list[str] = field(default_factory=list)

    @property
    def right(self) -> bool | None:
        """Right when the correct candidate scores strictly above every other (a tie is wrong)."""
        if self.correct is None:
            return None
        mine = self.scores[self.correct]
        return all(mine > s for i, s in enumerate(self.scores) if i != self.correct)


def read_suite(path: str | os.PathLike) -> list[SuiteItem]:
    items = []
    for lineno, line in enumerate(read_lines(path), 1):
        if not line.strip():
            raise CadError("empty line in the suite", str(path), lineno)
        try:
            obj = json.loads(line)
            if not isinstance(obj, dict) or not isinstance(obj.get("targets"), list):
                raise TypeError("not an object with a list of targets")
            ctx = [(c["source"], c["target"]) for c in obj.get("context", [])]
            item = SuiteItem(str(obj.get("id", lineno)), ctx, obj["source"], list(obj["targets"]), obj.get("correct"))
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise CadError(f"not a suite item ({exc.__class__.__name__}: {exc}); expected "
                           "{\"context\": [{\"source\", \"target\"}], \"source\", \"targets\": [...], \"correct\"}",
                           str(path), lineno) from None
        if not (isinstance(item.source, str) and all(isinstance(t, str) for t in item.targets)
                and all(isinstance(x, str) for c in ctx for x in c)):
            raise CadError("sources and targets must be strings", str(path), lineno)
        if not item.source.strip() or not item.targets or any(not t.strip() for t in item.targets):
            raise CadError("an item needs a source and non-empty targets", str(path), lineno)
        if item.correct is not None and not (isinstance(item.correct, int) and 0 <= item.correct < len(item.targets)):
            raise CadError(f"correct={item.correct!r} is not the index of a target", str(path), lineno)
        items.append(item)
    if not items:
        raise CadError("empty suite", str(path))
    return items


class ContextScorer:
    def __init__(self, decoder, resolver, with_human: bool = False):
        self.decoder = decoder
        self.resolver = resolver
        self.with_human = with_human
        model = decoder.model
        cms = [f for f in model.stateless if isinstance(f, CoreferenceModelFeature)]
        if not cms:
            raise CadError("the configuration has no CoreferenceModel feature (cad cm config --mode feature)",
                           model.config.source)
        self.cm = cms[0]
        self.lexicon = _Lexicon(model)
        self.case = ModelCase.of(model.config, "en", "fr")

    # -------------------------------------------------------------- alignment of given text
    def _aligned(self, source: str, target: str):
        tr = self.decoder.force(source, target)
        if tr is not None:
            return tr, True
        src, tgt = source.split(), target.split()
        return Translation(src, Derivation(tgt, 0.0, [], [], given_alignment=self.lexicon.align(src, tgt))), False

    def score(self, item: SuiteItem) -> ItemScore:
        src_case, tgt_case = self.case.source_line, self.case.target_line
        context = [(src_case(s), tgt_case(t)) for s, t in item.context]
        source = src_case(item.source)
        targets = [tgt_case(t) for t in item.targets]
        sentences = [s.split() for s, _ in context] + [source.split()]
        k = len(context)
        records = [r for r in self.resolver.resolve(item.id, sentences) if r.token.lower() in CM_PRONOUNS]
        roles = pronoun_roles(sentences, {(r.sentence, r.index) for r in records})
        animacy = animacy_of(sentences)
        done = [self._aligned(s, t)[0] for s, t in context]
        cache = TranslationMorphology()
        passed_on: dict = {}

        def mixtures(own) -> dict[int, dict[str, float]]:
            out = {}
            for kk in range(k + 1):
                for r in (r for r in records if r.sentence == kk):
                    def project(c, kk=kk):
                        tr = done[c.sentence] if c.sentence < kk else own if c.sentence == kk else None
                        found = None if tr is None else projection(tr, c, cache)
                        gn = None if found is None else (found.gender, found.number)
                        return through_chain(gn, passed_on.get((c.sentence, c.head)))

                    mix = pronoun_mixture(r, roles[(kk, r.index)], project, self.with_human, animacy)
                    if kk < k:
                        passed_on[(kk, r.index)] = antecedent_distribution(mix)
                    else:
                        out[r.index] = mix
            return out

        first = mixtures(None)
        forced = []
        for t in targets:
            tr = self.decoder.force(source, t, context={"pronouns": first})
            if tr is not None and any(c.sentence == k and c.kind == "np" for r in records for c in r.candidates):
                # an antecedent in the sentence itself: read it from this candidate, score again
                tr = self.decoder.force(source, t, context={"pronouns": mixtures(tr)}) or tr
            forced.append(tr)
        if all(tr is not None for tr in forced):
            scores = [tr.best.total for tr in forced]
            classes = [",".join(pronoun_class(aligned_words(tr.source, tr.best.words, tr.best.word_alignment, i))
                                for i in sorted(first)) for tr in forced]
            method = "forced"
        else:
            scores, classes = [], []
            for t in targets:
                s, c = self._fallback(source, t, mixtures)
                scores.append(s)
                classes.append(c)
            method = "fallback"
        best = max(range(len(scores)), key=lambda i: (scores[i], -i))
        return ItemScore(item.id, scores, method, best, item.correct, classes)

    def _fallback(self, source: str, target: str, mixtures) -> tuple[float, str]:
        src, tgt = source.split(), target.split()
        links = self.lexicon.align(src, tgt)
        own = Translation(src, Derivation(tgt, 0.0, [], [], given_alignment=links))
        mix = mixtures(own)
        model = self.decoder.model
        total = 0.0
        if model.lm is not None:
            lm, state = model.lm.score_words(model.lm.begin(), tgt)
            lm += model.lm.score_words(state, ("</s>",))[0]
            total += model.slots_of("KENLM")[0].weights[0] * lm
        classes = []
        for i, m in sorted(mix.items()):
            cls = pronoun_class(aligned_words(src, tgt, links, i))
            classes.append(cls)
            # ln P(class) of the feature's pronoun model (the class table or the classifier CM)
            total += self.cm.slot.weights[0] * score_class(self.cm.table.class_distribution(m, src, i), cls)
        total += self.lexicon.weight * sum(self.lexicon.logp(src[i], tgt[j]) for i, j in links)
        return total, ",".join(classes)


class _Lexicon:
    """One-word phrase pairs of the first phrase table: ln φ(e|f), the direct phrase probability."""

    DIRECT = 2          # Moses's score order: φ(f|e), lex(f|e), φ(e|f), lex(e|f)

    def __init__(self, model):
        table = model.tables[0]
        slot = model.slots_of("PhraseDictionaryMemory")[0]
        self.weight = slot.weights[self.DIRECT] if len(slot.weights) > self.DIRECT else 0.0
        self.logprob: dict[tuple[str, str], float] = {}
        for src, entries in table.entries.items():
            if " " in src:
                continue
            for e in entries:
                if len(e.words) == 1 and len(e.scores) > self.DIRECT:
                    key = (src, e.words[0])
                    self.logprob[key] = max(self.logprob.get(key, -math.inf), e.scores[self.DIRECT])

    def logp(self, f: str, e: str) -> float:
        return self.logprob.get((f, e), -100.0)

    def align(self, src: list[str], tgt: list[str]) -> list[tuple[int, int]]:
        links = []
        for i, f in enumerate(src):
            best = max(range(len(tgt)), key=lambda j: (self.logprob.get((f, tgt[j]), -math.inf), -j), default=None)
            if best is not None and (f, tgt[best]) in self.logprob:
                links.append((i, best))
        return links


def score_suite(scorer: ContextScorer, items: list[SuiteItem]) -> tuple[list[ItemScore], dict]:
    out = [scorer.score(it) for it in progress(items, desc="score", unit="item")]
    judged = [s for s in out if s.right is not None]
    summary = {"items": len(out), "judged": len(judged),
               "accuracy": sum(s.right for s in judged) / len(judged) if judged else math.nan,
               "forced": sum(s.method == "forced" for s in out), "fallback": sum(s.method == "fallback" for s in out)}
    return out, summary
