"""Two stages of `cad train` on the first lines of the large corpus, each way side by side: `cad lex`
(the compiled counter, the Python one) and the prepare stage's truecasing (a model learned per side,
then every line truecased: one distinct token at a time, or sacremoses on every token).

    python bench/train_stages_bench.py [--model models/large] [--lines 100000] [--work DIR]

Lex reads the first --lines lines of corpus.{en,fr} and aligned.grow-diag-final-and; truecasing
the first --lines lines of mixed.{en,fr} (the tokenized text before truecasing) with the documents
of mixed.docs that start in them. Each way runs in a process of its own: its wall time, its CPU time
(user + system, all threads: less disturbed by other jobs than the wall clock) and its peak RSS
(the interpreter and its imports included). Last, whether both ways wrote the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# run in a process of its own: one way of one stage, timed, with the digest of what it wrote
TIMED = """
import hashlib, json, resource, sys, time
from pathlib import Path
stage, way, work = sys.argv[1], sys.argv[2], Path(sys.argv[3])
out = work / f"{stage}.{way}"
t, c = time.perf_counter(), time.process_time()
if stage == "lex":
    from cad.train.lexical import write_lexical_tables
    write_lexical_tables(work / "corpus.en", work / "corpus.fr", work / "aligned", str(out), engine=way)
    files = [Path(f"{out}.f2e"), Path(f"{out}.e2f")]
else:
    from cad.corpus.truecase import Truecaser, recase_file, text_documents, train_truecaser
    by_token = way == "by-token"
    files, parts = [], {}
    for lang in ("en", "fr"):
        text, model, cased = work / f"mixed.{lang}", Path(f"{out}.model.{lang}"), Path(f"{out}.{lang}")
        t1, c1 = time.perf_counter(), time.process_time()
        train_truecaser(text_documents(text, work / "mixed.docs"), model, by_token=by_token)
        t2, c2 = time.perf_counter(), time.process_time()
        recase_file(Truecaser(model, by_token=by_token).truecase, text, cased)
        parts[lang] = [t2 - t1, c2 - c1, time.perf_counter() - t2, time.process_time() - c2]
        files += [model, cased]
wall, cpu = time.perf_counter() - t, time.process_time() - c
digest = hashlib.sha256()
for f in files:
    digest.update(f.read_bytes())
got = {"wall": wall, "cpu": cpu, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
       "sha256": digest.hexdigest()}
if stage == "truecase":
    got["parts"] = parts
print(json.dumps(got))
"""

WAYS = {"lex": ("native", "python"), "truecase": ("by-token", "sacremoses")}


def head(src: Path, dst: Path, lines: int) -> int:
    n = 0
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        for line in fin:
            if n == lines:
                break
            fout.write(line)
            n += 1
    return n


def run(stage: str, way: str, work: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    r = subprocess.run([sys.executable, "-c", TIMED, stage, way, str(work)], cwd=REPO, env=env, capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise SystemExit(f"{stage} ({way}) failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=str(REPO / "models" / "large"), help="model folder (default: %(default)s)")
    ap.add_argument("--lines", type=int, default=100_000, help="first lines of the corpus (default: %(default)s)")
    ap.add_argument("--stages", nargs="+", default=list(WAYS), choices=list(WAYS))
    ap.add_argument("--work", help="keep the cut files and the outputs in this folder")
    a = ap.parse_args()
    model = Path(a.model).resolve()
    inputs = {"corpus.en": "corpus.en", "corpus.fr": "corpus.fr", "aligned": "aligned.grow-diag-final-and",
              "mixed.en": "mixed.en", "mixed.fr": "mixed.fr"}
    missing = [name for name in [*inputs.values(), "mixed.docs"] if not (model / name).is_file()]
    if missing:
        raise SystemExit(f"need {', '.join(missing)} in {model} (make large)")
    with tempfile.TemporaryDirectory(prefix="cad-bench-stages-") as tmp:
        work = Path(a.work or tmp).resolve()
        work.mkdir(parents=True, exist_ok=True)
        n = min(head(model / src, work / name, a.lines) for name, src in inputs.items())
        with open(model / "mixed.docs", encoding="utf-8") as fin, \
                open(work / "mixed.docs", "w", encoding="utf-8") as fout:
            fout.writelines(line for line in fin if int(line.split("\t")[0]) < n)
        print(f"the first {n:,} lines of {model}")
        print(f"{'stage':<9} {'way':<11} {'wall s':>8} {'cpu s':>8} {'peak RSS MB':>12}")
        for stage in a.stages:
            got = {}
            for way in WAYS[stage]:
                got[way] = r = run(stage, way, work)
                print(f"{stage:<9} {way:<11} {r['wall']:>8.2f} {r['cpu']:>8.2f} {r['rss_mb']:>12.0f}", flush=True)
                for lang, (tw, tc, aw, ac) in r.get("parts", {}).items():
                    print(f"{'':<9} {'  ' + lang:<11} train {tw:.2f} s wall, {tc:.2f} s cpu; apply {aw:.2f} s wall, "
                          f"{ac:.2f} s cpu")
            new, old = (got[w] for w in WAYS[stage])
            print(f"{stage:<9} {WAYS[stage][0]}: {old['wall'] / new['wall']:.1f}x faster (wall), "
                  f"{old['cpu'] / new['cpu']:.1f}x (cpu); the same bytes: {new['sha256'] == old['sha256']}", flush=True)


if __name__ == "__main__":
    main()
