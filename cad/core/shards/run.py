"""Running a stage's shard tasks: in this process, on a Dask LocalCluster of `--workers` processes,
or on an existing dask.distributed cluster (`--scheduler`). Every way runs the same task function
on the same shards and keeps its output in the same store, so the merged output is the same."""

from __future__ import annotations

import functools
import logging
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Union

from cad.core.errors import CadError
from cad.core.progress import StageProgress
from cad.core.shards.options import Parallel
from cad.core.shards.plan import ShardTask
from cad.core.shards.store import PROBE, ShardStore

# dask and distributed are imported where a stage starts or reaches its workers: they are heavy,
# and --workers 1 runs without them
log = logging.getLogger("cad.core.shards")

# fn(task, directory) writes the shard's parts as files in `directory`, one file a part
TaskFn = Callable[[ShardTask, Path], None]
# what a task gives back: the names of the parts it renamed into the store, or the parts' bytes
Outcome = Union[list[str], dict[str, bytes]]


@dataclass
class RunStats:
    total: int = 0
    reused: int = 0
    computed: int = 0
    seconds: float = 0.0


def _shard_error(task: ShardTask, exc: BaseException, store_dir: str | None = None) -> CadError:
    where = f"shard {task.shard.index} ({task.shard.describe()})"
    if isinstance(exc, CadError):
        return CadError(f"{where}: {exc.message}", exc.path, exc.line)
    if isinstance(exc, OSError) and exc.strerror:
        # a full disk most often: name the folder the shard's parts go to
        return CadError(f"{where}: cannot write its parts: {exc.strerror}", exc.filename or store_dir)
    if type(exc).__name__ == "KilledWorker":
        return CadError(f"{where}: the worker process running it died (killed, or out of memory)")
    return CadError(f"{where}: {type(exc).__name__}: {exc}")


@functools.lru_cache(maxsize=8)
def _sees(store_dir: str, token: str) -> bool:
    try:
        return (Path(store_dir) / PROBE).read_text(encoding="utf-8") == token
    except OSError:
        return False


def execute(fn: TaskFn, task: ShardTask, store_dir: str, token: str) -> Outcome:
    """Run one task where it lands (this process or a worker). Its parts go straight into the store
    when this process sees it, each renamed into place whole; else they come back as bytes."""
    shared = _sees(store_dir, token)
    with tempfile.TemporaryDirectory(prefix=f".{task.shard.index:06d}-", dir=store_dir if shared else None) as tmp:
        fn(task, Path(tmp))
        names = sorted(os.listdir(tmp))
        if not shared:
            return {n: (Path(tmp) / n).read_bytes() for n in names}
        store = ShardStore(store_dir)
        for n in names:
            os.replace(Path(tmp) / n, store.part(task.shard.index, n))
        return names


class _InProcess:
    """`--workers 1`: the tasks one after the other here, without starting Dask."""

    workers = 1
    where = "this process"

    def __init__(self, fn: TaskFn, store: ShardStore, token: str):
        self.fn, self.store_dir, self.token = fn, str(store.directory), token

    def submit(self, task: ShardTask) -> Iterator[tuple[ShardTask, Outcome]]:
        try:
            outcome = execute(self.fn, task, self.store_dir, self.token)
        except Exception as exc:
            raise _shard_error(task, exc, self.store_dir) from exc
        yield task, outcome

    def drain(self) -> Iterator[tuple[ShardTask, Outcome]]:
        return iter(())

    def close(self) -> None:
        pass


def local_cluster(workers: int):
    """A LocalCluster of `workers` processes of one thread each, without Dask's statistical profiler.
    The profiler samples the running task's stack every 10 ms and keeps the last 1,000 seconds'
    call trees; with spaCy's deep stacks that grew each worker by about 190 KB a second, so a
    worker's memory grew with the corpus (398 MiB after 17 coreference shards, 650 MiB after 161)."""
    import dask
    from distributed import LocalCluster

    # the nanny reads the config when it is made and hands it to its worker process
    with dask.config.set({"distributed.worker.profile.enabled": False}):
        # ":0": Dask's HTTP server on a free port, so that two stages (or a user's own cluster)
        # never fight over 8787
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")


def _profiler_on() -> bool:
    import dask

    # runs in each worker (client.run): its own config
    return bool(dask.config.get("distributed.worker.profile.enabled", True))


class _Dask:
    """A bounded number of tasks in flight (a few per worker), so that the stage reads its inputs
    no faster than the workers take them: the memory here does not grow with the corpus."""

    def __init__(self, fn: TaskFn, store: ShardStore, token: str, parallel: Parallel, n_tasks: int):
        try:
            from distributed import Client
        except ImportError:
            raise CadError("--workers above 1 and --scheduler need dask.distributed (pip install "
                           "'dask[distributed]'); --workers 1 runs without it") from None
        self.fn, self.store_dir, self.token = fn, str(store.directory), token
        self.cluster = None
        if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
            # Dask's own INFO lines (every worker and comm opened and closed) would bury the stage's
            logging.getLogger("distributed").setLevel(logging.WARNING)
        if parallel.scheduler:
            try:
                self.client = Client(parallel.scheduler)       # Dask's connect timeout (its config)
            except (OSError, TimeoutError, ValueError) as exc:
                raise CadError(f"cannot reach the Dask scheduler at {parallel.scheduler}: {exc}") from None
            self.workers = max(1, len(self.client.scheduler_info().get("workers", {})))
            self.where = f"the workers of {parallel.scheduler}"
            profiling = [w for w, on in sorted(self.client.run(_profiler_on).items()) if on]
            if profiling:
                log.warning("Dask's profiler is on in %d of the workers of %s: over a long stage each such "
                            "worker's memory grows by up to a few hundred MiB; start them with "
                            "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False", len(profiling), parallel.scheduler)
        else:
            self.workers = max(1, min(parallel.workers, n_tasks))
            self.cluster = local_cluster(self.workers)
            self.client = Client(self.cluster)
            self.where = f"{self.workers} local worker processes"
        self.limit = 2 * self.workers + 1
        self.in_flight: dict = {}

    def submit(self, task: ShardTask) -> Iterator[tuple[ShardTask, Outcome]]:
        key = f"cad-shard-{task.shard.index}-{task.fingerprint[:16]}"
        future = self.client.submit(execute, self.fn, task, self.store_dir, self.token, key=key, pure=False)
        self.in_flight[future] = task
        while len(self.in_flight) >= self.limit:
            yield from self._collect()

    def _collect(self) -> Iterator[tuple[ShardTask, Outcome]]:
        from distributed import wait

        done, _ = wait(list(self.in_flight), return_when="FIRST_COMPLETED")
        for future in sorted(done, key=lambda f: self.in_flight[f].shard.index):
            task = self.in_flight.pop(future)
            if future.status != "finished":
                exc = future.exception()
                raise _shard_error(task, exc, self.store_dir) from exc
            outcome = future.result()
            future.release()
            yield task, outcome

    def drain(self) -> Iterator[tuple[ShardTask, Outcome]]:
        while self.in_flight:
            yield from self._collect()

    def close(self) -> None:
        if self.in_flight:
            self.client.cancel(list(self.in_flight))
            self.in_flight.clear()
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _keep(store: ShardStore, task: ShardTask, outcome: Outcome) -> None:
    if isinstance(outcome, dict):
        store.write(task, outcome)
    else:
        store.mark(task, outcome)


def run_shards(tasks: Iterable[ShardTask], total: int, fn: TaskFn, store: ShardStore, parallel: Parallel,
               desc: str) -> RunStats:
    """Run `fn` on every task whose shard `store` does not already hold from the same input, and
    keep its parts there. `fn` must be a module-level function (or a functools.partial of one),
    for Dask sends it to the workers by name. A failed task raises a CadError naming its shard;
    the shards finished so far stay in the store for the rerun."""
    stats = RunStats(total=total)
    token = store.probe()
    bar = StageProgress(total, desc)
    runner = None
    t = time.time()
    try:
        for task in tasks:
            if store.done(task):
                stats.reused += 1
                bar.skipped()
                continue
            store.forget(task)
            if runner is None:
                # started at the first shard to compute: a finished stage starts no cluster
                if parallel.scheduler or (parallel.workers > 1 and total > 1):
                    runner = _Dask(fn, store, token, parallel, total)
                else:
                    runner = _InProcess(fn, store, token)
                log.info("%s: %d shards (%d reused so far), on %s", desc, total, stats.reused, runner.where)
            for done_task, outcome in runner.submit(task):
                _keep(store, done_task, outcome)
                stats.computed += 1
                bar.done()
        if runner is not None:
            for done_task, outcome in runner.drain():
                _keep(store, done_task, outcome)
                stats.computed += 1
                bar.done()
    except CadError as exc:
        kept = sum(1 for _ in store.directory.glob("*.done"))
        if not kept:
            store.remove()
            raise
        raise CadError(f"{exc.message} ({kept} finished shards are kept in {store.directory}: a rerun "
                       "resumes from them)", exc.path, exc.line) from exc.__cause__
    finally:
        bar.close()
        if runner is not None:
            runner.close()
    stats.seconds = time.time() - t
    log.info("%s: %d shards in %.1f s (%d computed, %d reused%s)", desc, total, stats.seconds, stats.computed,
             stats.reused, f", {stats.computed / stats.seconds:.2f} shards/s" if stats.computed else "")
    return stats
