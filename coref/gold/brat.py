"""brat standoff (`.ann` + `.txt`): `T` lines are mentions with character offsets; chains come from
`*\tCoref T1 T2 ...` equivalence lines or `R` relations named Coref (LitBank's release here has
mentions and appos/cop relations but no chains: use its CoNLL files for links)."""

from __future__ import annotations

import os
from pathlib import Path

from cad.core.errors import CadError
from cad.core.textio import read_lines
from coref.gold.model import GoldDocument, GoldMention


def read_brat(ann: str | os.PathLike, txt: str | os.PathLike | None = None) -> GoldDocument:
    ann = Path(ann)
    txt = Path(txt) if txt else ann.with_suffix(".txt")
    text = "\n".join(read_lines(txt))
    # tokens: whitespace-separated, sentences: lines (LitBank's .txt is tokenized, one sentence a line)
    tokens: list[str] = []
    starts: list[int] = []
    char_tok: dict[int, int] = {}
    offset = 0
    for line in text.split("\n"):
        if line.strip():
            starts.append(len(tokens))
        pos = 0
        for tok in line.split(" "):
            if tok:
                for k in range(len(tok)):
                    char_tok[offset + pos + k] = len(tokens)
                tokens.append(tok)
            pos += len(tok) + 1
        offset += len(line) + 1
    entities: dict[str, GoldMention] = {}
    links: list[list[str]] = []
    for lineno, line in enumerate(read_lines(ann), 1):
        if not line.strip():
            continue
        cols = line.split("\t")
        if cols[0].startswith("T"):
            if len(cols) < 2:
                raise CadError("entity line needs 'T<id><TAB>TYPE start end'", str(ann), lineno)
            parts = cols[1].replace(";", " ").split()
            try:
                offsets = [int(x) for x in parts[1:]]
            except ValueError:
                raise CadError("bad character offsets", str(ann), lineno) from None
            toks = set()
            for a, b in zip(offsets[::2], offsets[1::2]):
                toks.update(char_tok[c] for c in range(a, b) if c in char_tok)
            if not toks:
                raise CadError("mention covers no token of the text", str(ann), lineno)
            entities[cols[0]] = GoldMention(cols[0], sorted(toks), None, {"type": parts[0]})
        elif cols[0] == "*" and len(cols) > 1 and cols[1].split()[:1] == ["Coref"]:
            links.append(cols[1].split()[1:])
        elif cols[0].startswith("R") and len(cols) > 1 and cols[1].split()[:1] == ["Coref"]:
            args = cols[1].split()[1:]
            if any(":" not in a for a in args):
                raise CadError("relation arguments must be 'Arg1:T<id> Arg2:T<id>'", str(ann), lineno)
            links.append([a.split(":", 1)[1] for a in args])
    # union of all linked mentions into chains
    parent = {k: k for k in entities}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for group in links:
        known = [g for g in group if g in entities]
        for g in known[1:]:
            parent[find(g)] = find(known[0])
    sizes: dict[str, int] = {}
    for k in entities:
        sizes[find(k)] = sizes.get(find(k), 0) + 1
    for k, m in entities.items():
        root = find(k)
        m.chain = root if sizes[root] > 1 else None
    mentions = sorted(entities.values(), key=lambda m: m.tokens[0])
    return GoldDocument(ann.stem, tokens, starts or [0], mentions)
