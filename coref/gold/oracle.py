"""The gold backend: antecedents of pronouns read from gold chains, mapped onto cad's tokens."""

from __future__ import annotations

import bisect
import difflib
import os
from pathlib import Path

from cad.core.errors import CadError
from cad.defaults import COREF_PRONOUNS
from coref.backends import Backend, BackendOptions
from coref.gold.brat import read_brat
from coref.gold.conll import read_conll
from coref.gold.mmax import list_mmax, read_mmax
from coref.gold.model import GoldDocument, GoldMention, token_map
from coref.records import Candidate, PronounResolution

PRONOUN_MENTION = {"pronoun", "PRON"}
# words after which a noun phrase's head has been reached ("the number of books": number)
_HEAD_STOP = {"of", "that", "which", "who", "whom", "whose", "with", "in", "on", "at", "from", ",", "to", "for"}


def head_of(tokens: list[str], span: list[int]) -> int:
    """A parser-free head guess for a gold span: the last word before a post-modifier."""
    block = [span[0]]
    for t in span[1:]:
        if t != block[-1] + 1:
            break
        block.append(t)
    for i, t in enumerate(block[1:], 1):
        if tokens[t].lower() in _HEAD_STOP:
            return block[i - 1]
    return block[-1]


def _is_pronoun(m: GoldMention, tokens: list[str], pronouns: set[str]) -> bool:
    if m.attrs.get("mention") in PRONOUN_MENTION:
        return True
    return len(m.tokens) == 1 and tokens[m.tokens[0]].lower() in pronouns


def resolve_with_gold(gold: GoldDocument, sentences: list[list[str]], doc_id: str,
                      pronouns: tuple[str, ...] = COREF_PRONOUNS) -> list[PronounResolution]:
    """For each pronoun of `sentences`, its nearest preceding nominal mention in its gold chain."""
    ours = [t for s in sentences for t in s]
    starts, k = [], 0
    for s in sentences:
        starts.append(k)
        k += len(s)

    def where(i: int) -> tuple[int, int]:
        s = bisect.bisect_right(starts, i) - 1
        return s, i - starts[s]

    g2o = token_map(gold.tokens, ours)
    o2g: dict[int, list[int]] = {}
    for g, os_ in enumerate(g2o):
        for o in os_:
            o2g.setdefault(o, []).append(g)
    by_token: dict[int, list[GoldMention]] = {}
    for m in gold.mentions:
        for t in m.tokens:
            by_token.setdefault(t, []).append(m)
    chains = gold.chains()
    pron_set = set(pronouns) | {"he", "she", "him", "her", "them", "its", "their", "this", "that", "these", "those"}
    out = []
    for i, tok in enumerate(ours):
        if tok.lower() not in pronouns:
            continue
        s, idx = where(i)
        rec = PronounResolution(doc_id, s, idx, tok, referential=False)
        gtoks = o2g.get(i, [])
        # the smallest gold mention covering this pronoun
        mentions = sorted({id(m): m for g in gtoks for m in by_token.get(g, [])}.values(), key=lambda m: len(m.tokens))
        m = mentions[0] if mentions else None
        if m is not None and m.chain is not None and m.attrs.get("type") != "pleonastic":
            rec.referential = True
            before = [x for x in chains[m.chain] if x.tokens[-1] < m.tokens[0]]
            nominal = [x for x in before if not _is_pronoun(x, gold.tokens, pron_set)]
            ante = (nominal or before or [None])[-1]
            if ante is None:
                # cataphora: the first nominal mention after the pronoun
                after = [x for x in chains[m.chain] if x.tokens[0] > m.tokens[-1]
                         and not _is_pronoun(x, gold.tokens, pron_set)]
                ante = after[0] if after else None
            if ante is not None:
                mapped = sorted({o for g in ante.tokens for o in g2o[g]})
                head_o = g2o[head_of(gold.tokens, ante.tokens)]
                if mapped and head_o:
                    cs, cstart = where(mapped[0])
                    last = max(o for o in mapped if where(o)[0] == cs)
                    hs, hidx = where(head_o[-1])
                    rec.candidates = [Candidate(cs, cstart, where(last)[1] + 1, hidx if hs == cs else cstart,
                                                " ".join(ours[o] for o in mapped), 1.0)]
        out.append(rec)
    return out


class GoldResolver(Backend):
    """Oracle links from gold annotation: an MMAX2 directory (ParCorFull) or CoNLL/brat files (LitBank).
    Each input document is matched with the gold document whose text it shares."""

    @classmethod
    def from_options(cls, options: BackendOptions) -> GoldResolver:
        if not options.get("gold"):
            raise CadError("the gold backend needs --gold (an MMAX2 directory, .conll or .ann files)")
        return cls(options.get("gold"), options.pronouns)

    def __init__(self, gold: str | os.PathLike, pronouns=("it", "they")):
        g = Path(gold)
        if not g.exists():
            raise CadError("gold annotation not found", str(g))
        if g.is_dir() and list_mmax(g):
            self.docs = [read_mmax(g, n) for n in list_mmax(g)]
        elif g.is_dir():
            self.docs = [d for f in sorted(g.glob("*.conll")) for d in read_conll(f)]
            self.docs += [read_brat(f) for f in sorted(g.glob("*.ann"))]
        elif g.suffix == ".conll":
            self.docs = read_conll(g)
        elif g.suffix == ".ann":
            self.docs = [read_brat(g)]
        else:
            raise CadError("expected an MMAX2 directory, .conll or .ann files", str(g))
        if not self.docs:
            raise CadError("no gold document found", str(g))
        self.pronouns = pronouns

    def match(self, sentences: list[list[str]]) -> GoldDocument:
        """The gold document whose beginning shares the most text with the first three sentences."""
        text = "".join(t for s in sentences[:3] for t in s).lower()
        return max(self.docs, key=lambda d: sum(b.size for b in difflib.SequenceMatcher(
            None, text, "".join(d.tokens[:len(text)]).lower(), autojunk=False).get_matching_blocks()))

    def resolve(self, doc_id: str, sentences: list[list[str]]) -> list[PronounResolution]:
        return resolve_with_gold(self.match(sentences), sentences, doc_id, self.pronouns)
