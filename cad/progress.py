"""Progress bars on stderr, shown only on a terminal so logs and CI stay quiet."""

from __future__ import annotations

import os
import sys
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")


def progress(it: Iterable[T], total: int | None = None, desc: str = "", unit: str = "it") -> Iterator[T]:
    if os.environ.get("CAD_NO_PROGRESS") or not sys.stderr.isatty():
        yield from it
        return
    from tqdm import tqdm

    yield from tqdm(it, total=total, desc=desc, unit=unit, leave=False, dynamic_ncols=True)
