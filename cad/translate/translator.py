"""The document translator: one object that translates documents with a chosen system, used by
`cad translate`, tuning in document context and every experiment.

Systems: `baseline` (the decoder alone), `pe` (the baseline post-edited by seed 004's rule),
`cm` in one of its modes: `backoff` (seed 004's back-off table), `feature` (the CoreferenceModel
decoder feature, two passes), `rerank` (the class CM over the decoder's n-best lists); with
`source_features` (Spanish→English, seed 003) the bundles come from the source side itself.
The passes whose sentences do not wait for each other (the baseline, PE's input, reranking's
n-best lists) go to a real Moses whole, so that it runs each as one process; cad's decoder takes
them document by document, so that each document is written as soon as it is done.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator

from cad.decoder.nbest import moses_alignment
from cad.defaults import CM_RERANK_NBEST
from cad.decoder.search import Translation
from cad.translate.backoff import translate_document
from cad.translate.decoders import translate_all
from cad.translate.morphology import TranslationMorphology
from cad.translate.passes import translate_document_feature
from cad.translate.postedit import postedit_document
from cad.translate.rerank import Hypothesis
from cad.translate.source import translate_document_source, translate_document_source_feature
from cad.translate.trace import TraceRecord, plain_traces
from coref.records import PronounResolution

SYSTEMS = ("cm", "baseline", "pe")
CM_MODES = ("backoff", "feature", "rerank")


@dataclass
class DocumentTranslation:
    """One document's output: a line per sentence, its word alignment to the source (Moses i-j),
    the translations themselves (None when reranking chose among n-best hypotheses) and the
    pronoun trace."""

    outputs: list[str]
    alignments: list[str]
    translations: list[Translation] | None = None
    traces: list[TraceRecord] = field(default_factory=list)


def alignment_line(d) -> str:
    """A derivation's word alignment in the order Moses and cad decode print it (-alignment-output-file),
    whichever decoder made it."""
    return " ".join(f"{i}-{j}" for i, j in moses_alignment(d))


class DocumentTranslator:
    """`decoder`: anything with cad's `translate(sentence, nbest=, distinct=, context=)` (cad's
    decoder, a Moses process, a cache in front of either). `reranker`: for mode `rerank`, a
    ClassReranker (or a SourceReranker with `source_features`). `trace`: also trace the baseline's
    and PE's pronouns (the CM systems always trace). `projector`: feature mode reads each
    candidate's gender and number from it instead of the translations (the reference oracle).
    `nbest_lists`: feature mode also returns each sentence's distinct n-best list of this size,
    scored in the context the 1-best translations gave (tuning in document context)."""

    def __init__(self, decoder, system: str = "cm", mode: str = "feature", *, source_features: bool = False,
                 with_human: bool = False, reranker=None, nbest: int = CM_RERANK_NBEST, trace: bool = False,
                 morphology: TranslationMorphology | None = None, projector=None, nbest_lists: int = 0):
        if system not in SYSTEMS:
            raise ValueError(f"unknown system {system!r}")
        if system == "cm" and mode not in CM_MODES:
            raise ValueError(f"unknown CM mode {mode!r}")
        if system == "cm" and mode == "rerank" and reranker is None:
            raise ValueError("mode rerank needs a reranker")
        self.decoder, self.system, self.mode = decoder, system, mode
        self.source_features, self.with_human, self.reranker = source_features, with_human, reranker
        self.nbest, self.trace, self.projector, self.nbest_lists = nbest, trace, projector, nbest_lists
        self.morphology = morphology or TranslationMorphology()

    @property
    def reranks(self) -> bool:
        return self.system == "cm" and self.mode == "rerank"

    @property
    def one_pass(self) -> bool:
        """Whether the decoder's part is one pass over independent sentences."""
        return self.system != "cm" or self.mode == "rerank"

    def decode_pass(self, sentences: list[str]) -> list[Translation]:
        """The one pass over independent sentences (n-best lists for reranking)."""
        if self.reranks:
            return translate_all(self.decoder, sentences, self.nbest, True)
        return translate_all(self.decoder, sentences)

    def translate_corpus(self, docs: list[tuple[str, list[list[str]]]],
                         analyses: Iterable[tuple[list[PronounResolution], dict | None]]
                         ) -> Iterator[DocumentTranslation]:
        """Each document of `docs` with its (records, roles) from `analyses`, in order, each as soon
        as it is done. The one pass, where the system has one, goes to a decoder that translates
        whole passes (a real Moses) over every sentence first, to cad's decoder document by
        document (the same translations)."""
        given = None
        if self.one_pass and hasattr(self.decoder, "translate_all"):
            given = iter(self.decode_pass([" ".join(s) for _, sents in docs for s in sents]))
        for (doc_id, sents), (records, roles) in zip(docs, analyses):
            trs = [next(given) for _ in sents] if given is not None else None
            yield self.translate_document(doc_id, sents, records, roles, given=trs)

    def translate_document(self, doc_id: str, sentences: list[list[str]], records: list[PronounResolution],
                           roles: dict | None = None, given: list[Translation] | None = None
                           ) -> DocumentTranslation:
        """`given`: the one pass's translations of these sentences, decoded here if absent."""
        if self.one_pass and given is None:
            given = self.decode_pass([" ".join(s) for s in sentences])
        if self.reranks:
            return self._rerank(sentences, records, roles, given)
        if self.system == "cm":
            trs, traces = self._translate_cm(doc_id, sentences, records, roles)
            return DocumentTranslation([tr.text for tr in trs], [alignment_line(tr.best) for tr in trs],
                                       trs, traces)
        words = None
        if self.system == "pe":
            words, _ = postedit_document(given, records)
            outputs = [" ".join(w) for w in words]
        else:
            outputs = [tr.text for tr in given]
        traces = plain_traces(doc_id, sentences, given, records, words) \
            if self.trace and not self.source_features else []
        return DocumentTranslation(outputs, [alignment_line(tr.best) for tr in given], given, traces)

    def _translate_cm(self, doc_id: str, sentences: list[list[str]], records: list[PronounResolution],
                      roles: dict | None) -> tuple[list[Translation], list[TraceRecord]]:
        if self.source_features:
            translate_doc = translate_document_source_feature if self.mode == "feature" \
                else translate_document_source
            return translate_doc(self.decoder, doc_id, sentences, records)
        if self.mode == "feature":
            return translate_document_feature(self.decoder, doc_id, sentences, records, self.with_human,
                                              roles=roles, projector=self.projector, nbest=self.nbest_lists,
                                              distinct=self.nbest_lists > 0, morphology=self.morphology)
        return translate_document(self.decoder, doc_id, sentences, records, self.with_human)

    def _rerank(self, sentences: list[list[str]], records: list[PronounResolution], roles: dict | None,
                given: list[Translation]) -> DocumentTranslation:
        derivations = [tr.nbest or [tr.best] for tr in given]
        hyps = [[Hypothesis(list(d.words), d.total, d.word_alignment) for d in ds] for ds in derivations]
        of = {id(h): d for hs, ds in zip(hyps, derivations) for h, d in zip(hs, ds)}
        if self.source_features:
            chosen, _ = self.reranker.rerank_document(hyps, records)
        else:
            chosen, _ = self.reranker.rerank_document(hyps, records, sentences, roles=roles)
        return DocumentTranslation([" ".join(h.words) for h in chosen], [alignment_line(of[id(h)]) for h in chosen])
