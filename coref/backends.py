"""One interface over the coreference backends: `resolve(doc_id, sentences) -> [PronounResolution]`,
a backend by name, and a tokenized text's documents resolved by one."""

from __future__ import annotations

import logging
import os
from typing import Protocol

from cad.core.docs import read_docs
from cad.core.errors import CadError
from cad.core.textio import read_lines
from coref.records import PronounResolution, read_jsonl

BACKENDS = ("ranker", "sieve", "coreferee", "gold", "stanza", "corzu", "spanish")
DEFAULT_BACKEND = "ranker"
log = logging.getLogger(__name__)


class Resolver(Protocol):
    """What every backend is: the pronouns of one document, each with its candidate antecedents."""

    def resolve(self, doc_id: str, sentences: list[list[str]]) -> list[PronounResolution]: ...


def get_backend(name: str, gold: str | None = None, pronouns=("it", "they"), model: str | None = None,
                corzu: str | None = None, docs: str | None = None, n_lines: int | None = None,
                human_lexicon: str | None = None, gender_lexicon: str | None = None) -> Resolver:
    """A resolver by name; `model` is the ranker's model file (default: the one shipped with cad).
    `corzu` (Spanish): CorZu's records for a text of `n_lines` lines split into documents by `docs`;
    `human_lexicon`: a learned human-noun lexicon (cad/lang/humanness.py) for the candidates' humanness;
    `gender_lexicon`: the learned gender of person names (cad/lang/name_gender.py).
    `spanish`: the native Spanish resolver (coref/spanish/ranker.py) for text without CorZu's output."""
    # a backend's module is imported when it is chosen: `cad` imports this module for BACKENDS at
    # start-up, and the backends bring numpy, spaCy's glue, the gold readers and the lexicons
    if name == "spanish":
        from coref.spanish.ranker import SpanishResolver

        # the lexicon stored with the model unless another is named
        return SpanishResolver(model, lexicon=human_lexicon or "model", genders=gender_lexicon)
    if name == "corzu":
        from coref.spanish.corzu import CorzuResolver

        if not corzu or not docs or n_lines is None:
            raise CadError("the corzu backend needs --corzu RECORDS and --docs (the text's document boundaries)")
        from cad.lang.humanness import HumanLexicon
        from cad.lang.name_gender import GenderLexicon

        return CorzuResolver(corzu, docs, n_lines, lexicon=HumanLexicon.load(human_lexicon) if human_lexicon else None,
                             genders=GenderLexicon.load(gender_lexicon) if gender_lexicon else None)
    if name == "ranker":
        from coref.english.ranker import RankerResolver

        return RankerResolver(model, pronouns=pronouns)
    if name == "sieve":
        from coref.english.sieve import SieveResolver

        return SieveResolver(pronouns=pronouns)
    if name == "coreferee":
        from coref.english.coreferee import CorefereeResolver

        return CorefereeResolver(pronouns)
    if name == "gold":
        if not gold:
            raise CadError("the gold backend needs --gold (an MMAX2 directory, .conll or .ann files)")
        from coref.gold.oracle import GoldResolver

        return GoldResolver(gold, pronouns)
    if name == "stanza":
        from coref.english.stanza import StanzaResolver

        return StanzaResolver(pronouns)
    raise CadError(f"unknown backend {name!r} (choose from {', '.join(BACKENDS)})")


def documents(text: str | os.PathLike, docs: str | os.PathLike | None) -> list[tuple[str, list[list[str]]]]:
    """Split a tokenized text (one sentence a line) into documents by a .docs file."""
    lines = [line.split() for line in read_lines(text)]
    for lineno, toks in enumerate(lines, 1):
        if not toks:
            raise CadError("empty line: every line must be a sentence", str(text), lineno)
    if docs is None:
        return [("0", lines)]
    starts = read_docs(docs, len(lines))
    bounds = [d.first_line for d in starts] + [len(lines)]
    return [(str(k), lines[bounds[k]:bounds[k + 1]]) for k in range(len(starts))]


def resolve_documents(backend: Resolver, docs) -> list[PronounResolution]:
    out = []
    for doc_id, sents in docs:
        out.extend(backend.resolve(doc_id, sents))
    return out


def records_by_doc(path: str, docs_list) -> list:
    """The records of `path` per document of `docs_list`, matched by document index (as `cad
    coref` and `cad coref-eval` name them); a document the file does not cover is resolved by the
    shipped ranker."""
    by_doc: dict[str, list] = {}
    for r in read_jsonl(path):
        by_doc.setdefault(r.doc, []).append(r)
    out = []
    shipped = None
    for d, (doc_id, sents) in enumerate(docs_list):
        recs = by_doc.get(str(d))
        if recs is None:
            log.info("document %s: no record in %s, resolved by the shipped ranker", doc_id, path)
            shipped = shipped or get_backend("ranker")
            recs = shipped.resolve(doc_id, sents)
        for r in recs:
            if r.sentence >= len(sents) or r.index >= len(sents[r.sentence]):
                raise CadError(f"record at sentence {r.sentence}, token {r.index} is outside document {doc_id}", path)
        out.append(recs)
    return out
