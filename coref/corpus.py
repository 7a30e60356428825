"""`cad coref`: a text resolved into pronoun records, over a corpus in shards of whole documents,
in parallel (cad/shards).

Every backend resolves one document at a time, so a shard's records are the records of its
documents, and the shards' records in shard order are, byte for byte, the file one process
writes. Each worker process loads its backend (spaCy, the ranker) once, for all its shards. A
text without document boundaries (one document), or a stream, is resolved in this process.
"""

from __future__ import annotations

import functools
import logging
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cad.core.docs import doc_starts
from cad.core.errors import CadError
from cad.core.shards import Parallel, ShardStore, ShardTask, fingerprint_salt, plan_shards, run_shards, shard_tasks
from cad.core.textio import atomic_output, count_lines, is_stdio
from coref.backends import BackendOptions, build_backend, documents, resolve_documents
from coref.records import record_line, write_jsonl

log = logging.getLogger("cad.coref")

# about 15 s of the ranker's parsing a shard on one core: the stage's progress moves, and a
# 10M-sentence corpus is 5,000 tasks, nothing for a Dask scheduler
DEFAULT_SHARD_LINES = 2000


@dataclass(frozen=True)
class BackendSpec:
    """A backend by name and its options: what a worker needs to build the same backend as this process."""

    name: str
    options: BackendOptions = field(default_factory=BackendOptions)

    def files(self) -> list[str]:
        return self.options.files()


@functools.lru_cache(maxsize=2)
def backend_of(spec: BackendSpec):
    return build_backend(spec.name, spec.options)


def resolve_shard(task: ShardTask, out: Path, spec: BackendSpec, text: str) -> None:
    """One shard's records, documents numbered by their index in the whole corpus as one process does."""
    lines = task.data["text"]
    first = task.shard.first_line
    sentences = []
    for k, line in enumerate(lines):
        toks = line.split()
        if not toks:
            raise CadError("empty line: every line must be a sentence", text, first + k + 1)
        sentences.append(toks)
    starts = [int(s) for s in task.data["starts"]] + [len(lines)]
    backend = backend_of(spec)
    records = []
    for d in range(len(starts) - 1):
        for r in backend.resolve(str(task.shard.first_doc + d), sentences[starts[d]:starts[d + 1]]):
            records.append(record_line(r))
    (out / "jsonl").write_text("".join(records), encoding="utf-8", newline="\n")


def resolve_corpus(text: str | os.PathLike, docs: str | os.PathLike, out: str | os.PathLike, spec: BackendSpec,
                   parallel: Parallel) -> int:
    """Resolve every document of `text` into the JSON Lines file `out` (shards kept in
    OUT.shards/ until then); returns the number of records."""
    t = time.time()
    n_lines = count_lines(text)
    starts = doc_starts(docs, n_lines)
    shards = plan_shards(n_lines, starts, parallel.lines(DEFAULT_SHARD_LINES))
    spec = BackendSpec(spec.name, spec.options.with_options(n_lines=n_lines))
    salt = fingerprint_salt("coref", asdict(spec), spec.files())

    def shard_starts(shard):
        return {"starts": [str(s - shard.first_line) for s in starts[shard.first_doc:shard.end_doc]]}

    store = ShardStore.beside(out)
    fn = functools.partial(resolve_shard, spec=spec, text=str(text))
    run_shards(shard_tasks(shards, {"text": text}, salt, shard_starts), len(shards), fn, store, parallel, "coref")
    n_records = 0
    with atomic_output(out, binary=True) as fh:
        for s in shards:
            data = store.part(s.index, "jsonl").read_bytes()
            n_records += data.count(b"\n")
            fh.write(data)
    store.remove()
    log.info("%d pronouns in %d documents, %.2f documents/s", n_records, len(starts),
             len(starts) / max(time.time() - t, 1e-9))
    return n_records


def resolve_text(text: str | os.PathLike, docs: str | os.PathLike | None, out: str | os.PathLike,
                 spec: BackendSpec, parallel: Parallel) -> None:
    """Resolve `text` into the JSON Lines file `out`: in shards (resolve_corpus) when `docs` splits
    it into documents and no file is a stream ('-'), else in this process."""
    if docs and not any(is_stdio(f) for f in (text, docs, out, *spec.files())):
        resolve_corpus(text, docs, out, spec, parallel)
        return
    # one document, or a stream: one process, no shards
    doc_list = documents(text, docs)
    backend = build_backend(spec.name, spec.options.with_options(n_lines=sum(len(sents) for _, sents in doc_list)))
    t = time.time()
    recs = resolve_documents(backend, doc_list)
    write_jsonl(recs, out)
    log.info("%d pronouns in %d documents, %.2f documents/s", len(recs), len(doc_list),
             len(doc_list) / max(time.time() - t, 1e-9))
