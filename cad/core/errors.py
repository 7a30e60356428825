"""Errors that name the file and line a user has to fix."""

from __future__ import annotations


class CadError(Exception):
    """A user-facing error: printed without a traceback, exit status 1 (2 for usage)."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        self.message = message
        self.path = path
        self.line = line
        super().__init__(self.__str__())

    def __reduce__(self):
        # a shard task's error crosses from a Dask worker whole: the file and line it names included
        return (type(self), (self.message, self.path, self.line))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = f"{self.path}"
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        return f"{where}{self.message}"
