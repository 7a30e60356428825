"""`cad binarize`, the compiled writer beside the Python one, on the first lines of a model's tables.

    python bench/binarize_bench.py [--model models/large] [--lines 2000000] [--prune 0 100]
                                   [--engines native python] [--work DIR]

The first --lines lines of the model's phrase-table.gz and reordering-table.wbe-msd-bidirectional-fe.gz
(one line per phrase pair each, in the same order, as cad's training writes them) are copied,
gzipped, into a temporary folder (removed at the end; --work keeps them), with a moses.ini naming
just those two tables. Each engine then binarizes them (`binarize_model(..., force=True)`, into a
folder of its own) in a process of its own, once per --prune value: its wall time, its CPU time
(user + system: less disturbed by other jobs than the wall clock), its peak RSS (the whole
process: the interpreter and its imports included) and, pruned, the size of its temporary of kept
pairs (on disk beside the tables while the reordering table is written). Last, whether both
engines wrote the same bytes.

--records N: besides, a phrase table of N source phrases of one line each (plain text, in the
temporary folder), binarized by the native engine alone: the index's memory, which grows with the
number of source phrases (23.4 million in the large model), at the size of a whole table.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TABLES = ("phrase-table.gz", "reordering-table.wbe-msd-bidirectional-fe.gz")

# run in a process of its own: one engine's binarize_model, timed, the process's peak RSS, and the
# kept pairs' temporary, sized as binarize_model removes it
TIMED = """
import json, os, resource, sys, time
kept, unlink = 0, os.unlink
def sized(path, *args, **kwargs):
    global kept
    if ".kept.tmp" in os.fspath(path):
        kept += os.stat(path).st_size
    unlink(path, *args, **kwargs)
os.unlink = sized
from cad.moses.binarize import binarize_model
ini, out, prune, engine = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
t, c = time.perf_counter(), time.process_time()
binarize_model(ini, out, force=True, prune=prune, engine=engine)
wall, cpu = time.perf_counter() - t, time.process_time() - c
print(json.dumps({"wall": wall, "cpu": cpu, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "kept_mb": kept / 1e6}))
"""

INI = """[feature]
PhraseDictionaryMemory name=TranslationModel0 num-features=4 path={pt} table-limit=20
LexicalReordering name=LexicalReordering0 num-features=6 type=wbe-msd-bidirectional-fe-allff path={ro}
[weight]
TranslationModel0= 0.2 0.2 0.2 0.2
LexicalReordering0= 0.3 0.3 0.3 0.3 0.3 0.3
"""


def head(src: Path, dst: Path, lines: int) -> tuple[int, int]:
    """The first `lines` lines of gzipped `src` into gzipped `dst`; the lines and bytes of text copied."""
    size = n = 0
    with gzip.open(src, "rb") as fin, gzip.open(dst, "wb", compresslevel=6) as fout:
        for line in fin:
            if n == lines:
                break
            fout.write(line)
            size += len(line)
            n += 1
    return n, size


def run(ini: Path, out: Path, prune: int, engine: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    r = subprocess.run([sys.executable, "-c", TIMED, str(ini), str(out), str(prune), engine], cwd=REPO, env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"binarize ({engine}, prune {prune}) failed:\n{r.stderr[-3000:]}")
    got = json.loads(r.stdout.splitlines()[-1])
    digest = hashlib.sha256()
    for p in sorted(out.iterdir()):
        if p.suffix in (".cadphr", ".cadlexr"):
            with open(p, "rb") as fh:
                while block := fh.read(1 << 24):
                    digest.update(block)
            got["bytes"] = got.get("bytes", 0) + p.stat().st_size
    got["sha256"] = digest.hexdigest()
    shutil.rmtree(out)
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=str(REPO / "models" / "large"), help="model folder (default: %(default)s)")
    ap.add_argument("--lines", type=int, default=2_000_000, help="first lines of each table (default: %(default)s)")
    ap.add_argument("--prune", type=int, nargs="+", default=[0, 100], help="--prune values (default: 0 100)")
    ap.add_argument("--engines", nargs="+", default=["native", "python"], choices=("native", "python"))
    ap.add_argument("--work", help="keep the cut tables in this folder")
    ap.add_argument("--records", type=int, default=0,
                    help="also a table of this many one-line source phrases, native engine alone (default: none)")
    a = ap.parse_args()
    model = Path(a.model).resolve()
    if not all((model / t).exists() for t in TABLES):
        raise SystemExit(f"need {' and '.join(TABLES)} in {model}")
    with tempfile.TemporaryDirectory(prefix="cad-bench-binarize-") as tmp:
        work = Path(a.work or tmp).resolve()
        work.mkdir(parents=True, exist_ok=True)
        (lines, pt_size), (ro_lines, ro_size) = (head(model / t, work / t, a.lines) for t in TABLES)
        if lines != ro_lines:
            raise SystemExit(f"the tables have {lines} and {ro_lines} lines: one line per phrase pair each expected")
        ini = work / "moses.ini"
        ini.write_text(INI.format(pt=work / TABLES[0], ro=work / TABLES[1]), encoding="utf-8")
        print(f"{lines:,} lines of {model}'s phrase table ({pt_size / 1e6:.0f} MB of text, "
              f"{(work / TABLES[0]).stat().st_size / 1e6:.0f} MB gzipped) and reordering table "
              f"({ro_size / 1e6:.0f} MB, {(work / TABLES[1]).stat().st_size / 1e6:.0f} MB)", flush=True)
        print(f"{'prune':>5}  {'engine':<7} {'wall s':>8} {'cpu s':>8} {'peak RSS MB':>12} {'MB written':>11} "
              f"{'kept MB':>8}")
        for prune in a.prune:
            got = {}
            for engine in a.engines:
                got[engine] = r = run(ini, work / f"out.{engine}", prune, engine)
                print(f"{prune:>5}  {engine:<7} {r['wall']:>8.1f} {r['cpu']:>8.1f} {r['rss_mb']:>12.0f} "
                      f"{r['bytes'] / 1e6:>11.0f} {r['kept_mb']:>8.1f}", flush=True)
            if len(got) == 2:
                n, p = got["native"], got["python"]
                print(f"       native/python: {p['wall'] / n['wall']:.1f}x faster (wall), {p['cpu'] / n['cpu']:.1f}x "
                      f"(cpu); the same bytes: {n['sha256'] == p['sha256']}", flush=True)
        if a.records:
            many(work, a.records)


def many(work: Path, records: int) -> None:
    """The native engine on `records` source phrases of one line each: the index's memory."""
    pt = work / "many"
    with open(pt, "w", encoding="utf-8") as fh:
        for k in range(0, records, 10_000):
            fh.write("".join(f"s{j} ||| t ||| 0.5 0.5 0.5 0.5 ||| 0-0\n" for j in range(k, min(records, k + 10_000))))
    ini = work / "many.ini"
    ini.write_text(INI.split("LexicalReordering ")[0].format(pt=pt) + "[weight]\nTranslationModel0= 0.2 0.2 0.2 0.2\n",
                   encoding="utf-8")
    r = run(ini, work / "out.many", 0, "native")
    print(f"{records:,} one-line source phrases ({pt.stat().st_size / 1e6:.0f} MB), native: {r['wall']:.1f} s, "
          f"peak RSS {r['rss_mb']:.0f} MB", flush=True)
    pt.unlink()


if __name__ == "__main__":
    main()
