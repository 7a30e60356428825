"""`cad translate`: coreference-aware document translation (seed 004 §4).

Per document, sentences are translated in order. A pronoun whose antecedent lies in an earlier
sentence is replaced by the feature token read from that sentence's translation (decoder word
alignment + French morphology of the antecedent's translation); for an antecedent in the same
sentence, the sentence is translated once, the antecedent's translation read, the token
substituted, and the sentence translated again. Pronouns without a nominal antecedent go through
the default table. Feature tokens are unknown to the default table, so the decoder's back-off
path sends them to the CM.
"""

from __future__ import annotations

import json
import logging
from concurrent.futures import Executor, Future
from dataclasses import asdict, dataclass, field

from cad.cm.bundles import Bundle, parse_token
from cad.cm.projection import aligned_targets, first_noun_or_pronoun
from cad.lang.fr_morph import tag, tag_words
from cad.decoder.search import Decoder, Translation
from coref.records import PronounResolution

log = logging.getLogger(__name__)
AHEAD = 8       # sentences looked at for one that can be decoded while an earlier one waits for tags


@dataclass
class TraceRecord:
    doc: str
    sentence: int
    index: int
    pronoun: str
    antecedent: str | None = None
    antecedent_sentence: int | None = None
    antecedent_translation: str | None = None
    features: str | None = None
    pass_: str = "none"                   # inter | intra | none
    target: str | None = None             # what the pronoun became
    candidates: list = field(default_factory=list)
    bundles: dict = field(default_factory=dict)   # feature mode: the CM mixture {bundle: weight}
    target_class: str | None = None


def antecedent_features(tr: Translation, cand_start: int, cand_end: int, pronoun: str,
                        human: bool | None, with_human: bool) -> tuple[str | None, str | None]:
    """(feature token, antecedent's target word) from a translated sentence."""
    aligned = aligned_targets(cand_start, cand_end, tr.best.word_alignment)
    if not aligned or not tr.best.words:
        return None, None
    morph = tag([tr.best.words])[0]
    p = first_noun_or_pronoun(aligned, morph)
    if p is None:
        return None, None
    m = morph[p]
    return Bundle(pronoun.lower(), m.gender, m.number, human).token(with_human), tr.best.words[p]


def target_of(tr: Translation, index: int) -> str:
    return " ".join(tr.best.words[t] for s, t in sorted(tr.best.word_alignment, key=lambda x: x[1]) if s == index)


def translate_document(decoder: Decoder, doc_id: str, sentences: list[list[str]],
                       resolutions: list[PronounResolution], with_human: bool = False,
                       baseline: Decoder | None = None) -> tuple[list[Translation], list[TraceRecord]]:
    """Translate one document; `baseline` (optional) decodes the first pass of intra-sentential cases."""
    by_sentence: dict[int, list[PronounResolution]] = {}
    for r in resolutions:
        by_sentence.setdefault(r.sentence, []).append(r)
    done: list[Translation] = []
    traces: list[TraceRecord] = []
    # a pronoun whose antecedent is an earlier, already featured pronoun inherits its features
    featured: dict[tuple[int, int], tuple[str, str]] = {}
    for k, sent in enumerate(sentences):
        tokens = list(sent)
        recs = by_sentence.get(k, [])
        intra = []
        sent_traces = []
        for r in recs:
            tr = TraceRecord(doc_id, k, r.index, r.token,
                             candidates=[(c.text, round(c.probability, 4)) for c in r.candidates])
            sent_traces.append(tr)
            if not r.referential or not r.candidates:
                continue
            c = r.best
            tr.antecedent, tr.antecedent_sentence = c.text, c.sentence
            if c.kind != "np":
                continue      # a clause has no gender or number to carry: the default table translates

            inherited = featured.get((c.sentence, c.head))
            if inherited is not None:
                feat = Bundle(r.token.lower(), inherited[0], inherited[1], c.human).token(with_human)
                tokens[r.index] = feat
                tr.features, tr.antecedent_translation, tr.pass_ = feat, inherited[2], "inter" if c.sentence < k else "intra"
                featured[(k, r.index)] = inherited
            elif c.sentence < k:
                feat, word = antecedent_features(done[c.sentence], c.start, c.end, r.token, c.human, with_human)
                if feat:
                    tokens[r.index] = feat
                    tr.features, tr.antecedent_translation, tr.pass_ = feat, word, "inter"
                    b = parse_token(feat)
                    featured[(k, r.index)] = (b.gender, b.number, word)
            elif c.sentence == k:
                intra.append((r, c, tr))
        if intra:
            first = (baseline or decoder).translate(" ".join(tokens))
            for r, c, tr in intra:
                inherited = featured.get((c.sentence, c.head))
                if inherited is not None:
                    feat, word = Bundle(r.token.lower(), inherited[0], inherited[1], c.human).token(with_human), inherited[2]
                else:
                    feat, word = antecedent_features(first, c.start, c.end, r.token, c.human, with_human)
                if feat:
                    tokens[r.index] = feat
                    tr.features, tr.antecedent_translation, tr.pass_ = feat, word, "intra"
                    b = parse_token(feat)
                    featured[(k, r.index)] = (b.gender, b.number, word)
        result = decoder.translate(" ".join(tokens))
        for tr in sent_traces:
            tr.target = target_of(result, tr.index)
        done.append(result)
        traces.extend(sent_traces)
    return done, traces


class TranslationMorphology:
    """The French tags of translations, computed by `pool` (one worker process, which alone holds
    spaCy's French pipeline) or, without one, in the caller: a translation that a later pronoun's
    antecedent lies in is sent for tagging as soon as it is decoded, while the decoder goes on."""

    KEEP = 64       # translations kept tagged; antecedents lie a few sentences back at most

    def __init__(self, pool: Executor | None = None):
        self.pool = pool            # None: tag in the caller's thread
        self.cache: dict[int, tuple[Translation, Future]] = {}

    def prefetch(self, tr: Translation) -> None:
        """Start tagging `tr` in the pool (without one, `of` tags when asked)."""
        if self.pool is not None:
            self._start(tr)

    def _start(self, tr: Translation) -> None:
        if id(tr) in self.cache or not tr.best.words:
            return
        if len(self.cache) >= self.KEEP:
            self.cache.clear()
        if self.pool is None:
            done: Future = Future()
            done.set_result(tag_words(tr.best.words))
        else:
            done = self.pool.submit(tag_words, tr.best.words)
        self.cache[id(tr)] = (tr, done)     # the translation kept alive, so that its id stays its own

    def ready(self, tr: Translation) -> bool:
        """Whether `of(tr)` would return at once."""
        if self.pool is None or not tr.best.words:
            return True
        self._start(tr)
        return self.cache[id(tr)][1].done()

    def of(self, tr: Translation) -> list:
        self._start(tr)
        return self.cache[id(tr)][1].result()


def projection(tr: Translation, start: int, end: int, morphology: TranslationMorphology) -> tuple[str, str] | None:
    """Gender and number of the antecedent's translation: the first noun or pronoun among the
    target words aligned to source span [start, end) (seed 004)."""
    aligned = aligned_targets(start, end, tr.best.word_alignment)
    if not aligned or not tr.best.words:
        return None
    morph = morphology.of(tr)
    p = first_noun_or_pronoun(aligned, morph)
    return None if p is None else (morph[p].gender, morph[p].number)


def translate_document_feature(decoder, doc_id: str, sentences: list[list[str]],
                               resolutions: list[PronounResolution], with_human: bool = False,
                               roles: dict[tuple[int, int], str] | None = None,
                               projector=None, nbest: int = 0, distinct: bool = False,
                               morphology: TranslationMorphology | None = None
                               ) -> tuple[list[Translation], list[TraceRecord]]:
    """Feature mode: each it/they gets its CM mixture as decoder context (cad/cm/feature.py).
    An antecedent in an earlier sentence is read from that sentence's translation; one in the same
    sentence from a first pass in which that candidate's bundle stays coarse (pronoun and role),
    after which the sentence is translated again (seed 004's two passes). `projector` (candidate
    -> (gender, number) or None), when given, replaces reading the translations: the oracle that
    reads the reference. `nbest`/`distinct`: each sentence's final pass also returns its n-best
    list, whose feature values are those of the context the 1-best translations gave (tuning).
    `morphology`: where the translations are tagged (default: here, when needed)."""
    from cad.cm.class_model import CM_PRONOUNS
    from coref.english.roles import pronoun_roles

    recs_of: dict[int, list[PronounResolution]] = {}
    for r in resolutions:
        if r.token.lower() in CM_PRONOUNS:
            recs_of.setdefault(r.sentence, []).append(r)
    if roles is None:
        roles = pronoun_roles(sentences, {(r.sentence, r.index) for rs in recs_of.values() for r in rs})
    # the sentences whose translation a later pronoun's projection reads
    read_later = {c.sentence for rs in recs_of.values() for r in rs for c in r.candidates
                  if c.sentence < r.sentence and c.kind == "np"} if projector is None else set()
    return _translate_feature(decoder, doc_id, sentences, recs_of, with_human, roles, projector, nbest,
                              distinct, read_later, morphology or TranslationMorphology())


def _translate_feature(decoder, doc_id: str, sentences: list[list[str]], recs_of: dict, with_human: bool,
                       roles: dict, projector, nbest: int, distinct: bool, read_later: set[int],
                       morphology: TranslationMorphology) -> tuple[list[Translation], list[TraceRecord]]:
    from cad.cm.class_model import antecedent_distribution, pronoun_mixture
    from cad.cm.classes import aligned_words, pronoun_class

    n = len(sentences)
    done: list[Translation | None] = [None] * n
    traces: list[list[TraceRecord]] = [[] for _ in range(n)]
    passed_on: dict[tuple[int, int], dict] = {}     # (sentence, token) of a resolved pronoun -> its antecedents' features
    firsts: dict[int, tuple[Translation, dict]] = {}     # intra: the first pass and its context
    # the earlier sentences whose translations (and their pronouns' features) a sentence reads
    needs = {k: sorted({c.sentence for r in recs for c in r.candidates if c.sentence < k}) for k, recs in recs_of.items()}

    def context(k: int, first: Translation | None) -> dict:
        def project(c):
            if projector is not None:
                gn = projector(c)
            elif c.sentence < k:
                gn = projection(done[c.sentence], c.start, c.end, morphology)
            elif c.sentence == k and first is not None:
                gn = projection(first, c.start, c.end, morphology)
            else:
                gn = None
            if gn is None and (c.sentence, c.head) in passed_on:
                return passed_on[(c.sentence, c.head)]      # *it* ... *it*: the chain's features
            return {gn: 1.0}

        # in token order, so that a pronoun whose antecedent is an earlier pronoun of the same
        # sentence (*it was not dead but it was wounded*) inherits that one's features
        mixes = {}
        for r in sorted(recs_of[k], key=lambda r: r.index):
            mixes[r.index] = pronoun_mixture(r, roles[(k, r.index)], project, with_human)
            passed_on[(k, r.index)] = antecedent_distribution(mixes[r.index])
        return {"pronouns": mixes}

    def finish(k: int, result: Translation, ctx: dict | None, intra: bool) -> None:
        done[k] = result
        if k in read_later:
            morphology.prefetch(result)
        sent = sentences[k]
        for r in recs_of.get(k, []):
            tr = TraceRecord(doc_id, k, r.index, r.token,
                             candidates=[(c.text, round(c.probability, 4)) for c in r.candidates],
                             pass_="intra" if intra else "inter" if r.candidates else "none")
            if r.candidates:
                tr.antecedent, tr.antecedent_sentence = r.best.text, r.best.sentence
            tr.bundles = {b: round(w, 4) for b, w in sorted(ctx["pronouns"][r.index].items(), key=lambda x: -x[1])}
            tr.features = next(iter(tr.bundles), None)
            # what the feature scored: the aligned words with APT's improvement (*la tuer*, *it* unaligned)
            words = aligned_words(sent, result.best.words, result.best.word_alignment, r.index)
            tr.target = " ".join(words)
            tr.target_class = pronoun_class(words)
            traces[k].append(tr)

    def step(k: int) -> bool:
        """Translate sentence k as far as it can go now; True once it is done."""
        text = " ".join(sentences[k])
        if k not in recs_of:
            finish(k, decoder.translate(text, nbest=nbest, distinct=distinct), None, False)
            return True
        if k in firsts:
            first, first_ctx = firsts.pop(k)
            ctx = context(k, first)
            # the first pass's words changed no bundle: decoding again gives the same
            result = first if ctx == first_ctx else decoder.translate(text, nbest=nbest, distinct=distinct,
                                                                      context=ctx)
            finish(k, result, ctx, True)
            return True
        intra = projector is None and any(c.sentence == k and c.kind == "np" for r in recs_of[k] for c in r.candidates)
        ctx = context(k, None)
        result = decoder.translate(text, nbest=nbest, distinct=distinct, context=ctx)
        if not intra:
            finish(k, result, ctx, False)
            return True
        firsts[k] = (result, ctx)
        morphology.prefetch(result)
        return False

    def waits_for(k: int) -> Translation | bool | None:
        """What sentence k waits for: an earlier sentence not yet done (True), the translation whose
        tags it reads, or nothing (None)."""
        if k in firsts:
            return None if morphology.ready(firsts[k][0]) else firsts[k][0]
        for j in needs.get(k, ()):
            if done[j] is None:
                return True
            if j in read_later and not morphology.ready(done[j]):
                return done[j]
        return None

    # Sentences go in order, except that while the first waiting sentence's antecedent is being
    # tagged (in the French worker), a later one that waits for nothing is decoded. Each
    # sentence's translation depends only on its own context, so the output is the same in any order.
    pending = list(range(n))
    while pending:
        for pos, k in enumerate(pending[:AHEAD]):
            if waits_for(k) is None:
                if step(k):
                    del pending[pos]
                break
        else:
            # the first pending sentence's earlier sentences are all done: it waits only for tags
            # (which may have come in since it was looked at)
            tr = waits_for(pending[0])
            if isinstance(tr, Translation):
                morphology.of(tr)
    return done, [tr for recs in traces for tr in recs]


def plain_traces(doc_id: str, sentences: list[list[str]], translations: list[Translation],
                 resolutions: list[PronounResolution], words: list[list[str]] | None = None) -> list[TraceRecord]:
    """Trace records of a translation made without the CM (the baseline, or PE's `words` over the
    baseline's alignment): the pronouns' antecedents and what each pronoun became, read as the CM
    feature's trace reads it, so that systems compare pronoun by pronoun."""
    from cad.cm.class_model import CM_PRONOUNS
    from cad.cm.classes import aligned_words, pronoun_class

    out = []
    for r in sorted(resolutions, key=lambda r: (r.sentence, r.index)):
        if r.token.lower() not in CM_PRONOUNS:
            continue
        tr = TraceRecord(doc_id, r.sentence, r.index, r.token,
                         candidates=[(c.text, round(c.probability, 4)) for c in r.candidates])
        if r.referential and r.candidates:
            tr.antecedent, tr.antecedent_sentence = r.best.text, r.best.sentence
        best = translations[r.sentence].best
        target = words[r.sentence] if words is not None else best.words
        got = aligned_words(sentences[r.sentence], target, best.word_alignment, r.index)
        tr.target, tr.target_class = " ".join(got), pronoun_class(got)
        out.append(tr)
    return out


def trace_json(tr: TraceRecord) -> str:
    d = asdict(tr)
    d["pass"] = d.pop("pass_")
    return json.dumps(d, ensure_ascii=False, sort_keys=True)
