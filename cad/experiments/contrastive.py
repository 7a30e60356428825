"""`cad score`: given translations scored in context, for contrastive suites of document-level MT.

A suite item (one JSON line) holds the preceding sentences with their given translations, a
source sentence and several candidate translations of it:
    {"id": "p01", "context": [{"source": "...", "target": "..."}], "source": "...",
     "targets": ["elle fonctionne .", "il fonctionne ."], "correct": 0}
Text is tokenized as the model's training data; it is put here in the model's case (truecased by the
truecase-model.en/.fr beside its phrase table, or lowercased: cad.corpus.truecase.ModelCase).

Other fields of an item are kept as its metadata (`cad contrastive make` writes pronoun, gender,
number, distance, variant, pair); the report gives the accuracy by each of them.

Each context pair is force-decoded (Moses's -constraint) to get its word alignment; the source's
it/they get their CM mixture from the coreference of the whole item, the antecedents' gender and
number read from the given context translations; each candidate is then force-decoded under the
full model, the CoreferenceModel feature included, and its model score compared.

Forced decoding always reaches a non-empty target (`Decoder.force(reach=True)`): where the
phrase table cannot produce it, penalized options (each source word to a part of the target, or to
nothing) fill in at an unknown word's cost per target word, scored by every other feature as any option; the
report counts the items that needed them. Before any penalty, with `twins` (`cad score`'s
default), a real phrase pair also stands for the target piece that differs from its words only by
other-gender forms (a subject pronoun, an adjective, a past participle: `GenderTwins`), with its
table scores and the piece's own language-model and CM scores: candidates that differ only in a
pronoun's gender and its agreement are then not told apart by which of them the table happens to
hold (one paying an unknown word's cost, the other not), but by the features that read them.

Fallback, only where forced decoding still finds nothing (a search that pruned every
hypothesis): alignments come from the phrase table's one-word entries (each source word to the
target word of highest direct probability φ(e|f)), and a candidate scores
    w_LM · LM(target) + w_CM · CM(pronoun classes under that alignment, the feature's objective)
    + w_φ · Σ ln φ(e|f) of its links.
When any candidate of an item is unreachable, all its candidates are scored by the fallback, so
that the scores of one item are always comparable.

An item is right when its correct candidate scores strictly above every other: a tie is wrong, so
a context-blind system (the CM's weight 0) scores exactly half of the balanced pairs when no pair
ties, and less when some do (the summary counts ties).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field

# registers the CoreferenceModel feature that the configurations loaded here may name
from cad.cm.construction import SITUATION, cm_roles, situation_translation
import cad.cm.feature  # noqa: F401
from cad.cm.class_model import (antecedent_distribution, gender_shares, pronoun_mixture, score_class,
                                split_scores, through_chain)
from cad.cm.classes import aligned_words, pronoun_class
from cad.cm.feature import CoreferenceModelFeature
from cad.cm.referent import animacy_of
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import read_lines
from cad.corpus.truecase import ModelCase
from cad.decoder.features import unknown_word_penalties
from cad.decoder.search import Derivation, Translation
from cad.experiments.contrastive_french import PRONOUN_FLIP
from cad.lang.pairs import Pair, chosen
from cad.translate.morphology import TranslationMorphology, projection




def pronoun_genders(pair: Pair | None = None) -> dict[str, tuple[str, str]]:
    """The target's subject pronouns that say one gender and number (French il, elle, ils, elles),
    by which the report groups an item that names none."""
    forms: dict[str, set] = {}
    for gn, form in chosen(pair).target.subject_forms.items():
        forms.setdefault(form, set()).add(gn)
    return {form: gns.pop() for form, gns in forms.items() if len(gns) == 1}


@dataclass
class SuiteItem:
    id: str
    context: list[tuple[str, str]]
    source: str
    targets: list[str]
    correct: int | None = None
    meta: dict = field(default_factory=dict)


@dataclass
class ItemScore:
    id: str
    scores: list[float]
    method: str                          # forced | fallback
    best: int
    correct: int | None = None
    classes: list[str] = field(default_factory=list)
    penalized: list[int] = field(default_factory=list)     # unknown-word penalties paid per candidate
    twins: list[int] = field(default_factory=list)         # options backed off to an other-gender twin, per candidate
    # per candidate, the heaviest bundle of each source pronoun's mixture (in token order) that the
    # CM scored it under
    features: list[str] = field(default_factory=list)

    @property
    def right(self) -> bool | None:
        """Right when the correct candidate scores strictly above every other (a tie is wrong)."""
        if self.correct is None:
            return None
        mine = self.scores[self.correct]
        return all(mine > s for i, s in enumerate(self.scores) if i != self.correct)


def _heaviest(mixtures: dict[int, dict[str, float]]) -> str:
    """The heaviest bundle of each pronoun's mixture, in token order, comma-separated."""
    return ",".join(max(m, key=m.get) if m else "" for _, m in sorted(mixtures.items()))


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
            meta = {k: v for k, v in obj.items() if k not in ("id", "context", "source", "targets", "correct")}
            item = SuiteItem(str(obj.get("id", lineno)), ctx, obj["source"], list(obj["targets"]), obj.get("correct"),
                             meta)
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


class GenderTwins:
    """A French word's other-gender forms, for forced decoding's back-off (cad/decoder/forced.py):
    the subject pronouns' (*il*/*elle*, *ils*/*elles*) and, from the inflection lexicon, an
    adjective's or a past participle's; the words `cad contrastive make` flips with a pronoun."""

    def __init__(self, inflections):
        self.inflections = inflections
        self._known: dict[str, tuple[str, ...]] = {}

    def __call__(self, word: str) -> tuple[str, ...]:
        got = self._known.get(word)
        if got is None:
            flip = PRONOUN_FLIP.get(word.lower())
            forms = [flip.capitalize() if word[:1].isupper() else flip] if flip else []
            if self.inflections is not None:
                forms += [w for w in self.inflections.gender_twins(word) if w not in forms]
            got = self._known[word] = tuple(forms)
        return got


class ContextScorer:
    def __init__(self, decoder, resolver, with_human: bool = False, twins: GenderTwins | None = None):
        """`twins`: forced decoding backs off to the other-gender twins of real options' words
        before it pays for penalized options (cad/decoder/forced.py); None: it does not."""
        self.decoder = decoder
        self.resolver = resolver
        self.with_human = with_human
        self.twins = twins
        model = decoder.model
        cms = [f for f in model.stateless if isinstance(f, CoreferenceModelFeature)]
        if not cms:
            raise CadError("the configuration has no CoreferenceModel feature (cad cm config --mode feature)",
                           model.config.source)
        self.cm = cms[0]
        self.lexicon = _Lexicon(model)
        self.pair = self.cm.pair
        self.case = ModelCase.of(model.config, self.pair.src, self.pair.tgt)

    # -------------------------------------------------------------- alignment of given text
    def _aligned(self, source: str, target: str):
        tr = self.decoder.force(source, target, reach=True, twins=self.twins)
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
        pair = self.pair
        records = [r for r in self.resolver.resolve(item.id, sentences) if r.token.lower() in pair.source.cm_pronouns]
        roles = cm_roles(sentences, {(r.sentence, r.index) for r in records})
        animacy = animacy_of(sentences, pair)
        done = [self._aligned(s, t)[0] for s, t in context]
        cache = TranslationMorphology(pair=pair)
        passed_on: dict = {}

        def mixtures(own) -> dict[int, dict[str, float]]:
            out = {}
            for kk in range(k + 1):
                # in token order, so that a pronoun whose antecedent is an earlier pronoun of its
                # sentence inherits what that one read
                for r in sorted((r for r in records if r.sentence == kk), key=lambda r: r.index):
                    def project(c, kk=kk):
                        chain = passed_on.get((c.sentence, c.head))
                        if chain is not None and c.sentence == kk == k:
                            # an earlier pronoun of the scored sentence: its chain, as translation
                            # reads it (cad/translate/passes.py), not the word each candidate gives
                            # it, which would make every candidate agree with itself
                            return chain
                        tr = done[c.sentence] if c.sentence < k else own
                        if tr is not None and situation_translation(c, tr.best.words, tr.best.word_alignment,
                                                                    roles.get((c.sentence, c.start)), pair):
                            return {SITUATION: 1.0}
                        found = None if tr is None else projection(tr, c, cache)
                        gn = None if found is None else (found.gender, found.number)
                        return through_chain(gn, chain)

                    mix = pronoun_mixture(r, roles[(kk, r.index)], project, self.with_human, animacy,
                                          pass_through=True)
                    passed_on[(kk, r.index)] = antecedent_distribution(mix, pair)
                    if kk == k:
                        out[r.index] = mix
            return out

        first = mixtures(None)
        forced, used = [], []
        for t in targets:
            mixes = first
            tr = self.decoder.force(source, t, context={"pronouns": first}, reach=True, twins=self.twins)
            if tr is not None and any(c.sentence == k and c.kind == "np" for r in records for c in r.candidates):
                # an antecedent in the sentence itself: read it from this candidate, score again
                again = self.decoder.force(source, t, context={"pronouns": (second := mixtures(tr))}, reach=True,
                                           twins=self.twins)
                if again is not None:
                    tr, mixes = again, second
            forced.append(tr)
            used.append(mixes)
        forced = self._carried(source, targets, forced, used)
        features = [_heaviest(m) for m in used]
        if all(tr is not None for tr in forced):
            scores = [tr.best.total for tr in forced]
            classes = [",".join(pronoun_class(aligned_words(tr.source, tr.best.words, tr.best.word_alignment, i,
                                                            pair), pair)
                                for i in sorted(first)) for tr in forced]
            penalized = [sum(unknown_word_penalties(len(st.words)) for st in tr.best.steps if st.table < 0)
                         for tr in forced]
            twins = [sum(st.twin for st in tr.best.steps) for tr in forced]
            method = "forced"
        else:
            scores, classes, penalized, twins, used = [], [], [], [], []
            for t in targets:
                s, c, m = self._fallback(source, t, mixtures)
                scores.append(s)
                classes.append(c)
                used.append(m)
            features = [_heaviest(m) for m in used]
            method = "fallback"
        best = max(range(len(scores)), key=lambda i: (scores[i], -i))
        return ItemScore(item.id, scores, method, best, item.correct, classes, penalized, twins, features)

    def _carried(self, source: str, targets: list[str], forced: list, used: list) -> list:
        """Each candidate's derivation, or another candidate's read with its words where that
        scores higher: the search with penalized options is approximate (FORCED_STACK), and two
        candidates that differ in a pronoun's gender and its agreement would otherwise be told
        apart by the search errors of one of them (one penalized option more), not by the
        features. Another's steps (same source spans and target positions) are scored in full
        under this candidate's words and mixtures; only where each step's words have a real
        option, an other-gender twin of one, or a penalized option (the one derivation search
        finds under `path`)."""
        out = list(forced)
        for i, t in enumerate(targets):
            for j, other in enumerate(forced):
                if j == i or other is None or out[i] is None or len(other.best.words) != len(t.split()):
                    continue
                path = [(st.src_start, st.src_end, st.tgt_start, st.tgt_end) for st in other.best.steps]
                tr = self.decoder.force(source, t, context={"pronouns": used[i]}, reach=True, twins=self.twins,
                                        path=path)
                if tr is not None and tr.best.total > out[i].best.total:
                    out[i] = tr
        return out

    def _fallback(self, source: str, target: str, mixtures) -> tuple[float, str, dict]:
        src, tgt = source.split(), target.split()
        links = self.lexicon.align(src, tgt)
        own = Translation(src, Derivation(tgt, 0.0, [], [], given_alignment=links))
        mix = mixtures(own)
        model = self.decoder.model
        total = 0.0
        for lm_model, slot in zip(model.lms, model.slots_of("KENLM")):       # every LM, each with its weight
            lm, state = lm_model.score_words(lm_model.begin(), tgt)
            lm += lm_model.score_words(state, ("</s>",))[0]
            total += slot.weights[0] * lm
        classes = []
        for i, m in sorted(mix.items()):
            cls = pronoun_class(aligned_words(src, tgt, links, i, self.pair), self.pair)
            classes.append(cls)
            # the feature's own score of that class (the class table or the classifier CM, its
            # objective, the part of the mixture it reads)
            m = self.cm.read(m)
            dist = self.cm.table.class_distribution(m, src, i)
            values = split_scores(dist, cls, self.pair) if self.cm.split else \
                (score_class(dist, cls, self.cm.objective, gender_shares(m, self.pair), self.pair),)
            total += sum(w * v for w, v in zip(self.cm.slot.weights, values))
        total += self.lexicon.weight * sum(self.lexicon.logp(src[i], tgt[j]) for i, j in links)
        return total, ",".join(classes), mix


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
    return out, summarize(items, out, scorer.pair)


def _groups(item: SuiteItem, genders: dict[str, tuple[str, str]]) -> dict[str, str]:
    """What the report groups an item by: its metadata where `cad contrastive make` wrote it, else
    what its candidates show (the correct candidate's pronoun where the two differ in one word)."""
    meta = item.meta
    pronoun = meta.get("pronoun")
    if pronoun is None and item.correct is not None and len(item.targets) == 2:
        a, b = (t.lower().split() for t in item.targets)
        diff = [x if item.correct == 0 else y for x, y in zip(a, b) if x != y]
        pronoun = next((w for w in diff if w in genders), None)
    dist = meta.get("distance")
    groups = {"pronoun": pronoun or "?",
              "gender": meta.get("gender") or (genders[pronoun][0] if pronoun in genders else "?"),
              "distance": "?" if not isinstance(dist, int) else "same sentence" if dist == 0
              else "previous" if dist == 1 else "further",
              "variant": str(meta.get("variant", "?"))}
    return groups


def summarize(items: list[SuiteItem], scores: list[ItemScore], pair: Pair | None = None) -> dict:
    """Accuracy overall and by pronoun, gender, antecedent distance and variant; forced and
    fallback counts; items whose candidates needed penalized options, and options backed off to an
    other-gender twin (`twinned`); items whose candidates
    paid different numbers of unknown-word penalties (`unequal_penalties`: each costs -100
    times its weight, more than the context's features can move, so the phrase table's coverage of
    the candidates' other words decides these, not the context); ties; balanced pairs with both
    items right."""
    genders = pronoun_genders(pair)
    judged = [(it, s) for it, s in zip(items, scores) if s.right is not None]
    unequal, equal = [], []
    for _, s in judged:
        (unequal if s.method == "forced" and len(set(s.penalized)) > 1 else equal).append(s)
    by: dict[str, dict[str, list[int]]] = {}
    for it, s in judged:
        for name, value in _groups(it, genders).items():
            cell = by.setdefault(name, {}).setdefault(value, [0, 0])
            cell[0] += s.right
            cell[1] += 1
    pairs: dict[str, list[bool]] = {}
    for it, s in judged:
        if "pair" in it.meta:
            pairs.setdefault(str(it.meta["pair"]), []).append(bool(s.right))
    return {"items": len(scores), "judged": len(judged),
            "accuracy": sum(s.right for _, s in judged) / len(judged) if judged else math.nan,
            "forced": sum(s.method == "forced" for s in scores), "fallback": sum(s.method == "fallback" for s in scores),
            "penalized": sum(any(s.penalized) for s in scores), "twinned": sum(any(s.twins) for s in scores),
            "unequal_penalties": len(unequal), "unequal_penalties_right": sum(s.right for s in unequal),
            "equal_penalties_accuracy": sum(s.right for s in equal) / len(equal) if equal else math.nan,
            "ties": sum(1 for _, s in judged if s.scores.count(s.scores[s.correct]) > 1),
            "pairs": len(pairs), "pairs_both_right": sum(all(v) for v in pairs.values()),
            "by": {name: {v: {"right": r, "items": n, "accuracy": r / n} for v, (r, n) in sorted(cells.items())}
                   for name, cells in by.items()}}


def format_summary(summary: dict) -> str:
    """The summary as Markdown tables."""
    lines = [f"{summary['judged']} judged items: accuracy {summary['accuracy']:.3f}; "
             f"{summary['forced']} forced, {summary['fallback']} by the fallback; {summary['penalized']} "
             f"with penalized options, {summary.get('twinned', 0)} with options backed off to a gender twin; "
             f"{summary['ties']} ties"]
    if summary.get("unequal_penalties"):
        n, r = summary["unequal_penalties"], summary["unequal_penalties_right"]
        lines.append(f"{n} items decided by the number of penalized options (their candidates need different "
                     f"numbers): {r} right; the other {summary['judged'] - n}: accuracy "
                     f"{summary['equal_penalties_accuracy']:.3f}")
    if summary["pairs"]:
        lines.append(f"{summary['pairs']} pairs, {summary['pairs_both_right']} with both items right")
    for name, cells in summary["by"].items():
        lines += ["", f"| {name} | items | right | accuracy |", "| --- | ---: | ---: | ---: |"]
        lines += [f"| {v} | {c['items']} | {c['right']} | {c['accuracy']:.3f} |" for v, c in cells.items()]
    return "\n".join(lines) + "\n"
