"""`cad lm`'s compiled engine (cad/lm/_kn.cpp): the same estimate as cad.lm.kneser_ney.estimate
followed by cad.lm.arpa.write_arpa, byte for byte, at a fraction of the time and in a memory budget
(sorted runs spilled to a temporary directory once the n-grams outgrow it)."""

from __future__ import annotations

import io
import logging
import os
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from typing import Iterable

from cad.core.errors import CadError
from cad.core.textio import atomic_output, read_line_chunks
from cad.lm.kneser_ney import discounts_from_counts_of_counts

try:
    from cad.lm import _kn
except ImportError:     # not compiled: the Python engine still runs (available() says so)
    _kn = None

log = logging.getLogger(__name__)

BATCH = 4_096       # sentences handed to the counter at once
CHUNK_BYTES = 1 << 20       # bytes of a file handed to the counter at once
DEFAULT_MEMORY = 1 << 30
# two threads at most share the estimator's work (counting while reading, the sorts, the ARPA
# formatting); a machine of one core gains nothing
DEFAULT_THREADS = min(2, os.cpu_count() or 1)
# below this a size is more likely a forgotten unit (--memory 500) than a wish for millions of runs
MIN_MEMORY = 1 << 20
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(?:([KMGT])(?:I?B)?|B)?")


def parse_memory(text: str) -> int:
    """Bytes of a size such as 500M, 2G, 1.5G or 1073741824 (K, M, G, T: powers of 1024; a
    trailing B or iB is allowed); at least MIN_MEMORY."""
    m = _SIZE.fullmatch(text.strip().upper())
    if not m:
        raise CadError(f"invalid memory size {text!r}: give bytes or a number with K, M, G or T (e.g. 500M, 2G)")
    size = int(Fraction(m.group(1)) * _UNITS[m.group(2) or ""])
    if size < MIN_MEMORY:
        raise CadError(f"memory size {text!r} is {size} bytes: give at least 1M (units K, M, G, T)")
    return size


def available() -> bool:
    return _kn is not None


def estimate_to_arpa(sentences: Iterable[list[str]], order: int, out: str | os.PathLike,
                     discount_fallback: bool = True, memory: int = DEFAULT_MEMORY,
                     temp_dir: str | os.PathLike | None = None, threads: int = DEFAULT_THREADS) -> int:
    """Estimate the model of `sentences` (token lists) and write it as ARPA to `out` ('-' = stdout),
    holding about `memory` bytes of n-grams (plus the vocabulary); the rest goes to sorted runs in a
    private directory under `temp_dir` (default: the system's), removed whatever happens. Returns
    the number of temporary files written (0: everything fitted in memory). `threads` (1 or 2) share
    the counting, the sorts and the formatting; the bytes are the same whatever their number."""
    return _estimate(lambda counter: _count(counter, sentences), order, out, discount_fallback, memory, temp_dir,
                     threads)


def estimate_file_to_arpa(text: str | os.PathLike, order: int, out: str | os.PathLike,
                          discount_fallback: bool = True, memory: int = DEFAULT_MEMORY,
                          temp_dir: str | os.PathLike | None = None, threads: int = DEFAULT_THREADS) -> int:
    """estimate_to_arpa of the lines of the UTF-8 file `text` (plain or .gz, '-' = stdin), each split
    at whitespace as str.split() splits it, blank lines skipped: the file is handed to the counter in
    chunks of bytes, which it splits itself, with no Python object per line or word."""
    return _estimate(lambda counter: _count_file(counter, text), order, out, discount_fallback, memory, temp_dir,
                     threads)


def _estimate(count, order: int, out: str | os.PathLike, discount_fallback: bool, memory: int,
              temp_dir: str | os.PathLike | None, threads: int) -> int:
    if order < 1:
        raise CadError(f"language model order must be at least 1, got {order}")
    if memory < 1:
        raise CadError(f"the memory budget must be positive, got {memory}")
    if threads < 1:
        raise CadError(f"the number of threads must be at least 1, got {threads}")
    if not available():
        raise CadError("the compiled language-model estimator (cad.lm._kn) is not built; run pip install -e . "
                       "(needs a C++ compiler) or use --engine python")
    tmp = tempfile.gettempdir() if temp_dir is None else os.fspath(temp_dir)
    # checked now, not at the first spill, which a small corpus never reaches
    if not os.path.isdir(tmp):
        raise CadError(f"temporary directory {tmp} does not exist or is not a directory")
    counter = _kn.KneserNeyCounter(order, memory, tmp, threads)
    try:
        count(counter)
        _check_counted(counter)
        discounts = [discounts_from_counts_of_counts(list(t), n + 1, discount_fallback)
                     for n, t in enumerate(counter.counts_of_counts())]
        with atomic_output(out, binary=True) as fh:
            # a plain file (not standard output's buffer, not gzip) is written by the formatting
            # threads themselves, without a pass through Python
            fd = -1
            if isinstance(fh, io.BufferedWriter):
                fh.flush()
                fd = fh.fileno()
            try:
                counter.write_arpa([list(d) for d in discounts], fh.write, fd)
            except _kn.OutputError as exc:
                raise CadError(f"cannot write: {exc}; nothing was written there", os.fspath(out)) from None
        files = counter.temp_files()
    except _kn.TempFileError as exc:
        raise CadError(f"language model estimation: {exc} (temporary files under {tmp}: see --temp-dir, "
                       f"or a larger --memory to spill less)") from None
    finally:
        counter.close()
    if files:
        log.info("the n-grams outgrew the memory budget (%d bytes): spilled to %d temporary files under %s",
                 memory, files, tmp)
    return files


def _count(counter: _kn.KneserNeyCounter, sentences: Iterable[list[str]]) -> None:
    # the counter counts a batch (without the GIL) while the next one is read; one batch at a time
    batch: list[str] = []
    with ThreadPoolExecutor(1) as pool:
        pending = None
        for toks in sentences:
            if toks:
                batch.append(" ".join(toks))
                if len(batch) >= BATCH:
                    if pending is not None:
                        pending.result()
                    pending = pool.submit(counter.add, "\n".join(batch))
                    batch = []
            else:
                # the Python estimate pads an empty sentence as <s> </s>; the counter's text format
                # cannot carry one, and every caller skips blank lines
                raise CadError("an empty sentence cannot be counted (skip blank lines)")
        if pending is not None:
            pending.result()
    if batch:
        counter.add("\n".join(batch))


def _count_file(counter: _kn.KneserNeyCounter, text: str | os.PathLike) -> None:
    # one chunk counted (without the GIL) while the next is read and checked
    with ThreadPoolExecutor(1) as pool:
        pending = None
        for chunk in read_line_chunks(text, CHUNK_BYTES):
            if pending is not None:
                pending.result()
            pending = pool.submit(counter.add_lines, chunk)
        if pending is not None:
            pending.result()


def _check_counted(counter: _kn.KneserNeyCounter) -> None:
    if counter.sentences() == 0:
        raise CadError("cannot estimate a language model from an empty corpus")
    if counter.reserved():
        raise CadError("the corpus contains <s> or </s> tokens")
