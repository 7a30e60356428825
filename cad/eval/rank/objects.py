"""The learning objects of seed 002: a hypothesis with its reference, as two trees each marked
with -REL where it matches the other (K(<t,r>,<t',r'>) = TK(t^r, t'^r') + TK(r^t, r'^t'))."""

from __future__ import annotations

import gzip
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from cad.core.errors import CadError
from cad.core.progress import progress
from cad.eval.rank.syntax import load_parser, mark_relations, parse_texts, syntax_only
from cad.eval.rank.tree import Tree

# the trees a metric can read: seed 002's SYN (chunks, POS, words) and SYN with the clause layer
STRUCTURES = ("SYN", "SYN+CLS")


@dataclass
class Pair:
    """One hypothesis against its reference: plain and REL-marked trees of both."""
    hyp: Tree
    ref: Tree
    hyp_rel: Tree
    ref_rel: Tree


def make_pair(hyp: Tree, ref: Tree, structure: str = "SYN+CLS") -> Pair:
    """`hyp` and `ref` as the tree cache holds them (with the clause layer); SYN drops it."""
    if structure not in STRUCTURES:
        raise CadError(f"unknown structure {structure!r}: {', '.join(STRUCTURES)}")
    if structure == "SYN":
        hyp, ref = syntax_only(hyp), syntax_only(ref)
    return Pair(hyp, ref, mark_relations(hyp, ref.leaves()), mark_relations(ref, hyp.leaves()))


class TreeCache:
    """Parsed trees by text, kept in a gzipped TSV (sha1 of the text, bracketed tree) so that a
    corpus is parsed once; the parser loads only when a text is missing."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path else None
        self.trees: dict[str, str] = {}
        self._new: dict[str, str] = {}
        self._nlp = None
        if self.path and self.path.exists():
            with gzip.open(self.path, "rt", encoding="utf-8") as fh:
                for lineno, line in enumerate(fh, 1):
                    key, sep, tree = line.rstrip("\n").partition("\t")
                    if not sep:
                        raise CadError("expected sha1<TAB>tree", str(self.path), lineno)
                    self.trees[key] = tree

    VERSION = "cad-rank-trees-2"      # bump when the tree builder changes: old entries are not reused

    @classmethod
    def key(cls, text: str) -> str:
        return hashlib.sha1(f"{cls.VERSION}\n{text}".encode("utf-8")).hexdigest()

    def parse(self, texts: list[str], desc: str = "parse") -> list[Tree]:
        missing = sorted({t for t in texts if self.key(t) not in self.trees})
        if missing:
            if self._nlp is None:
                self._nlp = load_parser()
            for text, tree in progress(zip(missing, parse_texts(self._nlp, missing)), total=len(missing),
                                       desc=desc, unit="text"):
                self.trees[self.key(text)] = self._new[self.key(text)] = str(tree)
        return [Tree.parse(self.trees[self.key(t)]) for t in texts]

    def save(self) -> None:
        if not self.path or not self._new:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with gzip.open(tmp, "wt", encoding="utf-8") as fh:
            for k in sorted(self.trees):
                fh.write(f"{k}\t{self.trees[k]}\n")
        os.replace(tmp, self.path)
        self._new.clear()
