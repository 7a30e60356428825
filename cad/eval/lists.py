"""Reading APT's word-list files (the original tool's layout); the built-in lists are cad/lang's."""

from __future__ import annotations

import os

from cad.core.errors import CadError
from cad.core.textio import read_lines


def read_word_list(path: str | os.PathLike) -> list[str]:
    """One word per line, lowercased; blank lines ignored (as the original APT tool)."""
    return [line.strip().lower() for line in read_lines(path) if line.strip()]


def read_groups(path: str | os.PathLike) -> list[list[str]]:
    """Comma-separated groups of words, one group per line."""
    groups = []
    for lineno, line in enumerate(read_lines(path), 1):
        if not line.strip():
            continue
        words = [w for w in line.replace(" ", "").lower().split(",") if w]
        if not words:
            raise CadError("expected comma-separated words", str(path), lineno)
        groups.append(words)
    return groups
