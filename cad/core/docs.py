"""Document boundary files (`.docs`): one line per document, `first_line<TAB>doc_id`, 0-based."""

from __future__ import annotations

import os
from array import array
from dataclasses import dataclass
from typing import Iterable, Iterator

from cad.core.errors import CadError
from cad.core.textio import atomic_output, read_lines, is_uint


@dataclass(frozen=True)
class DocStart:
    first_line: int
    doc_id: str


def iter_docs(path: str | os.PathLike, n_lines: int | None = None) -> Iterator[DocStart]:
    """Parse a .docs file; starts must be increasing, begin at 0 and lie inside the corpus. A line
    is `first_line<TAB>doc_id`, or `first_line` alone (the DiscoMT scorer's boundary files: the id
    is then the document's 0-based index), or the two separated by other white space."""
    previous = -1
    for lineno, line in enumerate(read_lines(path), 1):
        if not line.strip():
            raise CadError("empty line in document boundary file", str(path), lineno)
        parts = line.split("\t", 1) if "\t" in line else line.split(None, 1)
        if len(parts) == 1:
            parts.append(str(lineno - 1))
        if not is_uint(parts[0]) or not parts[1]:
            raise CadError("expected 'first_line<TAB>doc_id' or 'first_line'", str(path), lineno)
        start = int(parts[0])
        if previous >= 0 and start <= previous:
            raise CadError(
                f"document start {start} is not after the previous one ({previous})",
                str(path), lineno,
            )
        if previous < 0 and start != 0:
            raise CadError("the first document must start at line 0", str(path), lineno)
        if n_lines is not None and start >= n_lines:
            raise CadError(f"document start {start} is past the corpus end ({n_lines} lines)", str(path), lineno)
        previous = start
        yield DocStart(start, parts[1])


def read_docs(path: str | os.PathLike, n_lines: int | None = None) -> list[DocStart]:
    """iter_docs's documents as a list."""
    return list(iter_docs(path, n_lines))


def doc_starts(path: str | os.PathLike, n_lines: int | None = None) -> array:
    """Only the documents' first lines, 8 bytes each: what cutting a corpus into shards needs,
    without an object per document (200k documents made 40 MiB of DocStart)."""
    return array("q", (d.first_line for d in iter_docs(path, n_lines)))


def doc_index_of_lines(docs: list[DocStart], n_lines: int) -> list[int]:
    """Map every corpus line to the index of its document."""
    out = [0] * n_lines
    for k, d in enumerate(docs):
        end = docs[k + 1].first_line if k + 1 < len(docs) else n_lines
        for i in range(d.first_line, end):
            out[i] = k
    return out


def write_docs(path: str | os.PathLike, docs: Iterable[DocStart]) -> None:
    with atomic_output(path) as fh:
        for d in docs:
            fh.write(f"{d.first_line}\t{d.doc_id}\n")


def domain_weight(doc_id: str | None, weights: dict[str, float]) -> float:
    """The weight of a document by the domain its id names before a colon (`sated:talk` under
    `{"sated": 3}`); 1 where the id names none that `weights` has, or the corpus has no ids."""
    if not weights or doc_id is None or ":" not in doc_id:
        return 1.0
    return weights.get(doc_id.split(":", 1)[0], 1.0)
