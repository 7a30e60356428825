"""The extraction half of phrase extraction in shards of lines, in parallel (cad/core/shards).

Each shard extracts its sentence pairs' phrase pairs and keeps them as two sorted runs of
`key<TAB>count` lines, the direct and the inverse records, the very runs the external sort of
one process spills. Scoring then merges every shard's runs as one process merges its own, summing
the counts of a record seen in several shards, so the tables are the same bytes as without shards.
Scoring needs every count of a phrase, so it stays in one process (cad/train/phrase_scoring.py).
"""

from __future__ import annotations

import functools
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from cad.core.shards import Parallel, ShardStore, ShardTask, fingerprint_salt, plan_shards, run_shards, shard_tasks
from cad.core.textio import count_lines
from cad.train.extract import ScoringStats, extract_rows
from cad.train.extsort import ExternalCounter
from cad.train.lexical import aligned_row

try:
    from cad.train import _phrases
except ImportError:     # not compiled: only the Python engine runs (phrase_scoring checks before)
    _phrases = None

# about 4 s of extraction a shard on this machine's cores, and runs of tens of MB
DEFAULT_SHARD_LINES = 10_000


@dataclass
class ShardRuns:
    runs: list[tuple[Path, Path]] = field(default_factory=list)     # (direct, inverse) of each shard
    sentences: int = 0
    extracted: int = 0


def extract_shard(task: ShardTask, out: Path, src: str, tgt: str, align: str, max_len: int, engine: str,
                  max_items: int) -> None:
    """One shard's sorted runs (out/direct, out/inverse) and counts (out/counts); errors name the
    corpus files and their lines."""
    first = task.shard.first_line + 1
    rows = (aligned_row(s, t, a, first + k, src, tgt, align)
            for k, (s, t, a) in enumerate(zip(task.data["src"], task.data["tgt"], task.data["align"])))
    with tempfile.TemporaryDirectory(prefix="cad-extract-") as tmp:
        if engine == "native":
            core = _phrases.PhraseTables(max_len, tmp, max_items, {}, {})
            for ss, tt, points in rows:
                core.add(ss, tt, points)
            core.write_runs(str(out / "direct"), str(out / "inverse"))
            sentences, extracted = core.sentences(), core.extracted()
        else:
            stats = ScoringStats()
            with ExternalCounter(tmp, max_items) as d, ExternalCounter(tmp, max_items) as i:
                extract_rows(rows, max_len, d, i, stats)
                for name, counter in (("direct", d), ("inverse", i)):
                    with open(out / name, "w", encoding="utf-8", newline="\n") as fh:
                        fh.writelines(f"{k}\t{c}\n" for k, c in counter)
            sentences, extracted = stats.sentences, stats.extracted
    (out / "counts").write_text(f"{sentences} {extracted}\n")


def extract_in_shards(src: str | os.PathLike, tgt: str | os.PathLike, align: str | os.PathLike,
                      store: ShardStore, max_len: int, engine: str, max_items: int,
                      parallel: Parallel) -> ShardRuns:
    """Run (or reuse) every shard's extraction; the caller scores the runs and removes the store."""
    n = count_lines(src)
    shards = plan_shards(n, None, parallel.lines(DEFAULT_SHARD_LINES))
    # runs: the native runs' format (deflated blocks since 2026-11), so that a store of another never feeds the scorer
    salt = fingerprint_salt("extract", {"max_phrase_length": max_len, "engine": engine, "runs": 2})
    fn = functools.partial(extract_shard, src=str(src), tgt=str(tgt), align=str(align), max_len=max_len,
                           engine=engine, max_items=max_items)
    tasks = shard_tasks(shards, {"src": src, "tgt": tgt, "align": align}, salt)
    run_shards(tasks, len(shards), fn, store, parallel, "extract")
    out = ShardRuns()
    for s in shards:
        out.runs.append((store.part(s.index, "direct"), store.part(s.index, "inverse")))
        sentences, extracted = store.part(s.index, "counts").read_text().split()
        out.sentences += int(sentences)
        out.extracted += int(extracted)
    return out
