"""Speed and peak memory of the coreference backends on the training corpus (the `make cm` step).

    python bench/coref_bench.py [--data ../shared/data] [--backends ranker,sieve] [--documents N]
    python bench/coref_bench.py --backends ranker,ranker-nc=ranker-nc.json.gz

A backend is a name (`cad coref --backend NAME`) or LABEL=MODEL, the ranker with another model
file: e.g. one that reads neuralcoref's pretrained networks, made by `cad coref-train --neuralcoref
--data ../shared/data/coref --out ranker-nc.json.gz`. Each backend runs `cad coref` as its own
process over the first N documents of the prepared training corpus (all with --documents 0), side
by side in one run; prints seconds, sentences per second, seconds per 1,000 sentences, the projected
time for the whole corpus and peak RSS.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"), help="shared data folder")
    ap.add_argument("--model", default=str(REPO / "models" / "baseline"),
                    help="trained model folder with corpus.en and corpus.docs (default models/baseline)")
    ap.add_argument("--backends", default="ranker,sieve",
                    help="comma-separated backends, each NAME or LABEL=MODEL (the ranker with that model file; "
                         "default ranker,sieve)")
    ap.add_argument("--documents", type=int, default=2000, help="first N documents; 0 = all (default 2000)")
    a = ap.parse_args()
    model = Path(a.model)
    if not (model / "corpus.en").exists():
        sys.exit(f"coref_bench: {model}/corpus.en not found: run `make train` first")
    runs = []
    for spec in a.backends.split(","):
        b, sep, model_file = spec.partition("=")
        if sep and not Path(model_file).is_file():
            sys.exit(f"coref_bench: {model_file}: no such ranker model file")
        runs.append((b, ["--backend", "ranker", "--model", str(Path(model_file).resolve())] if sep else ["--backend", b]))
    lines = (model / "corpus.en").read_text(encoding="utf-8").splitlines()
    docs = (model / "corpus.docs").read_text(encoding="utf-8").splitlines()
    total = len(lines)
    with tempfile.TemporaryDirectory() as tmp:
        if a.documents and a.documents < len(docs):
            end = int(docs[a.documents].split("\t")[0])
            docs = docs[:a.documents]
        else:
            end = total
        (Path(tmp) / "in.en").write_text("\n".join(lines[:end]) + "\n", encoding="utf-8")
        (Path(tmp) / "in.docs").write_text("\n".join(docs) + "\n", encoding="utf-8")
        print(f"{end} sentences in {len(docs)} documents (corpus: {total} sentences)")
        print("backend\tseconds\tsentences/s\ts per 1,000 sentences\tprojected whole corpus\tpeak RSS MiB")
        for k, (b, how) in enumerate(runs):
            t = time.time()
            proc = subprocess.Popen([sys.executable, "-m", "cad", "-q", "coref", *how, "--input",
                                     f"{tmp}/in.en", "--docs", f"{tmp}/in.docs", "--out", f"{tmp}/{k}.jsonl"],
                                    cwd=REPO)
            _, status, usage = os.wait4(proc.pid, 0)
            secs = time.time() - t
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"coref_bench: backend {b} failed")
            print(f"{b}\t{secs:.1f}\t{end / secs:.1f}\t{1000 * secs / end:.1f}\t"
                  f"{secs * total / end / 60:.1f} min\t{usage.ru_maxrss / 1024:.0f}")


if __name__ == "__main__":
    main()
