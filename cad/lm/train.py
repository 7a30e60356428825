"""`cad lm` and the training pipeline's LM stage: a modified Kneser-Ney ARPA model of a text file,
by either engine (a module of its own: `cad lm` starts without the rest of the pipeline)."""

from __future__ import annotations

import os
from pathlib import Path

from cad.core.errors import CadError
from cad.core.textio import read_lines
from cad.lm.arpa import write_arpa
from cad.lm.kneser_ney import estimate
from cad.lm.native import DEFAULT_MEMORY, DEFAULT_THREADS, estimate_file_to_arpa


def train_lm(text: Path, out: Path, order: int, engine: str = "native", memory: int | None = None,
             temp_dir: str | os.PathLike | None = None, threads: int | None = None) -> None:
    """Modified Kneser-Ney ARPA of the non-blank lines of `text`; `engine` "native" (cad/lm/_kn.cpp)
    or "python" (cad.lm.kneser_ney, the reference), which write the same bytes. The native engine
    holds about `memory` bytes of n-grams (None: its default) and spills the rest under `temp_dir`;
    it works on `threads` threads (None: its default), which change no byte."""
    if engine == "native":
        estimate_file_to_arpa(text, order, out, memory=DEFAULT_MEMORY if memory is None else memory,
                              temp_dir=temp_dir, threads=DEFAULT_THREADS if threads is None else threads)
    elif engine == "python":
        write_arpa(estimate((line.split() for line in read_lines(text) if line.strip()), order), out)
    else:
        raise CadError(f"unknown language-model engine {engine!r} (native or python)")
