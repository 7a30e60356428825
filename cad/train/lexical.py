"""Word translation tables lex.f2e / lex.e2f, computed as Moses's train-model.perl does.

From a word-aligned corpus: w(e|f) = c(f,e)/c(f) and w(f|e) = c(f,e)/c(e), where unaligned words
are counted against NULL. lex.f2e lines are `e f w(e|f)`, lex.e2f lines are `f e w(f|e)`, both
with 7 decimals; the scorers read the rounded values back, as Moses's `score` does.

This module is the reference; cad/train/_lex.cpp (cad.train.lexical_native, the default engine)
writes the same bytes in a fraction of the time.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Iterable

from cad.core.alignment import parse_alignment
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import atomic_output, read_lines, read_parallel

NULL = "NULL"

LexTable = dict[tuple[str, str], float]


def count_word_pairs(rows: Iterable[tuple[list[str], list[str], list[tuple[int, int]]]]):
    pair: Counter[tuple[str, str]] = Counter()
    total_f: Counter[str] = Counter()
    total_e: Counter[str] = Counter()
    for src, tgt, points in rows:
        src_aligned = [False] * len(src)
        tgt_aligned = [False] * len(tgt)
        for i, j in points:
            src_aligned[i] = True
            tgt_aligned[j] = True
            f, e = src[i], tgt[j]
            pair[f, e] += 1
            total_f[f] += 1
            total_e[e] += 1
        for j, ok in enumerate(tgt_aligned):
            if not ok:
                pair[NULL, tgt[j]] += 1
                total_e[tgt[j]] += 1
                total_f[NULL] += 1
        for i, ok in enumerate(src_aligned):
            if not ok:
                pair[src[i], NULL] += 1
                total_f[src[i]] += 1
                total_e[NULL] += 1
    return pair, total_f, total_e


def aligned_corpus(src: str | os.PathLike, tgt: str | os.PathLike, align: str | os.PathLike):
    """Yield (source tokens, target tokens, points), checking every point against the lengths."""
    for lineno, (s, t, a) in read_parallel([src, tgt, align]):
        yield aligned_row(s, t, a, lineno, src, tgt, align)


def aligned_row(s: str, t: str, a: str, lineno: int, src: str | os.PathLike, tgt: str | os.PathLike,
                align: str | os.PathLike) -> tuple[list[str], list[str], list[tuple[int, int]]]:
    """One line of each file (line `lineno` of the files named for errors) as aligned_corpus yields it."""
    ss, tt = s.split(), t.split()
    if not ss or not tt:
        raise CadError("empty sentence in aligned corpus", str(src if not ss else tgt), lineno)
    return ss, tt, parse_alignment(a, len(ss), len(tt), str(align), lineno)


def write_lexical_tables(src, tgt, align, out_prefix: str, total: int | None = None, engine: str = "native") -> None:
    """OUT_PREFIX.f2e and OUT_PREFIX.e2f of the aligned corpus; `engine` "native" (compiled) or
    "python" (this module), the same bytes and errors either way."""
    from cad.train import lexical_native

    lexical_native.check_engine(engine)
    # standard input or a file the compiled reader cannot open: this reader, which reads '-' and
    # says what is wrong with the others
    if engine == "native" and lexical_native.readable_files(src, tgt, align):
        lexical_native.write_lexical_tables(src, tgt, align, out_prefix)
        return
    pair, total_f, total_e = count_word_pairs(progress(aligned_corpus(src, tgt, align), total=total, desc="lex"))
    with atomic_output(f"{out_prefix}.f2e") as f2e, atomic_output(f"{out_prefix}.e2f") as e2f:
        for (f, e), c in sorted(pair.items()):
            f2e.write(f"{e} {f} {c / total_f[f]:.7f}\n")
            e2f.write(f"{f} {e} {c / total_e[e]:.7f}\n")


def read_lexical_table(path: str | os.PathLike) -> LexTable:
    """Read `a b p` lines into {(b, a): p}: for lex.f2e that is {(f, e): w(e|f)}."""
    table: LexTable = {}
    for lineno, line in enumerate(read_lines(path), 1):
        parts = line.split(" ")
        if len(parts) != 3:
            raise CadError("expected 'word word probability'", str(path), lineno)
        try:
            table[parts[1], parts[0]] = float(parts[2])
        except ValueError:
            raise CadError(f"bad probability {parts[2]!r}", str(path), lineno) from None
    return table
