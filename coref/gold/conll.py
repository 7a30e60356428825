"""LitBank's CoNLL coreference files: one token per line, the last column holding chain brackets
such as `(0`, `0)`, `(2)` or `(60|(3)`; blank lines separate sentences."""

from __future__ import annotations

import os
import re

from cad.core.errors import CadError
from cad.core.textio import read_lines
from coref.gold.model import GoldDocument, GoldMention

_OPEN = re.compile(r"^\((\d+)$")
_CLOSE = re.compile(r"^(\d+)\)$")
_BOTH = re.compile(r"^\((\d+)\)$")


def read_conll(path: str | os.PathLike) -> list[GoldDocument]:
    p = str(path)
    docs: list[GoldDocument] = []
    doc = None
    open_: dict[str, list[int]] = {}
    counter = 0
    new_sentence = True
    for lineno, line in enumerate(read_lines(p), 1):
        if line.startswith("#begin document"):
            name = line[len("#begin document"):].strip().split(";")[0].strip(" ()")
            doc = GoldDocument(name, [], [], [])
            docs.append(doc)
            open_ = {}
            new_sentence = True
            continue
        if line.startswith("#end document"):
            if open_:
                raise CadError(f"unclosed mentions {sorted(open_)} at document end", p, lineno)
            doc = None
            continue
        if not line.strip():
            new_sentence = True
            continue
        if doc is None:
            raise CadError("token line outside '#begin document'", p, lineno)
        cols = line.split("\t")
        if len(cols) < 5:
            raise CadError(f"expected at least 5 tab-separated columns, got {len(cols)}", p, lineno)
        tok = len(doc.tokens)
        if new_sentence:
            doc.sentence_starts.append(tok)
            new_sentence = False
        doc.tokens.append(cols[3])
        field = cols[-1].strip()
        if field in ("", "_", "-"):
            continue
        for part in field.split("|"):
            if m := _BOTH.match(part):
                counter += 1
                doc.mentions.append(GoldMention(f"m{counter}", [tok], m.group(1)))
            elif m := _OPEN.match(part):
                open_.setdefault(m.group(1), []).append(tok)
            elif m := _CLOSE.match(part):
                starts = open_.get(m.group(1))
                if not starts:
                    raise CadError(f"closing bracket for chain {m.group(1)} that is not open", p, lineno)
                start = starts.pop()
                if not starts:
                    del open_[m.group(1)]
                counter += 1
                doc.mentions.append(GoldMention(f"m{counter}", list(range(start, tok + 1)), m.group(1)))
            else:
                raise CadError(f"malformed coreference field {field!r}", p, lineno)
    for d in docs:
        d.mentions.sort(key=lambda m: m.tokens[0])
    return docs
