"""External sorting in bounded memory: sorted runs on disk merged with a heap.

Keys are compared as Python strings, which for UTF-8 text is the same order as `LC_ALL=C sort`
on bytes (UTF-8 preserves code point order), the order Moses's tables are written in.
"""

from __future__ import annotations

import heapq
import os
import tempfile
from collections import Counter
from typing import Iterator

MAX_FAN_IN = 64


def _write_run(dirpath: str, lines: list[str]) -> str:
    fd, path = tempfile.mkstemp(prefix="run-", suffix=".txt", dir=dirpath)
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n", buffering=1 << 20) as fh:
        fh.writelines(lines)
    return path


def _read_run(path: str) -> Iterator[str]:
    with open(path, encoding="utf-8", newline="\n", buffering=1 << 20) as fh:
        yield from fh


class ExternalSorter:
    """Sort newline-free strings with at most `max_items` of them in memory at once."""

    def __init__(self, tmpdir: str | None = None, max_items: int = 1_000_000):
        self._own_tmp = tempfile.TemporaryDirectory(prefix="cad-sort-", dir=tmpdir)
        self.tmpdir = self._own_tmp.name
        self.max_items = max_items
        self._buf: list[str] = []
        self._runs: list[str] = []
        self._external: set[str] = set()

    def add(self, line: str) -> None:
        self._buf.append(line)
        if len(self._buf) >= self.max_items:
            self._flush()

    def _flush(self) -> None:
        if self._buf:
            self._buf.sort()
            self._runs.append(_write_run(self.tmpdir, [s + "\n" for s in self._buf]))
            self._buf = []

    def _reduce_runs(self) -> None:
        while len(self._runs) > MAX_FAN_IN:
            group, self._runs = self._runs[:MAX_FAN_IN], self._runs[MAX_FAN_IN:]
            fd, path = tempfile.mkstemp(prefix="merge-", suffix=".txt", dir=self.tmpdir)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n", buffering=1 << 20) as fh:
                fh.writelines(heapq.merge(*(_read_run(p) for p in group)))
            for p in group:
                if p not in self._external:
                    os.unlink(p)
            self._runs.append(path)

    def __iter__(self) -> Iterator[str]:
        if not self._runs:
            # everything fits in memory: no disk round trip
            self._buf.sort()
            yield from self._buf
            self._buf = []
            return
        self._flush()
        self._reduce_runs()
        for line in heapq.merge(*(_read_run(p) for p in self._runs)):
            yield line[:-1]

    def close(self) -> None:
        self._own_tmp.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class ExternalCounter:
    """Count string keys in bounded memory; iterate (key, count) in sorted key order.

    Keys are aggregated in memory until `max_items` distinct keys are held, then spilled as a
    sorted run of `key<TAB>count` lines (keys must not contain tabs or newlines).
    """

    def __init__(self, tmpdir: str | None = None, max_items: int = 1_000_000):
        self._sorter = ExternalSorter(tmpdir, max_items)
        self.max_items = max_items
        self._counts: Counter[str] = Counter()

    def add(self, key: str, count: int = 1) -> None:
        self._counts[key] += count
        if len(self._counts) >= self.max_items:
            self._spill()

    def add_run(self, path: str | os.PathLike) -> None:
        """A sorted run of `key<TAB>count` lines written elsewhere (a shard's extraction), merged
        with the others and never deleted, so that an interrupted scoring can resume from it."""
        self._sorter._runs.append(str(path))
        self._sorter._external.add(str(path))

    def _spill(self) -> None:
        lines = sorted(self._counts.items())
        self._sorter._runs.append(_write_run(self._sorter.tmpdir, [f"{k}\t{c}\n" for k, c in lines]))
        self._counts = Counter()

    def __iter__(self) -> Iterator[tuple[str, int]]:
        if not self._sorter._runs:
            yield from sorted(self._counts.items())
            return
        self._spill()
        self._sorter._reduce_runs()
        cur_key, cur_count = None, 0
        # Runs are merged as "key<TAB>count" strings; '\t' sorts below every printable character,
        # so equal keys come out adjacent and in key order.
        for line in heapq.merge(*(_read_run(p) for p in self._sorter._runs)):
            key, _, cnt = line[:-1].rpartition("\t")
            if key == cur_key:
                cur_count += int(cnt)
            else:
                if cur_key is not None:
                    yield cur_key, cur_count
                cur_key, cur_count = key, int(cnt)
        if cur_key is not None:
            yield cur_key, cur_count

    def close(self) -> None:
        self._sorter.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
