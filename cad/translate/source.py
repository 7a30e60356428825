"""Coreference-aware translation where the source states the antecedent's features
(Spanish→English, seed 003): the bundle of each pronoun is its candidates' own gender, number
and humanness (cad/cm/source_cm.py), so there is nothing to project and one pass suffices."""

from __future__ import annotations

from collections import defaultdict

from cad.cm.source_cm import bundle_of
from cad.translate.trace import TraceRecord, resolution_fields, target_of
from coref.records import PronounResolution


def translate_document_source(decoder, doc_id: str, sentences: list[list[str]],
                              resolutions: list[PronounResolution]):
    """Seed 003's decoding: each pronoun with an antecedent becomes the bundle of its best
    candidate (`su` → `su-fem-sing-hum`), which the main table cannot translate, so the decoder
    backs off to the CM table; one pass, as the features are the source's own."""
    by_sentence: dict[int, list[PronounResolution]] = defaultdict(list)
    for r in resolutions:
        by_sentence[r.sentence].append(r)
    done, traces = [], []
    for k, sent in enumerate(sentences):
        tokens = list(sent)
        sent_traces = []
        for r in by_sentence.get(k, []):
            tr = TraceRecord(doc_id, k, r.index, r.token,
                             **resolution_fields(r))
            if r.candidates:
                c = r.best
                tr.antecedent, tr.antecedent_sentence = c.text, c.sentence
                tr.features = tokens[r.index] = bundle_of(r.token, c)
                tr.pass_ = "inter" if c.sentence < k else "intra"
            sent_traces.append(tr)
        result = decoder.translate(" ".join(tokens))
        for tr in sent_traces:
            tr.target = target_of(result, tr.index)
        done.append(result)
        traces.extend(sent_traces)
    return done, traces


def translate_document_source_feature(decoder, doc_id: str, sentences: list[list[str]],
                                      resolutions: list[PronounResolution]):
    """Feature mode: the phrase table stays whole; each pronoun with candidates passes its mixture
    {bundle(c): p(c)} to the CoreferenceModel feature, which scores every option translating it."""
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
                mix[bundle_of(r.token, c)] += c.probability
            mixes[r.index] = dict(mix)
        result = decoder.translate(" ".join(sent), context={"pronouns": mixes} if mixes else None)
        for r in recs:
            tr = TraceRecord(doc_id, k, r.index, r.token,
                             **resolution_fields(r),
                             pass_="inter" if r.best.sentence < k else "intra")
            tr.antecedent, tr.antecedent_sentence = r.best.text, r.best.sentence
            tr.bundles = {b: round(w, 4) for b, w in sorted(mixes[r.index].items(), key=lambda x: -x[1])}
            tr.features = next(iter(tr.bundles), None)
            tr.target = target_of(result, r.index)
            traces.append(tr)
        done.append(result)
    return done, traces
