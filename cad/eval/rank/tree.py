"""Labelled ordered trees, with the bracketed text form SVM-light-TK and Moschitti's papers use:
`(S (NP (DT the) (NN cat)) (VP (VBZ sleeps)))`. A leaf is a tree without children (a word)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from cad.core.errors import CadError

_ESCAPES = {"(": "-LRB-", ")": "-RRB-"}


@dataclass
class Tree:
    label: str
    children: list["Tree"] = field(default_factory=list)

    def is_leaf(self) -> bool:
        return not self.children

    def is_preterminal(self) -> bool:
        return bool(self.children) and all(c.is_leaf() for c in self.children)

    def nodes(self) -> Iterator["Tree"]:
        """Every node, parents before children (pre-order)."""
        stack = [self]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))

    def leaves(self) -> list[str]:
        return [n.label for n in self.nodes() if n.is_leaf()]

    def __str__(self) -> str:
        label = _escape(self.label)
        if self.is_leaf():
            return label
        return "(" + label + " " + " ".join(str(c) for c in self.children) + ")"

    @classmethod
    def parse(cls, text: str) -> "Tree":
        """The bracketed form back; labels may not hold spaces or brackets (written -LRB-, -RRB-)."""
        tokens = text.replace("(", " ( ").replace(")", " ) ").split()
        if not tokens:
            raise CadError("empty tree")
        pos = 0

        def node() -> Tree:
            nonlocal pos
            if tokens[pos] == ")":
                raise CadError(f"unexpected ')' at token {pos + 1} of {text!r}")
            if tokens[pos] != "(":
                pos += 1
                return Tree(tokens[pos - 1])
            pos += 1
            if pos >= len(tokens) or tokens[pos] in "()":
                raise CadError(f"a bracket without a label at token {pos + 1} of {text!r}")
            t = Tree(tokens[pos])
            pos += 1
            while pos < len(tokens) and tokens[pos] != ")":
                t.children.append(node())
            if pos >= len(tokens):
                raise CadError(f"unbalanced brackets in {text!r}")
            pos += 1
            return t

        tree = node()
        if pos != len(tokens):
            raise CadError(f"text after the tree's end at token {pos + 1} of {text!r}")
        return tree


def _escape(label: str) -> str:
    for k, v in _ESCAPES.items():
        label = label.replace(k, v)
    return label.replace(" ", "_")
