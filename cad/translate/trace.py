"""The pronoun trace of a translation: one record per source pronoun (its antecedent candidates,
the antecedent's translation and features, the pass that read them, what the pronoun became), one
JSON line each (`cad translate --trace`), written the same way for every system so that systems
compare pronoun by pronoun."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from cad.cm.classes import aligned_words, pronoun_class
from cad.decoder.search import Translation
from cad.lang.pairs import Pair, chosen
from coref.records import PronounResolution


@dataclass
class TraceRecord:
    doc: str
    sentence: int
    index: int
    pronoun: str
    antecedent: str | None = None
    antecedent_sentence: int | None = None
    antecedent_translation: str | None = None
    # lexicon | determiner | pronoun | cognate | dictionary | tagger; None beside an
    # antecedent_translation: no source read its gender (*souris* without its article)
    gender_source: str | None = None
    features: str | None = None
    pass_: str = "none"                   # inter | intra | none
    target: str | None = None             # what the pronoun became
    candidates: list = field(default_factory=list)
    bundles: dict = field(default_factory=dict)   # feature mode: the CM mixture {bundle: weight}
    target_class: str | None = None
    doc_index: int | None = None          # the document's 0-based number (`doc`: its --docs id)
    referent: str | None = None           # the resolver's referent type, where it gives one: np | event | pleonastic
    referent_type: str | None = None      # for np: the entity type (person, animal, object, abstract, …)


def resolution_fields(r: PronounResolution) -> dict:
    """What a trace record takes from the pronoun's resolution: its candidates and referent type."""
    return {"candidates": [(c.text, round(c.probability, 4)) for c in r.candidates],
            "referent": r.referent, "referent_type": r.referent_type}


def target_of(tr: Translation, index: int) -> str:
    return " ".join(tr.best.words[t] for s, t in sorted(tr.best.word_alignment, key=lambda x: x[1]) if s == index)


def plain_traces(doc_id: str, sentences: list[list[str]], translations: list[Translation],
                 resolutions: list[PronounResolution], words: list[list[str]] | None = None,
                 pair: Pair | None = None) -> list[TraceRecord]:
    """Trace records of a translation made without the CM (the baseline, or PE's `words` over the
    baseline's alignment): the pronouns' antecedents and what each pronoun became, read as the CM
    feature's trace reads it, so that systems compare pronoun by pronoun."""
    pair = chosen(pair)
    out = []
    for r in sorted(resolutions, key=lambda r: (r.sentence, r.index)):
        if r.token.lower() not in pair.source.cm_pronouns:
            continue
        tr = TraceRecord(doc_id, r.sentence, r.index, r.token,
                         **resolution_fields(r))
        if r.referential and r.candidates:
            tr.antecedent, tr.antecedent_sentence = r.best.text, r.best.sentence
        best = translations[r.sentence].best
        target = words[r.sentence] if words is not None else best.words
        got = aligned_words(sentences[r.sentence], target, best.word_alignment, r.index, pair)
        tr.target, tr.target_class = " ".join(got), pronoun_class(got, pair)
        out.append(tr)
    return out


def trace_json(tr: TraceRecord) -> str:
    d = asdict(tr)
    d["pass"] = d.pop("pass_")
    for k in ("referent", "referent_type"):       # written only where the resolver gives them
        if d[k] is None:
            del d[k]
    return json.dumps(d, ensure_ascii=False, sort_keys=True)
