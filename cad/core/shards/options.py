"""`--workers`, `--scheduler` and `--shard-lines`: who runs a sharded stage's tasks, and how big they are."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field

from cad.core.errors import CadError


def default_workers() -> int:
    return os.cpu_count() or 1


@dataclass(frozen=True)
class Parallel:
    """`workers` local processes (1: the tasks run in this process, without Dask), or the workers
    of the `dask.distributed` scheduler at `scheduler`; `shard_lines`: a shard closes at the end of
    the document that brings it to at least this many lines (None: the stage's default)."""

    workers: int = field(default_factory=default_workers)
    scheduler: str | None = None
    shard_lines: int | None = None

    def lines(self, default: int) -> int:
        return self.shard_lines if self.shard_lines is not None else default


def add_parallel_arguments(parser: argparse.ArgumentParser, shard_lines: int, note: str = "",
                           by_documents: bool = True) -> None:
    """The three options of a sharded stage; `shard_lines` is the stage's default shard size,
    `note` ends the --workers help (what runs unsharded), `by_documents` false for a stage whose
    lines are independent (phrase extraction), cut every N lines."""
    parser.add_argument("--workers", type=int, default=default_workers(), metavar="N",
                        help="processes on this machine (a Dask LocalCluster) that run the stage's shards; 1: "
                             "in this process, without Dask (default: the number of cores, %(default)s here); "
                             f"the output is the same bytes whatever the number{note}")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the shards on the workers of this dask.distributed scheduler (e.g. "
                             "tcp://host:8786) instead of local processes; the scheduler and the workers need "
                             "the same cad installed, and the files that options such as --model name at the "
                             "same paths; start its workers with DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False "
                             "(Dask's profiler grows a busy worker's memory; cad warns when it is on)")
    cut = "whole documents, closed once it holds at least N lines" if by_documents else "N lines"
    parser.add_argument("--shard-lines", type=int, default=shard_lines, metavar="N",
                        help=f"a shard is {cut}; the output does not depend on it (default: %(default)s)")


def parallel_from_args(a: argparse.Namespace) -> Parallel:
    if a.workers < 1:
        raise CadError(f"--workers must be at least 1, not {a.workers}")
    if a.shard_lines < 1:
        raise CadError(f"--shard-lines must be at least 1, not {a.shard_lines}")
    return Parallel(workers=a.workers, scheduler=a.scheduler or None, shard_lines=a.shard_lines)
