"""Default word lists for English→French pronoun evaluation (seed 000, Table 2 and §3.1)."""

from __future__ import annotations

import os

from cad.errors import CadError
from cad.textio import read_lines

OTHER = "OTHER"
NONE = "NONE"

EN_SOURCE_PRONOUNS = ["it", "they"]
# the translations considered at DiscoMT 2015 (il, elle, ils, elles, ce, on, ça/cela) and their forms
FR_TARGET_PRONOUNS = ["il", "elle", "ils", "elles", "ce", "c'", "on", "ça", "ç'", "cela"]
# identical pronouns (Table 2, left) and equivalent pronouns (Table 2, right)
FR_EQUAL = [["ce", "c'"], ["ça", "ç'", "cela"]]
FR_SIMILAR = [["ce", "il"], ["ce", "ça"]]
# pronoun dictionaries used by the alignment heuristics (§2.3)
EN_PRONOUN_DICT = ["it", "they", "he", "she", "him", "her", "them", "its", "their", "theirs", "his", "hers",
                   "this", "that", "these", "those", "i", "you", "we", "me", "us"]
FR_PRONOUN_DICT = FR_TARGET_PRONOUNS + ["le", "la", "l'", "les", "lui", "leur", "eux", "en", "y", "se", "s'",
                                        "ceci", "celui", "celle", "ceux", "celles", "je", "j'", "tu", "nous",
                                        "vous", "me", "m'", "te", "t'"]


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
