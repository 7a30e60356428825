"""Moses word-alignment lines (`i-j`, source-target, 0-based)."""

from __future__ import annotations

from cad.core.errors import CadError
from cad.core.textio import is_uint

Alignment = set[tuple[int, int]]


def parse_alignment(line: str, n_src: int | None = None, n_tgt: int | None = None,
                    path: str | None = None, lineno: int | None = None) -> list[tuple[int, int]]:
    points = []
    for tok in line.split():
        i, sep, j = tok.partition("-")
        if not sep or not is_uint(i) or not is_uint(j):
            raise CadError(f"malformed alignment point {tok!r} (expected i-j)", path, lineno)
        a, b = int(i), int(j)
        if (n_src is not None and a >= n_src) or (n_tgt is not None and b >= n_tgt):
            raise CadError(
                f"alignment point {tok} out of range for {n_src} source and {n_tgt} target tokens",
                path, lineno,
            )
        points.append((a, b))
    return points


def format_alignment(points) -> str:
    return " ".join(f"{i}-{j}" for i, j in sorted(points))
