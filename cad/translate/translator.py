"""The document translator: one object that translates documents with a chosen system, used by
`cad translate`, tuning in document context and every experiment; and the built-in systems, each
one class registered by name in cad/translate/systems.py.

Systems: `baseline` (the decoder alone), `pe` (the baseline post-edited by seed 004's rule), the CM
in one of its modes, `cm-backoff` (seed 004's back-off table), `cm-feature` (the CoreferenceModel
decoder feature, two passes), `cm-rerank` (the class CM over the decoder's n-best lists). Every
system reads the language pair it is given (cad/lang/pairs.py): where the pair's source states the
antecedents' features (Spanish→English, seed 003) the bundles come from the source side itself,
through the same systems.
The passes whose sentences do not wait for each other (the baseline, PE's input, reranking's
n-best lists) go to a real Moses whole, so that it runs each as one process; cad's decoder takes
them document by document, so that each document is written as soon as it is done.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from cad.decoder.nbest import moses_alignment
from cad.decoder.search import Translation
from cad.defaults import CM_RERANK_NBEST
from cad.translate.backoff import translate_document
from cad.translate.morphology import TranslationMorphology
from cad.translate.passes import translate_document_feature
from cad.translate.postedit import postedit_document
from cad.translate.rerank import Hypothesis
from cad.translate.systems import (CM, SYSTEM_CHOICES, SYSTEMS, DocumentTranslation, SystemOptions,
                                   TranslationSystem, cm_modes, system_name, translate_all)
from cad.translate.trace import plain_traces
from cad.lang.pairs import chosen
from coref.records import PronounResolution


def alignment_line(d) -> str:
    """A derivation's word alignment in the order Moses and cad decode print it (-alignment-output-file),
    whichever decoder made it."""
    return " ".join(f"{i}-{j}" for i, j in moses_alignment(d))


class Baseline(TranslationSystem):
    """`baseline`: the decoder alone (its pronouns traced with their antecedents when asked)."""

    reads_coreference = False       # only for --trace

    def edit(self, given: list[Translation], records: list[PronounResolution]) -> list[list[str]] | None:
        """The words that replace the translations' (None: the translations as they are)."""
        return None

    def translate_document(self, doc_id, sentences, records, roles=None, given=None) -> DocumentTranslation:
        words = self.edit(given, records)
        outputs = [tr.text for tr in given] if words is None else [" ".join(w) for w in words]
        traces = plain_traces(doc_id, sentences, given, records, words, self.options.pair) \
            if self.options.trace and not chosen(self.options.pair).source_features else []
        return DocumentTranslation(outputs, [alignment_line(tr.best) for tr in given], given, traces)


class PostEdited(Baseline):
    """`pe`: the baseline post-edited to agree with the antecedents (seed 004's rule)."""

    reads_coreference = True

    def edit(self, given, records):
        return postedit_document(given, records, self.options.pair)[0]


class CMBackoff(TranslationSystem):
    """`cm-backoff`: seed 004's back-off table, sentence by sentence in document order."""

    one_pass = False

    def translate_document(self, doc_id, sentences, records, roles=None, given=None) -> DocumentTranslation:
        trs, traces = self.translate(doc_id, sentences, records, roles)
        return DocumentTranslation([tr.text for tr in trs], [alignment_line(tr.best) for tr in trs], trs, traces)

    def translate(self, doc_id, sentences, records, roles):
        return translate_document(self.decoder, doc_id, sentences, records, self.options.with_human,
                                  pair=self.options.pair)


class CMFeature(CMBackoff):
    """`cm-feature`: the CoreferenceModel decoder feature, each pronoun's antecedents read from the
    translations so far (two passes where one is in the pronoun's own sentence)."""

    reads_roles = True

    def __init__(self, decoder, options: SystemOptions):
        super().__init__(decoder, options)
        self.morphology = options.morphology or TranslationMorphology(pair=options.pair)

    def translate(self, doc_id, sentences, records, roles):
        o = self.options
        return translate_document_feature(self.decoder, doc_id, sentences, records, o.with_human, roles=roles,
                                          projector=o.projector, nbest=o.nbest_lists, distinct=o.nbest_lists > 0,
                                          morphology=self.morphology, pair=o.pair)


class CMRerank(TranslationSystem):
    """`cm-rerank`: the class CM over the decoder's distinct n-best lists (any decoder)."""

    @classmethod
    def from_options(cls, decoder, options: SystemOptions) -> CMRerank:
        if options.reranker is None:
            raise ValueError("mode rerank needs a reranker")
        return cls(decoder, options)

    def decode_pass(self, sentences: list[str]) -> list[Translation]:
        return translate_all(self.decoder, sentences, self.options.nbest, True)

    def translate_document(self, doc_id, sentences, records, roles=None, given=None) -> DocumentTranslation:
        derivations = [tr.nbest or [tr.best] for tr in given]
        hyps = [[Hypothesis(list(d.words), d.total, d.word_alignment) for d in ds] for ds in derivations]
        of = {id(h): d for hs, ds in zip(hyps, derivations) for h, d in zip(hs, ds)}
        best, _ = self.options.reranker.rerank_document(hyps, records, sentences, roles=roles)
        return DocumentTranslation([" ".join(h.words) for h in best], [alignment_line(of[id(h)]) for h in best])


class DocumentTranslator:
    """Documents translated by the system `system` (`cm` in its `mode`; cad/translate/systems.py).
    `decoder`: anything with cad's `translate(sentence, nbest=, distinct=, context=)` (cad's
    decoder, a Moses process, a cache in front of either). The other options: SystemOptions."""

    def __init__(self, decoder, system: str = CM, mode: str = "feature", *, with_human: bool = False,
                 reranker=None, nbest: int = CM_RERANK_NBEST, trace: bool = False,
                 morphology: TranslationMorphology | None = None, projector=None, nbest_lists: int = 0,
                 pair=None):
        if system not in SYSTEM_CHOICES:
            raise ValueError(f"unknown system {system!r}")
        if system == CM and mode not in cm_modes():
            raise ValueError(f"unknown CM mode {mode!r}")
        options = SystemOptions(with_human, reranker, nbest, trace, morphology, projector, nbest_lists, pair)
        self.decoder, self.name = decoder, system_name(system, mode)
        self.system = SYSTEMS.get(self.name).from_options(decoder, options)

    @property
    def one_pass(self) -> bool:
        """Whether the decoder's part is one pass over independent sentences."""
        return self.system.one_pass

    def decode_pass(self, sentences: list[str]) -> list[Translation]:
        """The one pass over independent sentences (n-best lists for reranking)."""
        return self.system.decode_pass(sentences)

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
        return self.system.translate_document(doc_id, sentences, records, roles, given)
