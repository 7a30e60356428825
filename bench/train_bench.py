"""Throughput and peak memory of the training stages on the shared English-French corpus.

    python bench/train_bench.py [--data ../shared/data] [--replicate N] [--stages align,extract,lm]

lmplz (KenLM) takes 1.15 s for the same 5-gram model on a machine of this class (measured once by
the issue's author; lmplz is not installable here), Moses's extract + score 66.7 s.

Each stage runs as its own `cad` process so that its peak RSS is measured alone (wait4 rusage).
`--replicate N` repeats the corpus (and its alignment) N times before extraction, to show that the
memory of extraction and scoring does not grow with the corpus (N=31 gives about 1M pairs).

The lm stage also runs the native engine in a small budget (`--lm-memory`, 50M) on the French side
and on it replicated (N times, 4 without --replicate) with the words of each copy renamed, so that
the copies add distinct n-grams (identical copies would add none): its peak RSS should barely move.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(args: list[str]) -> tuple[float, float]:
    """Run `python -m cad ARGS`; return (seconds, peak RSS in MiB)."""
    t = time.time()
    proc = subprocess.Popen([sys.executable, "-m", "cad", "-q", *args], cwd=REPO)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"cad {' '.join(args)} failed with status {proc.returncode}")
    return time.time() - t, usage.ru_maxrss / 1024


def replicate(src: Path, dst: Path, n: int) -> None:
    with open(dst, "wb") as out:
        for _ in range(n):
            with open(src, "rb") as fh:
                shutil.copyfileobj(fh, out)


def replicate_renamed(src: Path, dst: Path, n: int) -> None:
    """`n` copies of `src`, the words of copy k > 0 suffixed with |k: n times its distinct n-grams."""
    with open(src, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    with open(dst, "w", encoding="utf-8") as out:
        for k in range(n):
            for line in lines:
                out.write((" ".join(f"{w}|{k}" for w in line.split()) if k else line) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--replicate", type=int, default=1)
    ap.add_argument("--stages", default="align,extract,lm")
    ap.add_argument("--lm-memory", default="50M", help="cad lm --memory for the budget runs of the lm stage")
    a = ap.parse_args()
    corpus = Path(a.data) / "en-fr" / "train"
    if not Path(f"{corpus}.en").exists():
        raise SystemExit(f"shared corpus not found at {corpus}.en: pass --data")
    stages = a.stages.split(",")
    with tempfile.TemporaryDirectory(prefix="cad-bench-") as tmp:
        work = Path(tmp)
        src, tgt = Path(f"{corpus}.en"), Path(f"{corpus}.fr")
        n = sum(1 for _ in open(src, "rb"))
        print(f"corpus: {n} sentence pairs ({corpus})")
        align = work / "aligned"
        # the alignment is for extraction: `--stages lm` alone stays cheap
        if "align" in stages or "extract" in stages:
            secs, rss = run(["align", "--src", str(src), "--tgt", str(tgt), "--out", str(align)])
        if "align" in stages:
            print(f"align (eflomal both ways + grow-diag-final-and): {secs:.1f} s, "
                  f"{n / secs:.0f} sentence pairs/s, peak RSS {rss:.0f} MiB")
        if "extract" in stages:
            if a.replicate > 1:
                for f, name in ((src, "c.en"), (tgt, "c.fr"), (align, "c.al")):
                    replicate(f, work / name, a.replicate)
                src, tgt, align = work / "c.en", work / "c.fr", work / "c.al"
            m = n * a.replicate
            secs, rss = run(["lex", "--src", str(src), "--tgt", str(tgt), "--align", str(align),
                             "--out", str(work / "lex")])
            print(f"lexical tables: {secs:.1f} s, {m / secs:.0f} sentence pairs/s, peak RSS {rss:.0f} MiB")
            # both engines side by side in one run (the Python one only on the unreplicated corpus)
            times = {}
            for engine in ("native", "python") if a.replicate == 1 else ("native",):
                secs, rss = run(["extract", "--src", str(src), "--tgt", str(tgt), "--align", str(align),
                                 "--lex", str(work / "lex"), "--phrase-table", str(work / f"pt.{engine}.gz"),
                                 "--reordering-table", str(work / f"ro.{engine}.gz"), "--engine", engine])
                times[engine] = secs
                print(f"extraction + scoring, {engine} engine ({m} pairs): {secs:.1f} s, "
                      f"{m / secs:.0f} sentence pairs/s, peak RSS {rss:.0f} MiB")
            if len(times) == 2:
                same = all((work / f"{k}.native.gz").read_bytes() == (work / f"{k}.python.gz").read_bytes()
                           for k in ("pt", "ro"))
                print(f"extraction + scoring: native {times['python'] / times['native']:.1f}x faster than "
                      f"python, {'byte-identical' if same else 'DIFFERENT'} tables; Moses's extract + score: "
                      f"66.7 s")
        if "lm" in stages:
            # both engines side by side in one run; they must write the same bytes
            times = {}
            for engine in ("native", "python"):
                secs, rss = run(["lm", "--text", str(Path(f"{corpus}.fr")), "--order", "5", "--engine", engine,
                                 "--out", str(work / f"lm.{engine}.arpa")])
                times[engine] = secs
                print(f"5-gram LM estimation, {engine} engine: {secs:.2f} s, {n / secs:.0f} sentences/s, "
                      f"peak RSS {rss:.0f} MiB")
            # compared in chunks: a child's peak RSS (wait4) starts from this process's, which
            # holding two ARPA files would raise above the children measured next
            same = filecmp.cmp(work / "lm.native.arpa", work / "lm.python.arpa", shallow=False)
            print(f"5-gram LM: native {times['python'] / times['native']:.1f}x faster than python, "
                  f"{'byte-identical' if same else 'DIFFERENT'} output")
            # in a small budget (sorted runs on disk) the memory is flat in the corpus size
            k = a.replicate if a.replicate > 1 else 4
            replicate_renamed(Path(f"{corpus}.fr"), work / "lm.rep.fr", k)
            for name, text, sents in ((f"{n} sentences", Path(f"{corpus}.fr"), n),
                                      (f"{k}x replicated, renamed", work / "lm.rep.fr", n * k)):
                out = work / f"lm.budget.{sents}.arpa"
                secs, rss = run(["lm", "--text", str(text), "--order", "5", "--memory", a.lm_memory,
                                 "--temp-dir", str(work), "--out", str(out)])
                print(f"5-gram LM, native engine, --memory {a.lm_memory}, {name}: {secs:.2f} s, "
                      f"{sents / secs:.0f} sentences/s, peak RSS {rss:.0f} MiB")
            same = filecmp.cmp(work / f"lm.budget.{n}.arpa", work / "lm.native.arpa", shallow=False)
            print(f"5-gram LM in --memory {a.lm_memory}: {'byte-identical' if same else 'DIFFERENT'} output")


if __name__ == "__main__":
    main()
