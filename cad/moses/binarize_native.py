"""`cad binarize`'s compiled engine (cad/moses/_binarize.cpp): the phrase and reordering tables
binarize_phrase_table and binarize_reordering_table of cad/moses/binarized.py write (the
reference), byte for byte, pruned alike (with the same file of kept pairs between the two), and the
same errors.

The text table is streamed, gunzipped on a second thread. Memory: a few chunks of 4 MB, one run
of lines with the same source phrase, and the index, 16 bytes a record (a run of a source phrase:
about 370 MB for the 23 million of a 50-million-line table)."""

from __future__ import annotations

import os

from cad.core.errors import CadError
from cad.core.textio import atomic_output, is_stdio
from cad.moses.binarized import PRUNE_SCORE, best_entries, source_stamp

try:
    from cad.moses import _binarize
except ImportError:     # not compiled: the Python engine still runs (available() says so)
    _binarize = None

ENGINES = ("native", "python")


def available() -> bool:
    return _binarize is not None


def check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise CadError(f"unknown binarize engine {engine!r} (choose from {', '.join(ENGINES)})")
    if engine == "native" and not available():
        raise CadError("the compiled binarizer (cad.moses._binarize) is not built; run pip install -e . "
                       "(needs a C++ compiler) or use --engine python")


def binarize_phrase_table(text: str | os.PathLike, out: str | os.PathLike, num_scores: int, name: str = "",
                          prune: int = 0, kept: str | os.PathLike | None = None) -> tuple[int, int]:
    """binarized.binarize_phrase_table; `prune` N > 0: the Pruner's N best entries of each source
    phrase, their targets written to the file `kept` as the Pruner writes them. (lines read,
    entries pruned)."""
    what = f"{name or 'the phrase table'} declares num-features={num_scores}"
    if prune and num_scores <= PRUNE_SCORE:
        raise CadError(f"--prune ranks by p(e|f), the third score, but {what}", str(text))
    if prune and kept is None:
        raise ValueError("pruning writes the kept pairs: give their file")
    return _write(_binarize.write_phrase_table, text, out, num_scores, what, prune, kept=str(kept or ""),
                  rank=best_entries)


def binarize_reordering_table(text: str | os.PathLike, out: str | os.PathLike, num_scores: int,
                              kept: str | os.PathLike | None = None, phrase_table: str = "the phrase table",
                              prune: int = 0) -> int:
    """binarized.binarize_reordering_table, with KeptPairs(kept, phrase_table) when `kept` is given
    (`prune`: the phrase table's N, for the header); the number of lines."""
    return _write(_binarize.write_reordering_table, text, out, num_scores,
                  f"the reordering model needs {num_scores}", prune, kept=str(kept or ""), phrase_table=phrase_table)


def _write(write, text, out, num_scores: int, what: str, prune: int, **kw):
    check_engine("native")
    if is_stdio(out):       # the header is written last, at the start: a file, not a stream
        raise CadError("a binary table is written to a file, not to standard output", str(out))
    path = str(text)
    size, mtime = source_stamp(path)            # before the first line, as the Python writer takes it
    if os.path.isdir(path):
        raise CadError("is a directory, expected a file", path)
    with atomic_output(out, binary=True, compress=False) as fh:
        fh.flush()                               # the core writes to the descriptor itself
        try:
            return write(path, path.endswith(".gz"), fh.fileno(), str(out), num_scores, what, size, mtime, prune, **kw)
        except _binarize.TableError as exc:
            message, where, line = exc.args
            raise CadError(message, where, line) from None


def check_text_table(text: str | os.PathLike, num_scores: int) -> int:
    """cad.moses.check.check_phrase_table by the compiled reader: the entries of a text phrase or
    reordering table, or the same CadError (message, file, line)."""
    check_engine("native")
    path = str(text)
    if os.path.isdir(path):
        raise CadError("is a directory, expected a file", path)
    try:
        return _binarize.check_text_table(path, path.endswith(".gz"), num_scores)
    except _binarize.TableError as exc:
        message, where, line = exc.args
        raise CadError(message, where, line) from None


def read_text_entries(text: str | os.PathLike, num_scores: int, what: str, wanted: set[str] | None,
                      phrase: bool) -> tuple[dict[str, str], int]:
    """cad/decoder/tables.py's reading of a text phrase table (`phrase`) or reordering table by the
    compiled reader: (source phrase -> its entries as the decoder keeps them, the most words a kept
    source phrase has), or the same CadError (message, file, line)."""
    check_engine("native")
    path = str(text)
    if os.path.isdir(path):
        raise CadError("is a directory, expected a file", path)
    try:
        return _binarize.read_text_entries(path, path.endswith(".gz"), num_scores, what, wanted, phrase)
    except _binarize.TableError as exc:
        message, where, line = exc.args
        raise CadError(message, where, line) from None


def pick_pairs(text: str, targets: list[str]) -> list[str | None]:
    """The scores text of each target among one source phrase's reordering entries as
    read_text_entries keeps them (its last entry's), or None: one pass, by the compiled module."""
    return _binarize.pick_pairs(text, targets)
