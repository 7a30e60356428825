"""`cad lex`'s compiled engine (cad/train/_lex.cpp): the lex.f2e and lex.e2f that
cad.train.lexical's Python counter writes (the reference), byte for byte, and the same errors.

The three inputs are streamed; memory is the distinct words and word pairs (about 730,000 pairs
for the large corpus's 977,646 sentences), not the corpus."""

from __future__ import annotations

import os

from cad.core.errors import CadError
from cad.core.textio import atomic_output, is_stdio

try:
    from cad.train import _lex
except ImportError:     # not compiled: the Python engine still runs (available() says so)
    _lex = None

ENGINES = ("native", "python")


def available() -> bool:
    return _lex is not None


def check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise CadError(f"unknown lex engine {engine!r} (choose from {', '.join(ENGINES)})")
    if engine == "native" and not available():
        raise CadError("the compiled word-pair counter (cad.train._lex) is not built; run pip install -e . "
                       "(needs a C++ compiler) or use --engine python")


def readable_files(*paths: str | os.PathLike) -> bool:
    """Whether the compiled reader can take every input: regular files it may read. Standard input,
    and a file missing or not readable, go to the Python reader, which reads '-' and fails on the
    others with its own errors, in its own order (a first line's bad UTF-8 before the next file's
    absence)."""
    return all(not is_stdio(p) and os.path.isfile(p) and os.access(p, os.R_OK) for p in paths)


def write_lexical_tables(src, tgt, align, out_prefix: str) -> int:
    """lexical.write_lexical_tables's files from regular files (see readable_files); the number
    of sentence pairs."""
    check_engine("native")
    tables = _lex.Tables(str(src), str(tgt), str(align))
    try:
        lines = tables.count()
        f2e, e2f = f"{out_prefix}.f2e", f"{out_prefix}.e2f"
        # as the Python writer: the outputs opened once everything is counted, both renamed into
        # place only if both were written
        with atomic_output(f2e, binary=True, compress=False) as a, \
                atomic_output(e2f, binary=True, compress=False) as b:
            a.flush()
            b.flush()                       # the core writes to the descriptors itself
            tables.write(a.fileno(), f2e, b.fileno(), e2f)
    except _lex.LexError as exc:
        message, where, line = exc.args
        raise CadError(message, where, line) from None
    return lines
