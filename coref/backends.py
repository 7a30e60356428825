"""The coreference backends by name: one interface, `resolve(doc_id, sentences) -> [PronounResolution]`,
one registry (cad/core/registry.py), and a tokenized text's documents resolved by one.

A backend is one class registered under its name that builds itself from the options a command
gives it (`from_options`, BackendOptions: each backend reads the ones it needs):

    @register_backend("mine")
    class Mine(Backend):
        @classmethod
        def from_options(cls, options):
            return cls(options.get("model"), options.pronouns)

        def resolve(self, doc_id, sentences): ...

Every command's `--backend` then offers it, and `cad coref`'s workers build it from the same
options. The built-in backends are declared here by where they live and imported when chosen:
`cad` reads this module at start-up for the names, and the backends bring numpy, spaCy's glue, the
gold readers and the lexicons. An installed distribution adds backends as entry points of the group
`cad.coref_backends`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from cad.core.docs import read_docs
from cad.core.errors import CadError
from cad.core.registry import Registry
from cad.core.textio import read_lines
from cad.defaults import COREF_PRONOUNS
from coref.records import PronounResolution, read_jsonl

ENTRY_POINTS = "cad.coref_backends"
BACKENDS = Registry("backend", ENTRY_POINTS)
register_backend = BACKENDS.register
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BackendOptions:
    """What a command gives the backend it names: the pronouns to write records for, and its
    options by name (`gold`, `model`, `corzu`, `docs`, `n_lines`, `lines`, `human_lexicon`,
    `gender_lexicon`, or any other a plug-in's backend reads). Frozen and comparable, so that a
    worker process builds one backend for all its shards and a shard's fingerprint names them."""

    pronouns: tuple[str, ...] = COREF_PRONOUNS
    given: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, pronouns: Sequence[str] = COREF_PRONOUNS, **given: Any) -> BackendOptions:
        """The options given (None: not given)."""
        return cls(tuple(pronouns), tuple(sorted((k, v) for k, v in given.items() if v is not None)))

    def get(self, name: str, default: Any = None) -> Any:
        return dict(self.given).get(name, default)

    def with_options(self, **given: Any) -> BackendOptions:
        return replace(self, given=tuple(sorted({**dict(self.given), **given}.items())))

    def files(self) -> list[str]:
        """The options that may name files (every text value), whose size and time a shard's
        fingerprint includes."""
        return [str(v) for _, v in self.given if isinstance(v, (str, os.PathLike))]


class Backend:
    """What every backend is: the pronouns of one document, each with its candidate antecedents."""

    # whether the backend reads a trained model file (`--model`, `--coref-model`)
    reads_model: ClassVar[bool] = False

    @classmethod
    def from_options(cls, options: BackendOptions) -> Backend:
        return cls()

    def resolve(self, doc_id: str, sentences: list[list[str]]) -> list[PronounResolution]:
        raise NotImplementedError


# the built-in backends, in the order the command line lists them
for _name, _target in (("ranker", "coref.english.ranker:RankerResolver"),
                       ("sieve", "coref.english.sieve:SieveResolver"),
                       ("coreferee", "coref.english.coreferee:CorefereeResolver"),
                       ("gold", "coref.gold.oracle:GoldResolver"),
                       ("stanza", "coref.english.stanza:StanzaResolver"),
                       ("corzu", "coref.spanish.corzu:CorzuResolver"),
                       ("spanish", "coref.spanish.ranker:SpanishResolver")):
    BACKENDS.declare(_name, _target)


def build_backend(name: str, options: BackendOptions) -> Backend:
    """The backend called `name`, built from `options`; a CadError naming the backends there are
    when none is called so."""
    return BACKENDS.get(name).from_options(options)


def get_backend(name: str, pronouns: Sequence[str] = COREF_PRONOUNS, **options: Any) -> Backend:
    """The backend called `name`, built from `options` (BackendOptions' names: `model` is the
    ranker's or the Spanish resolver's model file, default the one shipped with cad; `gold` the gold
    backend's annotation; `corzu`, `docs` and `n_lines` CorZu's records for a text of `n_lines` lines
    split into documents by `docs`; `human_lexicon` a learned human-noun lexicon (cad/lexicons/humanness.py)
    and `gender_lexicon` the learned gender of person names (cad/lexicons/name_gender.py) of the Spanish
    backends)."""
    return build_backend(name, BackendOptions.of(pronouns, **options))


def model_backends() -> list[str]:
    """The backends that read a trained model file."""
    return [name for name, cls in BACKENDS.classes() if getattr(cls, "reads_model", False)]


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


def resolve_documents(backend: Backend, docs) -> list[PronounResolution]:
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
