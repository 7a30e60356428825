"""The translation systems by name: `cad translate --system NAME` (and `--system cm --cm-mode MODE`
for the CM's modes, the systems named `cm-MODE`), and every experiment through the DocumentTranslator
(cad/translate/translator.py).

A system is one class registered under its name that builds itself from the decoder and its options
(`from_options`) and translates one document at a time:

    @register_system("mine")
    class Mine(TranslationSystem):
        reads_coreference = False

        def translate_document(self, doc_id, sentences, records, roles=None, given=None):
            ...                  # given: this document's one pass over independent sentences
            return DocumentTranslation(outputs, alignments)

The built-in ones (cad/translate/translator.py: baseline, pe, cm-backoff, cm-feature, cm-rerank) are
declared here and imported when chosen; installed distributions add systems as entry points of the
group `cad.translation_systems`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from cad.core.registry import Names, Registry
from cad.defaults import CM_RERANK_NBEST

ENTRY_POINTS = "cad.translation_systems"
SYSTEMS = Registry("translation system", ENTRY_POINTS)
register_system = SYSTEMS.register
CM = "cm"                       # --system cm: the Coreference Model, in the mode --cm-mode names
CM_PREFIX = "cm-"


@dataclass
class DocumentTranslation:
    """One document's output: a line per sentence, its word alignment to the source (Moses i-j),
    the translations themselves (None when reranking chose among n-best hypotheses) and the
    pronoun trace."""

    outputs: list[str]
    alignments: list[str]
    translations: list | None = None
    traces: list = field(default_factory=list)


@dataclass
class SystemOptions:
    """What the command line or an experiment gives a system; each reads the ones it needs.
    `with_human`: the CM's bundles carry humanness; `reranker`: the CM-rerank reranker (a
    ClassReranker, or a SourceReranker where the pair's source states the antecedents' features), over distinct `nbest` lists;
    `trace`: also trace the baseline's and PE's pronouns (the CM systems always trace);
    `morphology`: the French tagging of the translations (TranslationMorphology); `projector`: the
    feature mode reads each candidate's gender and number from it instead of the translations (the
    reference oracle); `nbest_lists`: the feature mode also returns each sentence's distinct n-best
    list of this size, scored in the context the 1-best translations gave (tuning in document context);
    `pair`: the language pair (cad.lang.pairs.Pair; None: the default pair), whose facts every
    system reads."""

    with_human: bool = False
    reranker: Any = None
    nbest: int = CM_RERANK_NBEST
    trace: bool = False
    morphology: Any = None
    projector: Any = None
    nbest_lists: int = 0
    pair: Any = None


def translate_all(decoder, sentences: list[str], nbest: int = 0, distinct: bool = False) -> list:
    """One pass over independent sentences: a real Moses runs it as one process."""
    if hasattr(decoder, "translate_all"):
        return decoder.translate_all(sentences, nbest, distinct)
    return [decoder.translate(s, nbest=nbest, distinct=distinct) for s in sentences]


class TranslationSystem:
    """One way of translating a document with a decoder (cad's `translate(sentence, nbest=, distinct=,
    context=)`: cad's decoder, a Moses process, a cache in front of either)."""

    # the decoder's part is one pass over independent sentences (given to translate_document),
    # which a decoder that translates whole passes (a real Moses) takes at once
    one_pass: ClassVar[bool] = True
    # it reads each document's coreference records (the command runs a backend for it)
    reads_coreference: ClassVar[bool] = True
    # it reads the pronouns' grammatical roles and the translations' French morphology as it goes
    reads_roles: ClassVar[bool] = False

    def __init__(self, decoder, options: SystemOptions):
        self.decoder, self.options = decoder, options

    @classmethod
    def from_options(cls, decoder, options: SystemOptions) -> TranslationSystem:
        return cls(decoder, options)

    def decode_pass(self, sentences: list[str]) -> list:
        """The one pass over independent sentences."""
        return translate_all(self.decoder, sentences)

    def translate_document(self, doc_id: str, sentences: list[list[str]], records: list, roles: dict | None = None,
                           given: list | None = None) -> DocumentTranslation:
        """`records`: the document's coreference records; `given`: its one pass's translations (a
        system with `one_pass`)."""
        raise NotImplementedError


# the built-in systems, in the order the command line lists them
for _name, _target in (("baseline", "cad.translate.translator:Baseline"),
                       ("pe", "cad.translate.translator:PostEdited"),
                       ("cm-backoff", "cad.translate.translator:CMBackoff"),
                       ("cm-feature", "cad.translate.translator:CMFeature"),
                       ("cm-rerank", "cad.translate.translator:CMRerank")):
    SYSTEMS.declare(_name, _target)


def system_name(system: str, mode: str | None = None) -> str:
    """The registered name of `--system system [--cm-mode mode]`."""
    return CM_PREFIX + str(mode) if system == CM else system


def cm_modes() -> list[str]:
    """The CM's modes: the systems named cm-MODE."""
    return [n[len(CM_PREFIX):] for n in SYSTEMS if n.startswith(CM_PREFIX)]


# `--system`'s choices: cm (whose mode --cm-mode chooses), then every other system
SYSTEM_CHOICES = Names(lambda: [CM, *(n for n in SYSTEMS if not n.startswith(CM_PREFIX))])
# `--cm-mode`'s choices: auto (the configuration decides), then the CM's modes
CM_MODE_CHOICES = Names(lambda: ["auto", *cm_modes()])
