"""The sharded corpus stages at scale: `cad coref` and `cad cm build` over the training corpus
replicated K times, on 1 and 2 worker processes.

    python bench/shard_bench.py [--model models/baseline] [--replicas 10] [--workers 1,2]
                                [--limit-docs N] [--shard-lines 2000] [--classifier]

The corpus is `make train`'s prepared one (MODEL/corpus.{en,fr,docs} and its alignment), copied
K times into a temporary folder, each copy's documents under their own ids (`<id>/r<k>`).
For each worker count the bench starts its own Dask LocalCluster of that many processes (one
thread each) and runs each stage on it with `--scheduler`, a fresh cluster per stage, so that it
can ask every worker its peak RSS afterwards; `cad cm build` reads the records `cad coref` wrote.
Printed per stage and worker count: wall time of the command, seconds of its sharded part (the
`cad.core.shards` log line), shards per second per worker, peak RSS of each worker and of the command's
own process, and the sharded part's time projected for 10M sentence pairs on 32 workers from the
measured per-worker rate (shards of the same size; the rate includes each worker's loading of
its models, which a large run spreads over many more shards, and the scheduler's overhead per task,
about a millisecond, is not what limits it). `cad cm build` estimates its tables in its own process after
the shards (EM over the class instances, all of which it holds): that part is in the wall time,
not in the projection; `--classifier` adds the classifier CM's training to it (off by default:
about a minute per 33k pairs, single-process).

`--replicas 1 --limit-docs 300` is a smoke test of a minute or so.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# the scheduler (in this process) and its workers unpickle cad's tasks: this checkout's cad, as the
# `cad` commands run from it
sys.path.insert(0, str(REPO))
TARGET_PAIRS = 10_000_000
TARGET_WORKERS = 32


def _maxrss_mib() -> float:
    # runs in each Dask worker (client.run): the worker process's own peak
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build_corpus(model: Path, out: Path, replicas: int, limit_docs: int) -> tuple[int, list[int]]:
    """OUT.{en,fr,docs,al}: the first `limit_docs` documents (0: all) copied `replicas` times;
    returns the number of lines and the documents' first lines."""
    docs = [line.split("\t") for line in (model / "corpus.docs").read_text(encoding="utf-8").splitlines()]
    files = {ext: (model / name).read_text(encoding="utf-8").splitlines(keepends=True)
             for ext, name in (("en", "corpus.en"), ("fr", "corpus.fr"), ("al", "aligned.grow-diag-final-and"))}
    n = len(files["en"]) if not limit_docs or limit_docs >= len(docs) else int(docs[limit_docs][0])
    docs = [d for d in docs if int(d[0]) < n]
    for ext, lines in files.items():
        with open(f"{out}.{ext}", "w", encoding="utf-8") as fh:
            for _ in range(replicas):
                fh.writelines(lines[:n])
    starts = []
    with open(f"{out}.docs", "w", encoding="utf-8") as fh:
        for k in range(replicas):
            for first, doc_id in docs:
                starts.append(k * n + int(first))
                fh.write(f"{k * n + int(first)}\t{doc_id}/r{k}\n")
    return n * replicas, starts


def run_stage(args: list[str], workers: int) -> dict:
    """`python -m cad ARGS --scheduler ...` on a fresh LocalCluster of `workers` processes."""
    from distributed import Client

    from cad.core.shards.run import local_cluster

    # the cluster `--workers` starts: without Dask's profiler, whose history grows a worker's memory
    with local_cluster(workers) as cluster, Client(cluster) as client:
        t = time.time()
        proc = subprocess.Popen([sys.executable, "-m", "cad", *args, "--scheduler", cluster.scheduler_address],
                                cwd=REPO, stderr=subprocess.PIPE, text=True)
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.time() - t
        if os.waitstatus_to_exitcode(status) != 0:
            sys.stderr.write(err)
            raise SystemExit(f"shard_bench: cad {' '.join(args[:2])} failed")
        rss = sorted(client.run(_maxrss_mib).values())
    m = re.search(r"cad\.shards: \w+: (\d+) shards in ([\d.]+) s", err)
    if not m:
        sys.stderr.write(err)
        raise SystemExit("shard_bench: no cad.core.shards summary line in the stage's log")
    return {"wall": wall, "shards": int(m.group(1)), "sharded": float(m.group(2)), "worker_rss": rss,
            "driver_rss": usage.ru_maxrss / 1024}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=str(REPO / "models" / "baseline"),
                    help="trained model folder with corpus.{en,fr,docs} and aligned.grow-diag-final-and "
                         "(default models/baseline, from make train)")
    ap.add_argument("--replicas", type=int, default=10, help="copies of the corpus (default 10: 330k pairs)")
    ap.add_argument("--limit-docs", type=int, default=0, help="first N documents of the corpus only (default 0: all)")
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts (default 1,2)")
    ap.add_argument("--shard-lines", type=int, default=2000, help="shard size in lines (default 2000, the stages')")
    ap.add_argument("--backend", default="ranker", help="cad coref backend (default ranker, make cm's)")
    ap.add_argument("--classifier", action="store_true",
                    help="cad cm build trains the classifier CM too (single-process, after the shards)")
    ap.add_argument("--keep", help="keep the corpus and outputs in this folder instead of a temporary one")
    a = ap.parse_args()
    model = Path(a.model)
    for name in ("corpus.en", "corpus.fr", "corpus.docs", "aligned.grow-diag-final-and"):
        if not (model / name).exists():
            sys.exit(f"shard_bench: {model / name} not found: run `make train` first (or give --model)")
    counts = [int(w) for w in a.workers.split(",")]
    with tempfile.TemporaryDirectory(prefix="cad-shard-bench-") as tmp:
        work = Path(a.keep or tmp)
        work.mkdir(parents=True, exist_ok=True)
        prefix = work / "corpus"
        n_lines, starts = build_corpus(model, prefix, a.replicas, a.limit_docs)
        print(f"corpus: {n_lines:,} sentence pairs in {len(starts):,} documents ({a.replicas} copies), "
              f"shards of at least {a.shard_lines} lines; {os.cpu_count()} cores")
        print("| stage | workers | wall time | sharded part | shards | shards/s per worker | peak RSS per worker "
              f"| peak RSS of cad | projected, {TARGET_PAIRS / 1e6:.0f}M pairs on {TARGET_WORKERS} workers |")
        print("|---|---|---|---|---|---|---|---|---|")
        for w in counts:
            records = work / f"coref.{w}.jsonl"
            stages = {
                "cad coref": ["coref", "--backend", a.backend, "--input", f"{prefix}.en", "--docs", f"{prefix}.docs",
                              "--out", str(records), "--shard-lines", str(a.shard_lines)],
                "cad cm build": ["cm", "build", "--corpus", str(prefix), "--align", f"{prefix}.al",
                                 "--coref", str(records), "--out", str(work / f"cm.{w}"), "--shard-lines",
                                 str(a.shard_lines), *([] if a.classifier else ["--no-classifier"])],
            }
            for name, args in stages.items():
                r = run_stage(args, w)
                rate = r["shards"] / r["sharded"] / w
                lines_per_shard = n_lines / r["shards"]
                projected = TARGET_PAIRS / lines_per_shard / (rate * TARGET_WORKERS)
                rss = ", ".join(f"{x:.0f}" for x in r["worker_rss"])
                print(f"| {name} | {w} | {r['wall']:.1f} s | {r['sharded']:.1f} s | {r['shards']} | {rate:.3f} | "
                      f"{rss} MiB | {r['driver_rss']:.0f} MiB | {projected / 3600:.2f} h |", flush=True)
        # provenance.json names the records file, which differs by run
        tables = [p.name for p in sorted((work / f"cm.{counts[0]}").iterdir()) if p.name != "provenance.json"]
        same = all((work / f"coref.{w}.jsonl").read_bytes() == (work / f"coref.{counts[0]}.jsonl").read_bytes()
                   and all((work / f"cm.{w}" / f).read_bytes() == (work / f"cm.{counts[0]}" / f).read_bytes()
                           for f in tables)
                   for w in counts)
        print(f"records and {', '.join(tables)} byte-identical across worker counts: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
