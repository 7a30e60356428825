"""Run eflomal in both directions and symmetrize, writing Moses `i-j` alignment lines.

One sampler per direction by default: with several, eflomal's threads race and the output changes
from run to run even with a fixed seed.

eflomal seeds its sampler from /dev/urandom and has no seed option. For reproducible output cad
compiles a tiny fopen() shim (seed_urandom.c) once and preloads it, so the seed bytes come from a
file generated from `seed`. Without a C compiler the alignment still runs, but is not
reproducible, and a warning says so.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import random
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Iterable

from cad.core.alignment import format_alignment, parse_alignment
from cad.corpus.symmetrize import symmetrize
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import atomic_output, count_lines, read_lines, read_parallel

log = logging.getLogger(__name__)

_SHIM_SRC = Path(__file__).with_name("seed_urandom.c")


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cad"


def seed_shim() -> Path | None:
    """Path of the compiled fopen shim, building it on first use; None if no compiler."""
    src = _SHIM_SRC.read_bytes()
    digest = hashlib.sha1(src).hexdigest()[:12]
    out = _cache_dir() / f"seed_urandom-{digest}.so"
    if out.exists():
        return out
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if not cc:
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(f".{os.getpid()}.tmp")
    res = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(tmp), str(_SHIM_SRC), "-ldl"],
                         capture_output=True, text=True)
    if res.returncode != 0:
        log.warning("could not build the eflomal seed shim: %s", res.stderr.strip())
        return None
    os.replace(tmp, out)
    return out


@contextlib.contextmanager
def _seeded_env(seed: int, workdir: Path):
    shim = seed_shim()
    saved = {k: os.environ.get(k) for k in ("LD_PRELOAD", "CAD_EFLOMAL_SEED_FILE", "OMP_NUM_THREADS")}
    if shim is None:
        log.warning("no C compiler: eflomal alignments will not be reproducible")
    else:
        seed_file = workdir / "seed.bin"
        seed_file.write_bytes(random.Random(seed).randbytes(1 << 16))
        os.environ["LD_PRELOAD"] = str(shim) + (":" + saved["LD_PRELOAD"] if saved["LD_PRELOAD"] else "")
        os.environ["CAD_EFLOMAL_SEED_FILE"] = str(seed_file)
    # eflomal aligns the two directions in one OpenMP loop and each thread seeds itself from
    # /dev/urandom, which the shim reads at the thread's own offset: two threads give each direction
    # its own seed; one thread (one core, or OMP_NUM_THREADS=1, which a Dask nanny leaks into its
    # parent's environment) would seed both alike and align otherwise
    os.environ["OMP_NUM_THREADS"] = "2"
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run_eflomal(src_lines: Iterable[str] | Path, tgt_lines: Iterable[str] | Path, fwd_out: Path, rev_out: Path,
                seed: int = 1, n_samplers: int = 1, model: int = 3) -> None:
    """Align with eflomal, writing forward and reverse links (both as source-target points)."""
    # loaded only to align: `cad train` imports this module for every stage it runs
    import eflomal

    with tempfile.TemporaryDirectory(prefix="cad-eflomal-") as tmp:
        tmpdir = Path(tmp)
        with _seeded_env(seed, tmpdir):
            aligner = eflomal.Aligner(model=model, n_samplers=n_samplers)
            src_it = read_lines(src_lines) if isinstance(src_lines, Path) else iter(src_lines)
            tgt_it = read_lines(tgt_lines) if isinstance(tgt_lines, Path) else iter(tgt_lines)
            aligner.align((s + "\n" for s in src_it), (t + "\n" for t in tgt_it),
                          links_filename_fwd=str(fwd_out), links_filename_rev=str(rev_out), quiet=True)


def align_corpus(src: Path, tgt: Path, out: Path, extra: tuple[Path, Path, Path] | None = None,
                 method: str = "grow-diag-final-and", seed: int = 1, n_samplers: int = 1) -> int:
    """Word-align `src`/`tgt` into `out` (Moses i-j lines); return the number of training pairs.

    With `extra` = (test_src, test_tgt, test_out), the test set is appended to the training corpus
    for alignment and its alignments are written separately, as is usual for test sets too small
    to align alone. The corpus is streamed from disk (eflomal itself holds it in memory).
    """
    parts = [(src, tgt)] + ([(extra[0], extra[1])] if extra is not None else [])
    n_train = count_lines(src)
    with tempfile.TemporaryDirectory(prefix="cad-align-") as tmp:
        fwd, rev = Path(tmp) / "fwd", Path(tmp) / "rev"
        log.info("aligning %d+ sentence pairs with eflomal (both directions)", n_train)
        run_eflomal((p[0] for p in _sentence_pairs(parts)), (p[1] for p in _sentence_pairs(parts)),
                    fwd, rev, seed=seed, n_samplers=n_samplers)
        with contextlib.ExitStack() as stack:
            train_out = stack.enter_context(atomic_output(out))
            test_out = stack.enter_context(atomic_output(extra[2])) if extra is not None else None
            links = read_parallel([fwd, rev])
            for k, ((s, t), (_, (lf, lr))) in enumerate(
                    progress(zip(_sentence_pairs(parts), links), total=n_train, desc="symmetrize")):
                ns, nt = len(s.split()), len(t.split())
                a = symmetrize(parse_alignment(lf, ns, nt, str(fwd), k + 1),
                               parse_alignment(lr, ns, nt, str(rev), k + 1), ns, nt, method)
                (train_out if k < n_train else test_out).write(format_alignment(a) + "\n")
    return n_train


def _sentence_pairs(parts):
    for src, tgt in parts:
        for lineno, (s, t) in read_parallel([src, tgt]):
            if not s.strip() or not t.strip():
                raise CadError("empty sentence: alignment needs tokens on both sides",
                               str(src if not s.strip() else tgt), lineno)
            yield s, t
