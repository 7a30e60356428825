"""`cad serve --workers N`: N worker processes, each with its own Engine, so that N documents are
translated at once on N cores (one process translates one document at a time: the decoder holds
the interpreter's lock). The workers are forked before anything is loaded (forking a process that
has loaded spaCy and its BLAS threads is not safe) and each loads the configuration itself, side
by side; the parent only routes, answers HTTP and draws the pages.

A document is one task, done whole by one worker, so documents never mix. The workers ignore
SIGINT and SIGTERM: stopping is the parent's, which lets them finish what they were given and
then ends them.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from cad.core.errors import CadError
from cad.serve.engine import Engine, EngineSettings, Served

_ENGINE: Engine | None = None          # in a worker: its engine
_FAILED: str | None = None             # in a worker: why its engine could not load


def _load(settings: EngineSettings) -> None:
    global _ENGINE, _FAILED
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, signal.SIG_IGN)
    try:
        _ENGINE = Engine(settings)
    except CadError as exc:
        _FAILED = str(exc)


def _ready() -> tuple[int, str | None]:
    time.sleep(0.05)            # long enough that one worker cannot take every start-up task
    return os.getpid(), _FAILED


def _translate(lines: list[str], raw: bool) -> Served:
    if _ENGINE is None:
        raise CadError(f"this worker could not load the model: {_FAILED}")
    return _ENGINE.translate(lines, raw)


class WorkerError(Exception):
    """A worker process died: the request is answered 503, the server goes on if others live."""


class Workers:
    """N Engines in worker processes behind Engine's interface (`settings`, `translate`, `close`)."""

    def __init__(self, settings: EngineSettings, n: int, timeout: float = 900):
        self.settings = settings
        self._pool = ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork"), initializer=_load,
                                         initargs=(settings,))
        seen: dict[int, str | None] = {}
        deadline = time.time() + timeout
        # every worker loads before the server listens; each takes a start-up task once it has
        while len(seen) < n:
            if time.time() > deadline:
                self.close()
                raise CadError(f"the {n} workers did not load within {timeout:g} s")
            for pid, failed in (f.result() for f in [self._pool.submit(_ready) for _ in range(n)]):
                seen[pid] = failed
        failed = next((f for f in seen.values() if f), None)
        if failed:
            self.close()
            raise CadError(failed)

    def translate(self, lines: list[str], raw: bool) -> Served:
        try:
            return self._pool.submit(_translate, lines, raw).result()
        except BrokenProcessPool:
            raise WorkerError("a worker process died; see the server's log") from None

    def close(self) -> None:
        """End the workers now (whatever they still do: the parent has stopped waiting for them)."""
        for proc in list(getattr(self._pool, "_processes", {}).values()):
            proc.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)
