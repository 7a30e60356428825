"""Input lines as a translator reads them: a blank line is translated as an empty line, and a
line longer than `--max-sentence-length` words is either cut into pieces of at most that length
(each translated on its own, the translations joined) or passed through unchanged, as the user
chooses; both with a warning naming the line."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

LONG_LINES = ("split", "pass")
# a piece preferably ends after one of these, in the second half of its window
BREAKS = (".", "!", "?", ";", ":", ",")


def split_points(tokens: list[str], max_len: int) -> list[tuple[int, int]]:
    """Spans [start, end) covering `tokens`, each of at most `max_len` tokens, each ending after
    the last sentence or clause punctuation in the second half of its window where there is one."""
    if max_len <= 0:
        raise ValueError("max_len must be positive")
    out = []
    start, n = 0, len(tokens)
    while start < n:
        end = min(n, start + max_len)
        if end < n:
            for k in range(end, start + max_len // 2, -1):
                if tokens[k - 1] in BREAKS:
                    end = k
                    break
        out.append((start, end))
        start = end
    return out


def long_line(tokens: list[str], max_len: int, mode: str, where: str) -> list[tuple[int, int]] | None:
    """How a line of `tokens` is translated under --max-sentence-length `max_len` (0: no limit):
    None for as it is, else its pieces ([] to pass it through); warns about a long line."""
    if not max_len or len(tokens) <= max_len:
        return None
    if mode == "pass":
        log.warning("%s: %d words, more than --max-sentence-length %d: passed through untranslated",
                    where, len(tokens), max_len)
        return []
    pieces = split_points(tokens, max_len)
    log.warning("%s: %d words, more than --max-sentence-length %d: translated in %d pieces", where, len(tokens),
                max_len, len(pieces))
    return pieces
