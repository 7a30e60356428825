"""Progress bars on stderr, shown only on a terminal so logs and CI stay quiet (CAD_NO_PROGRESS=1
hides them there too; CAD_PROGRESS=1 shows them off a terminal, in a batch job's log)."""

from __future__ import annotations

import os
import sys
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")

# tqdm is imported only when a bar is shown: off a terminal (logs, CI, the tests) it is never
# needed, and it takes about a tenth of a second to load


def _shown() -> bool:
    if os.environ.get("CAD_NO_PROGRESS"):
        return False
    return bool(os.environ.get("CAD_PROGRESS")) or sys.stderr.isatty()


def progress(it: Iterable[T], total: int | None = None, desc: str = "", unit: str = "it") -> Iterator[T]:
    if not _shown():
        yield from it
        return
    from tqdm import tqdm

    yield from tqdm(it, total=total, desc=desc, unit=unit, leave=False, dynamic_ncols=True)


class StageProgress:
    """A whole stage's progress over its shards: done / total, rate and ETA, left on the screen at
    the end as the stage's summary. Shards reused from an earlier run leave the count (they took
    no time here, and would make the rate a lie)."""

    def __init__(self, total: int, desc: str, unit: str = "shard"):
        self._bar = None
        self._desc = desc
        self.reused = 0
        if _shown():
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True)

    def done(self) -> None:
        if self._bar is not None:
            self._bar.update(1)

    def skipped(self) -> None:
        self.reused += 1
        if self._bar is not None:
            self._bar.total -= 1
            self._bar.set_description(f"{self._desc} ({self.reused} reused)", refresh=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
