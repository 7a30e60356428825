"""The shard directory beside a stage's output: each finished shard's parts, and a completion marker
holding the fingerprint of what made them, so that a rerun reuses exactly the shards still valid."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path

from cad.core.shards.plan import ShardTask
from cad.core.textio import atomic_output


PROBE = "probe"


class ShardStore:
    """`DIR/NNNNNN.<part>` files and the `DIR/NNNNNN.done` marker of shard NNNNNN."""

    def __init__(self, directory: str | os.PathLike):
        self.directory = Path(directory)

    @classmethod
    def beside(cls, output: str | os.PathLike) -> ShardStore:
        """The store of the stage whose (main) output is `output`: `output.shards/`."""
        out = Path(output)
        return cls(out.with_name(out.name + ".shards"))

    def part(self, index: int, name: str) -> Path:
        return self.directory / f"{index:06d}.{name}"

    def _marker(self, index: int) -> Path:
        return self.directory / f"{index:06d}.done"

    def done(self, task: ShardTask) -> bool:
        """Whether the shard's parts were written from this very input and options."""
        try:
            marker = json.loads(self._marker(task.shard.index).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        if not isinstance(marker, dict) or marker.get("fingerprint") != task.fingerprint:
            return False
        return all(self.part(task.shard.index, p).is_file() for p in marker.get("parts", ()))

    def forget(self, task: ShardTask) -> None:
        """Before a shard is run (again): its old marker must not vouch for the new parts."""
        self._marker(task.shard.index).unlink(missing_ok=True)

    def probe(self) -> str:
        """Write a token that a worker reads to learn whether it sees this directory (a worker on
        this machine or on a shared file system writes its parts here itself)."""
        token = uuid.uuid4().hex
        self.directory.mkdir(parents=True, exist_ok=True)
        with atomic_output(self.directory / PROBE, compress=False) as fh:
            fh.write(token)
        return token

    def write(self, task: ShardTask, parts: dict[str, bytes]) -> None:
        """Parts that came back as bytes (from a worker that cannot see this directory), each
        written atomically, then the marker."""
        self._marker(task.shard.index).unlink(missing_ok=True)
        for name, data in parts.items():
            with atomic_output(self.part(task.shard.index, name), binary=True, compress=False) as fh:
                fh.write(data)
        self.mark(task, sorted(parts))

    def mark(self, task: ShardTask, parts: list[str]) -> None:
        """The shard is finished: its parts (each already renamed into place) are from this input.
        A shard interrupted halfway has no marker, and is run again."""
        with atomic_output(self._marker(task.shard.index), compress=False) as fh:
            json.dump({"fingerprint": task.fingerprint, "parts": parts, "shard": task.shard.describe()},
                      fh, sort_keys=True)
            fh.write("\n")

    def remove(self) -> None:
        """After the merge: the final output holds everything the shards did."""
        shutil.rmtree(self.directory, ignore_errors=True)
