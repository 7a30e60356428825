"""Coreference-aware translation with the CM as the CoreferenceModel decoder feature: each *it*/
*they* gets its CM mixture as decoder context (cad/cm/feature.py). An antecedent in an earlier
sentence is read from that sentence's translation; one in the same sentence from a first pass in
which that candidate's bundle stays coarse (pronoun and role), after which the sentence is
translated again (seed 004's two passes).

Where the pair's source states the antecedents' features itself (Spanish→English, seed 003), a
pronoun's mixture is {bundle of its candidate's own features: p(candidate)} (cad/cm/bundles.py):
nothing waits for a translation, and each sentence is translated once.
"""

from __future__ import annotations

from collections import defaultdict

from cad.cm.class_model import antecedent_distribution, pronoun_mixture, read_mixture, through_chain
from cad.cm.bundles import source_bundle
from cad.cm.classes import aligned_words, pronoun_class
from cad.cm.construction import SITUATION, cm_roles, situation_translation
from cad.cm.referent import animacy_of
from cad.decoder.search import Translation
from cad.cm.projection import Projected, Unread, unread_translation
from cad.translate.morphology import TranslationMorphology, projection
from cad.translate.trace import TraceRecord, resolution_fields, target_of
from coref.records import PronounResolution

AHEAD = 8       # sentences looked at for one that can be decoded while an earlier one waits for tags


def translate_document_feature(decoder, doc_id: str, sentences: list[list[str]],
                               resolutions: list[PronounResolution], with_human: bool = False,
                               roles: dict[tuple[int, int], str] | None = None,
                               projector=None, nbest: int = 0, distinct: bool = False,
                               morphology: TranslationMorphology | None = None, pair=None
                               ) -> tuple[list[Translation], list[TraceRecord]]:
    """Translate one document in feature mode. `projector` (candidate -> (gender, number) or
    None), when given, replaces reading the translations: the oracle that reads the reference.
    `nbest`/`distinct`: each sentence's final pass also returns its n-best list, whose feature
    values are those of the context the 1-best translations gave (tuning). `morphology`: where the
    translations are tagged (default: here, when needed), by the target reader of its language
    pair, which also names the source pronouns the CM studies (`pair`: that pair, where the
    morphology is not given)."""
    morphology = morphology or TranslationMorphology(pair=pair)
    if morphology.pair.source_features:
        return translate_source_marked_feature(decoder, doc_id, sentences, resolutions)
    recs_of: dict[int, list[PronounResolution]] = {}
    for r in resolutions:
        if r.token.lower() in morphology.pair.source.cm_pronouns:
            recs_of.setdefault(r.sentence, []).append(r)
    if roles is None:
        roles = cm_roles(sentences, {(r.sentence, r.index) for rs in recs_of.values() for r in rs})
    return FeaturePasses(decoder, doc_id, sentences, recs_of, with_human, roles, projector, nbest, distinct,
                         morphology).run()


class FeaturePasses:
    """One document's sentences in feature mode. Sentences go in order, except that while the
    first waiting sentence's antecedent is being tagged (in the French worker), a later one that
    waits for nothing is decoded. Each sentence's translation depends only on its own context, so
    the output is the same in any order."""

    def __init__(self, decoder, doc_id: str, sentences: list[list[str]], recs_of: dict[int, list[PronounResolution]],
                 with_human: bool, roles: dict, projector, nbest: int, distinct: bool,
                 morphology: TranslationMorphology):
        self.decoder, self.doc_id, self.sentences, self.recs_of = decoder, doc_id, sentences, recs_of
        self.with_human, self.roles, self.projector = with_human, roles, projector
        self.nbest, self.distinct, self.morphology = nbest, distinct, morphology
        self.pair = morphology.pair
        self.animacy = animacy_of(sentences, self.pair)
        n = len(sentences)
        self.done: list[Translation | None] = [None] * n
        self.traces: list[list[TraceRecord]] = [[] for _ in range(n)]
        # (sentence, token) of a resolved pronoun -> its antecedents' features
        self.passed_on: dict[tuple[int, int], dict] = {}
        self.firsts: dict[int, tuple[Translation, dict]] = {}     # intra: the first pass and its context
        # the translation each best antecedent was read as (or found with no gender to read), by
        # (sentence, head) of the candidate; and by (sentence, token) of a resolved pronoun, what
        # its own chain was read as
        self.read_as: dict[tuple[int, int], Projected | Unread] = {}
        self.chain_read_as: dict[tuple[int, int], Projected | Unread] = {}
        # the sentences whose translation a later pronoun's projection reads
        self.read_later = {c.sentence for rs in recs_of.values() for r in rs for c in r.candidates
                           if c.sentence < r.sentence and c.kind == "np"} if projector is None else set()
        # the earlier sentences whose translations (and their pronouns' features) a sentence reads
        self.needs = {k: sorted({c.sentence for r in recs for c in r.candidates if c.sentence < k})
                      for k, recs in recs_of.items()}

    def run(self) -> tuple[list[Translation], list[TraceRecord]]:
        pending = list(range(len(self.sentences)))
        while pending:
            for pos, k in enumerate(pending[:AHEAD]):
                if self.waits_for(k) is None:
                    if self.step(k):
                        del pending[pos]
                    break
            else:
                # the first pending sentence's earlier sentences are all done: it waits only for
                # tags (which may have come in since it was looked at)
                tr = self.waits_for(pending[0])
                if isinstance(tr, Translation):
                    self.morphology.of(tr)
        return self.done, [tr for recs in self.traces for tr in recs]

    def project(self, k: int, first: Translation | None, c) -> dict:
        chain = self.passed_on.get((c.sentence, c.head))
        if chain is not None and c.sentence == k and self.projector is None:
            # an earlier pronoun of this sentence: the first pass translated it before its own
            # antecedent was read, so its words say less than its chain (*it was not dead but it …*)
            return chain
        if self.projector is not None:
            gn = self.projector(c)
        else:
            tr = self.done[c.sentence] if c.sentence < k else first if c.sentence == k else None
            if tr is not None and situation_translation(c, tr.best.words, tr.best.word_alignment,
                                                        self.roles.get((c.sentence, c.start)), self.pair):
                return {SITUATION: 1.0}
            found = None if tr is None else projection(tr, c, self.morphology)
            gn = None if found is None else (found.gender, found.number)
            if found is not None:
                self.read_as[(c.sentence, c.head)] = found
            elif tr is not None and tr.best.words:
                # for the trace only: the bundle stays without gender
                unread = unread_translation(c, tr.best.words, tr.best.word_alignment, self.pair)
                if unread is not None:
                    self.read_as[(c.sentence, c.head)] = unread
        # *it* ... *it*: the chain's features
        return through_chain(gn, chain)

    def context(self, k: int, first: Translation | None) -> dict:
        # in token order, so that a pronoun whose antecedent is an earlier pronoun of the same
        # sentence (*it was not dead but it was wounded*) inherits that one's features
        mixes = {}
        for r in sorted(self.recs_of[k], key=lambda r: r.index):
            mixes[r.index] = pronoun_mixture(r, self.roles[(k, r.index)], lambda c: self.project(k, first, c),
                                             self.with_human, self.animacy, pass_through=True)
            self.passed_on[(k, r.index)] = antecedent_distribution(mixes[r.index], self.pair)
            best = r.best
            if best is not None:
                # a pronoun antecedent: the noun its own chain was read as; a word whose gender
                # nothing read only where no gender was read at all
                read = [f for f in (self.chain_read_as.get((best.sentence, best.head)),
                                    self.read_as.get((best.sentence, best.head))) if f is not None]
                found = next((f for f in read if isinstance(f, Projected)), read[0] if read else None)
                if found is not None:
                    self.chain_read_as[(k, r.index)] = found
        return {"pronouns": mixes}

    def finish(self, k: int, result: Translation, ctx: dict | None, intra: bool) -> None:
        self.done[k] = result
        if k in self.read_later:
            self.morphology.prefetch(result)
        sent = self.sentences[k]
        for r in self.recs_of.get(k, []):
            # the pass that read the best antecedent: the one before (intra) for an antecedent in
            # this sentence, the earlier sentence's translation (inter) for one before it
            tr = TraceRecord(self.doc_id, k, r.index, r.token,
                             **resolution_fields(r),
                             pass_="none" if not r.candidates else "intra" if r.best.sentence == k else "inter")
            if r.candidates:
                tr.antecedent, tr.antecedent_sentence = r.best.text, r.best.sentence
                found = self.chain_read_as.get((k, r.index))
                if found is not None:
                    tr.antecedent_translation, tr.gender_source = found.word, found.source
            tr.bundles = {b: round(w, 4) for b, w in sorted(ctx["pronouns"][r.index].items(), key=lambda x: -x[1])}
            # the likeliest bundle, the one reading=map scores (ties as it breaks them)
            tr.features = next(iter(read_mixture(ctx["pronouns"][r.index], "map")), None)
            # what the feature scored: the aligned words with APT's improvement (*la tuer*, *it* unaligned)
            words = aligned_words(sent, result.best.words, result.best.word_alignment, r.index, self.pair)
            tr.target = " ".join(words)
            tr.target_class = pronoun_class(words, self.pair)
            self.traces[k].append(tr)

    def translate(self, k: int, ctx: dict | None) -> Translation:
        return self.decoder.translate(" ".join(self.sentences[k]), nbest=self.nbest, distinct=self.distinct,
                                      context=ctx)

    def step(self, k: int) -> bool:
        """Translate sentence k as far as it can go now; True once it is done."""
        if k not in self.recs_of:
            self.finish(k, self.decoder.translate(" ".join(self.sentences[k]), nbest=self.nbest,
                                                  distinct=self.distinct), None, False)
            return True
        if k in self.firsts:
            first, first_ctx = self.firsts.pop(k)
            ctx = self.context(k, first)
            # the first pass's words changed no bundle: decoding again gives the same
            result = first if ctx == first_ctx else self.translate(k, ctx)
            self.finish(k, result, ctx, True)
            return True
        intra = self.projector is None and any(c.sentence == k and c.kind == "np"
                                               for r in self.recs_of[k] for c in r.candidates)
        ctx = self.context(k, None)
        result = self.translate(k, ctx)
        if not intra:
            self.finish(k, result, ctx, False)
            return True
        self.firsts[k] = (result, ctx)
        self.morphology.prefetch(result)
        return False

    def waits_for(self, k: int) -> Translation | bool | None:
        """What sentence k waits for: an earlier sentence not yet done (True), the translation whose
        tags it reads, or nothing (None)."""
        if k in self.firsts:
            first = self.firsts[k][0]
            return None if self.morphology.ready(first) else first
        for j in self.needs.get(k, ()):
            if self.done[j] is None:
                return True
            if j in self.read_later and not self.morphology.ready(self.done[j]):
                return self.done[j]
        return None


def translate_source_marked_feature(decoder, doc_id: str, sentences: list[list[str]],
                                    resolutions: list[PronounResolution]
                                    ) -> tuple[list[Translation], list[TraceRecord]]:
    """Feature mode where the source states the antecedents' features: the phrase table stays
    whole; each pronoun with candidates passes its mixture {bundle(c): p(c)} to the
    CoreferenceModel feature, which scores every option translating it."""
    by_sentence: dict[int, list[PronounResolution]] = defaultdict(list)
    for r in resolutions:
        if r.candidates:
            by_sentence[r.sentence].append(r)
    done, traces = [], []
    for k, sent in enumerate(sentences):
        recs = by_sentence.get(k, [])
        mixes = {}
        for r in recs:
            mix: dict[str, float] = defaultdict(float)
            for c in r.candidates:
                mix[source_bundle(r.token, c)] += c.probability
            mixes[r.index] = dict(mix)
        result = decoder.translate(" ".join(sent), context={"pronouns": mixes} if mixes else None)
        for r in recs:
            tr = TraceRecord(doc_id, k, r.index, r.token, **resolution_fields(r),
                             pass_="inter" if r.best.sentence < k else "intra")
            tr.antecedent, tr.antecedent_sentence = r.best.text, r.best.sentence
            tr.bundles = {b: round(w, 4) for b, w in sorted(mixes[r.index].items(), key=lambda x: -x[1])}
            tr.features = next(iter(tr.bundles), None)
            tr.target = target_of(result, r.index)
            traces.append(tr)
        done.append(result)
    return done, traces
