"""What the learned source-language lexicons (humanness.py, name_gender.py) share: their TSV layout
(a header, then one word a line, no duplicates) and the corpus options of their command lines."""

from __future__ import annotations

import argparse
import os
from typing import Iterator

from cad.core.errors import CadError
from cad.core.textio import read_lines


def lexicon_rows(path: str | os.PathLike, header: tuple[str, ...]) -> Iterator[tuple[int, str, list[str]]]:
    """(line number, word, the other columns) of each entry, after checking the header, the column
    count, the word and that no word comes twice; blank lines are skipped."""
    p = str(path)
    seen: set[str] = set()
    lineno = 0
    for lineno, line in enumerate(read_lines(p), 1):
        cols = line.split("\t")
        if lineno == 1:
            if tuple(cols) != header:
                raise CadError(f"expected the header {chr(9).join(header)!r}", p, lineno)
            continue
        if not line.strip():
            continue
        if len(cols) != len(header):
            raise CadError(f"expected {len(header)} tab-separated columns ({', '.join(header)}), "
                           f"found {len(cols)}", p, lineno)
        word = cols[0]
        if not word or word != word.strip():
            raise CadError(f"empty or space-padded word {word!r}", p, lineno)
        if word in seen:
            raise CadError(f"duplicate word {word!r}", p, lineno)
        seen.add(word)
        yield lineno, word, cols[1:]
    if lineno == 0:
        raise CadError("empty file: expected a header line", p, 1)


def add_corpus_arguments(p: argparse.ArgumentParser, target_reads: str) -> None:
    """--corpus, --src, --tgt; `target_reads`: what the target side is read for."""
    p.add_argument("--corpus", required=True, help="corpus prefix: reads PREFIX.SRC and PREFIX.TGT "
                   "(tokenized, lowercased, one sentence a line)")
    p.add_argument("--src", default="es", help="source language, the lexicon's (default: %(default)s)")
    p.add_argument("--tgt", default="en", help=f"target language, where {target_reads} "
                   "(default: %(default)s)")
