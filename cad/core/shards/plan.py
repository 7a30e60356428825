"""Cutting a corpus into shards of whole documents, and each shard's slice of the inputs with its fingerprint."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Callable, Iterator, Mapping, Sequence

from cad import __version__
from cad.core.errors import CadError
from cad.core.textio import count_lines, is_stdio, read_parallel


@dataclass(frozen=True)
class Shard:
    """Documents [first_doc, end_doc) on lines [first_line, end_line) (0-based); a corpus without
    documents is cut by lines, and its shards' "documents" are its lines."""

    index: int
    first_doc: int
    end_doc: int
    first_line: int
    end_line: int
    by_document: bool = True

    def describe(self) -> str:
        lines = f"lines {self.first_line + 1}-{self.end_line}"
        if not self.by_document:
            return lines
        return f"documents {self.first_doc}-{self.end_doc - 1}, {lines}"


def plan_shards(n_lines: int, doc_starts: Sequence[int] | None, shard_lines: int) -> list[Shard]:
    """Shards of whole documents (`doc_starts`: each document's first line, 0-based, increasing from
    0), each closed at the end of the document that brings it to at least `shard_lines` lines; with
    no documents, shards of `shard_lines` lines. The cut depends on nothing else, in particular not
    on who runs the shards, which is what keeps the merged output the same bytes."""
    if shard_lines < 1:
        raise ValueError("shard_lines must be at least 1")
    shards: list[Shard] = []
    if doc_starts is None:
        for first in range(0, n_lines, shard_lines):
            end = min(first + shard_lines, n_lines)
            shards.append(Shard(len(shards), first, end, first, end, by_document=False))
        return shards
    n_docs = len(doc_starts)
    first_doc = 0
    for k in range(n_docs):
        end = doc_starts[k + 1] if k + 1 < n_docs else n_lines
        if end - doc_starts[first_doc] >= shard_lines or k + 1 == n_docs:
            shards.append(Shard(len(shards), first_doc, k + 1, doc_starts[first_doc], end))
            first_doc = k + 1
    return shards


@dataclass
class ShardTask:
    """What one task gets: its shard, the shard's lines of each input by name, and the fingerprint
    of all that (with the stage's options), which decides whether a finished shard can be reused."""

    shard: Shard
    data: dict[str, list[str]]
    fingerprint: str


def fingerprint_salt(stage: str, options: Mapping[str, object], files: Sequence[str | os.PathLike | None] = ()
                     ) -> str:
    """The part of every shard's fingerprint that is not its input text: the stage, cad's version,
    the options that change a shard's output, and the size and time of files those options name
    (models, lexicons), which are too big to hash for every shard."""
    stamps = []
    for f in files:
        if f is None:
            continue
        try:
            st = os.stat(f)
            stamps.append([str(f), st.st_size, st.st_mtime_ns])
        except OSError:
            stamps.append([str(f), None, None])
    return json.dumps({"stage": stage, "cad": __version__, "options": options, "files": stamps},
                      sort_keys=True, default=str)


def _fingerprint(salt: str, shard: Shard, data: Mapping[str, list[str]]) -> str:
    h = hashlib.sha256(salt.encode("utf-8"))
    h.update(f"\0{shard.first_doc} {shard.end_doc} {shard.first_line} {shard.end_line}\0".encode())
    for name in sorted(data):
        lines = data[name]
        # the count and the lines (which hold no newline) make the joined text unambiguous
        h.update(f"\0{name} {len(lines)}\0".encode("utf-8"))
        h.update("\n".join(lines).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _same_length(paths: Sequence[str | os.PathLike]) -> None:
    """Files of different lengths fail before the first shard runs, not after the last (a
    stream, '-', is read once, and checked by read_parallel at its end)."""
    counts = [(str(p), count_lines(p)) for p in paths if not is_stdio(p)]
    for path, n in counts[1:]:
        if n != counts[0][1]:
            short, long_ = min(counts[0], (path, n), key=lambda c: c[1]), max(counts[0], (path, n), key=lambda c: c[1])
            raise CadError(f"has {short[1]} lines but {long_[0]} has {long_[1]}: parallel files must have the same "
                           "number of lines", short[0], short[1] + 1)


def shard_tasks(shards: Sequence[Shard], inputs: Mapping[str, str | os.PathLike], salt: str,
                extra: Callable[[Shard], dict[str, list[str]]] | None = None) -> Iterator[ShardTask]:
    """Stream the line-parallel `inputs` (read once, in corpus order, with read_parallel's checks of
    UTF-8 and equal lengths) and yield each shard's task; `extra(shard)` adds data that is not
    line-parallel (a shard's documents' ids, its coreference records)."""
    names = list(inputs)
    _same_length([inputs[n] for n in names])
    rows = read_parallel([inputs[n] for n in names])
    for shard in shards:
        data: dict[str, list[str]] = {n: [] for n in names}
        for lineno in range(shard.first_line + 1, shard.end_line + 1):
            try:
                _, row = next(rows)
            except StopIteration:
                raise CadError("the file ended early: it changed while it was read", str(inputs[names[0]]),
                               lineno) from None
            for n, line in zip(names, row):
                data[n].append(line)
        if extra is not None:
            data.update(extra(shard))
        yield ShardTask(shard, data, _fingerprint(salt, shard, data))
    # the first input's length made the plan: a longer one is an error, as read_parallel says
    for _ in rows:
        pass
