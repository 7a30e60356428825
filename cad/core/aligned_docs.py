"""Streaming a word-aligned parallel corpus document by document."""

from __future__ import annotations

from typing import Iterator

from cad.core.alignment import parse_alignment
from cad.core.docs import DocStart, read_docs
from cad.core.textio import count_lines, read_parallel


def aligned_documents(src_path: str, tgt_path: str, align: str, docs: str | None
                      ) -> Iterator[tuple[str, list[list[str]], list[list[str]], list[list[tuple[int, int]]]]]:
    """Yield (document index, source sentences, target sentences, alignments) in corpus order."""
    n = count_lines(src_path)
    starts = read_docs(docs, n) if docs else [DocStart(0, "0")]
    bounds = [d.first_line for d in starts] + [n]
    rows = read_parallel([src_path, tgt_path, align])
    for k in range(len(starts)):
        src, tgt, al = [], [], []
        for _ in range(bounds[k], bounds[k + 1]):
            lineno, (s, t, a) = next(rows)
            ss, tt = s.split(), t.split()
            src.append(ss)
            tgt.append(tt)
            al.append(parse_alignment(a, len(ss), len(tt), align, lineno))
        yield str(k), src, tgt, al
