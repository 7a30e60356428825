"""Prose cut into sentences for `"split": true` (the page sends what a person typed): a sentence
ends at . ! ? (or an ellipsis), with any closing quotes or brackets, before white space and a
word that starts with a capital, a digit or an opening quote; not after a title or an initial
(*Mr. Smith*, *J. R. R. Tolkien*) or a single letter followed by a period (*e.g.*, *i.e.*).
Simpler than Moses's split-sentences.perl, and enough for typed text."""

from __future__ import annotations

import re

# a sentence's end: the punctuation and closing marks, then the white space it is cut at
_END = re.compile(r"""([.!?]+|\u2026)(["'\u201d\u2019)\]]*)(\s+)(?=["'\u201c\u2018(\[]?[A-Z0-9\u00c0-\u00de])""")
# words after which a period does not end a sentence
NON_BREAKING = {"mr", "mrs", "ms", "dr", "prof", "st", "mt", "jr", "sr", "vs", "no", "fig", "gen", "col", "lt",
                "sgt", "capt", "rev", "hon", "messrs", "mme", "mlle", "ph.d", "e.g", "i.e", "cf", "approx"}


def split_sentences(text: str) -> list[str]:
    """The sentences of one line of prose, stripped; none for a blank line."""
    out, start = [], 0
    for m in _END.finditer(text):
        before = text[start:m.start()].split()
        last = before[-1].lower().rstrip(".") if before else ""
        if m.group(1) == "." and not m.group(2) and (last in NON_BREAKING or len(last) == 1 and last.isalpha()):
            continue
        out.append(text[start:m.start(3)].strip())
        start = m.end(3)
    rest = text[start:].strip()
    if rest:
        out.append(rest)
    return out
