"""Reading APT's word-list files; the default lists of English→French are cad/lang/fr.py's and en.py's."""

from __future__ import annotations

import os

from cad.core.errors import CadError
# the languages' lists live in cad/lang; these names are kept for the stages that read them here
from cad.lang.en import SOURCE_PRONOUN_DICT as EN_PRONOUN_DICT, SOURCE_PRONOUNS as EN_SOURCE_PRONOUNS  # noqa: F401
from cad.lang.fr import (  # noqa: F401
    EQUAL as FR_EQUAL, NONE, OTHER, PRONOUN_DICT as FR_PRONOUN_DICT, SIMILAR as FR_SIMILAR,
    TARGET_PRONOUNS as FR_TARGET_PRONOUNS)
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
