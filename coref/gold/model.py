"""Gold documents: tokens by sentence, mentions (possibly discontinuous), chains."""

from __future__ import annotations

import bisect
import difflib
from dataclasses import dataclass, field


@dataclass
class GoldMention:
    id: str
    tokens: list[int]               # document-level token indices (sorted; may be discontinuous)
    chain: str | None               # None for a singleton or unlinked mention
    attrs: dict[str, str] = field(default_factory=dict)


@dataclass
class GoldDocument:
    doc_id: str
    tokens: list[str]
    sentence_starts: list[int]      # document-level index of each sentence's first token
    mentions: list[GoldMention] = field(default_factory=list)

    def chains(self) -> dict[str, list[GoldMention]]:
        out: dict[str, list[GoldMention]] = {}
        for m in self.mentions:
            if m.chain is not None:
                out.setdefault(m.chain, []).append(m)
        for ms in out.values():
            ms.sort(key=lambda m: m.tokens[0])
        return out

    def sentence_of(self, token: int) -> tuple[int, int]:
        """(sentence, index in sentence) of a document-level token."""
        s = bisect.bisect_right(self.sentence_starts, token) - 1
        return s, token - self.sentence_starts[s]

    def sentences(self) -> list[list[str]]:
        bounds = self.sentence_starts + [len(self.tokens)]
        return [self.tokens[bounds[i]:bounds[i + 1]] for i in range(len(self.sentence_starts))]


def token_map(gold: list[str], ours: list[str]) -> list[list[int]]:
    """For every gold token, the indices of our tokens that share its characters.

    Tokens are aligned first (fast: most tokens agree), then the characters inside each block
    that differs, so splits and merges (`can't` vs `ca n't`) map correctly; characters that differ
    (quote styles, for instance) map to nothing.
    """
    gold = [t.lower() for t in gold]       # case does not matter for the mapping
    ours = [t.lower() for t in ours]
    out: list[set[int]] = [set() for _ in gold]
    sm = difflib.SequenceMatcher(None, gold, ours, autojunk=False)
    for tag, a0, a1, b0, b1 in sm.get_opcodes():
        if tag == "equal":
            for k in range(a1 - a0):
                out[a0 + k].add(b0 + k)
        elif tag == "replace":
            g_owner = [i for i in range(a0, a1) for _ in gold[i]]
            o_owner = [j for j in range(b0, b1) for _ in ours[j]]
            g_text = "".join(gold[a0:a1])
            o_text = "".join(ours[b0:b1])
            inner = difflib.SequenceMatcher(None, g_text, o_text, autojunk=False)
            for a, b, size in inner.get_matching_blocks():
                for k in range(size):
                    out[g_owner[a + k]].add(o_owner[b + k])
    return [sorted(x) for x in out]
