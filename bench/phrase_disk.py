"""The phrase stage's disk: `cad extract` on a model's corpus, alignment and lexical tables, its shards,
sort runs and tables all in one folder (TMPDIR there too), the folder's size sampled every second;
prints the wall time, the peak disk and the largest process's peak RSS.

    python bench/phrase_disk.py models/large [--workers 2] [--work DIR]

(docs/benchmarks.md, "The phrase stage's disk": 5,000 MiB at the peak on the large corpus.)
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def folder_size(path: Path) -> int:
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_blocks * 512
            except FileNotFoundError:          # a run removed while we walked
                pass
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="a model folder of cad train (corpus.*, aligned.grow-diag-final-and, lex.*)")
    ap.add_argument("--src", default="en")
    ap.add_argument("--tgt", default="fr")
    ap.add_argument("--workers", default="2")
    ap.add_argument("--work", help="the folder to extract into (default: a new temporary one, removed after)")
    a = ap.parse_args()
    m = Path(a.model)
    for need in (f"corpus.{a.src}", f"corpus.{a.tgt}", "aligned.grow-diag-final-and", "lex.e2f", "lex.f2e"):
        if not (m / need).is_file():
            print(f"phrase_disk: {m / need} not found (train the model first)", file=sys.stderr)
            return 2
    work = Path(a.work) if a.work else Path(tempfile.mkdtemp(prefix="phrase-disk-", dir=m.parent))
    (work / "tmp").mkdir(parents=True, exist_ok=True)
    peak, done = [0], threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], folder_size(work))
            done.wait(1.0)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    cmd = [sys.executable, "-m", "cad", "-q", "extract", "--src", str(m / f"corpus.{a.src}"),
           "--tgt", str(m / f"corpus.{a.tgt}"), "--align", str(m / "aligned.grow-diag-final-and"),
           "--lex", str(m / "lex"), "--phrase-table", str(work / "pt.gz"),
           "--reordering-table", str(work / "ro.gz"), "--workers", a.workers]
    t = time.time()
    rc = subprocess.run(cmd, env={**os.environ, "TMPDIR": str(work / "tmp")}).returncode
    wall = time.time() - t
    done.set()
    sampler.join()
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"phrase stage of {m}: exit {rc}, {wall:.1f} s wall, peak disk {peak[0] / 2**20:,.0f} MiB "
          f"(tables {folder_size(work) / 2**20:,.0f} MiB), largest process {rss:,.0f} MiB RSS")
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
