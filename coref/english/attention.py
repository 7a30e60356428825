"""What a pretrained encoder's attention says about a pronoun's antecedent: the ranker's pair features
from all-MiniLM-L6-v2's 72 attention heads (coref.english.minilm).

Some heads of BERT-like encoders attend from a pronoun to its antecedent (Clark et al. 2019, "What
does BERT look at?"); which heads, and how much each says, the ranker learns with its other
weights. For every third-person pronoun and every earlier token of its window that can head a
mention, the document's pieces are encoded in chunks and two numbers per head (6 layers x 12) are
kept: the attention from the pronoun's first piece to the token's pieces (summed), and from the
token's pieces to the pronoun (averaged). The ranker reads them on a log scale,
log(a + 0.01) / 4.6 + 1, which maps 0-1 onto about 0-1 (attention is itself a softmax, so a log
ratio of two candidates' attention is what a linear score can use).

Chunks are 256 pieces ([CLS] and [SEP] included) starting every 128 pieces; a pronoun is read in the
first chunk that holds it, so that it has at least 126 pieces of left context where the document
has them (a candidate that falls before the chunk gets `att_missing`). Only chunks that hold a
pronoun so placed are encoded.

The choice of chunking, the log scale, the pair of directions and the pronoun classes the features
are conjoined with were fixed on held-out GUM and news documents (docs/results.md), not on the TED
talks.
"""

from __future__ import annotations

import numpy as np

from coref.english.entities import THIRD_PERSON
from coref.english.minilm import HEADS, LAYERS, MiniLM
from coref.softmax import Dense

CHUNK, STRIDE = 256, 128
# the parts of speech of the tokens that can head the ranker's noun-phrase candidates
HEAD_POS = frozenset({"NOUN", "PROPN", "PRON", "NUM", "X", "ADJ", "SYM", "DET"})
FEATURES = 2 * LAYERS * HEADS
_LOG_FLOOR, _LOG_SCALE = 0.01, 4.6     # 4.6: about log(100), as the folds were scored

# key: (candidate sentence, candidate token, pronoun sentence, pronoun token) -> float32[144]
AttentionScores = dict


def chunk_start(piece: int) -> int:
    """The first piece of the chunk a pronoun at `piece` is read in: the earliest chunk that holds it,
    which gives it the most left context (at least CHUNK - 2 - STRIDE pieces where there are that many)."""
    return max(0, (piece - (CHUNK - 2)) // STRIDE + 1) * STRIDE


class AttentionScorer:
    """The attention features of a parsed document (its sentences' spaCy Docs)."""

    def __init__(self, encoder: MiniLM, window: int = 3):
        self.encoder = encoder
        self.window = window

    @classmethod
    def default(cls, window: int = 3) -> "AttentionScorer":
        return cls(MiniLM.default(), window)

    def pair_scores(self, parsed: list) -> AttentionScores:
        toks = [(k, t) for k, d in enumerate(parsed) for t in d]
        start, end, ids = [], [], []
        for _, t in toks:
            start.append(len(ids))
            ids.extend(self.encoder.tokenizer.token(t.text))
            end.append(len(ids))
        ids = np.asarray(ids, np.int64)
        room = CHUNK - 2
        chunks: dict[int, list[int]] = {}
        for j, (_, t) in enumerate(toks):
            if t.lower_ in THIRD_PERSON:
                c = chunk_start(start[j])
                chunks.setdefault(c, []).append(j)
        tok = self.encoder.tokenizer
        out: AttentionScores = {}
        for c, pronouns in sorted(chunks.items()):
            piece = ids[c:c + room]
            _, att = self.encoder.forward(np.concatenate([[tok.cls], piece, [tok.sep]]))
            att = att.reshape(LAYERS * HEADS, len(piece) + 2, len(piece) + 2)
            for j in pronouns:
                k, pron = toks[j]
                q = start[j] - c + 1
                a = j - 1
                while a >= 0 and start[a] >= c and toks[a][0] >= k - self.window:
                    ka, t = toks[a]
                    if t.pos_ in HEAD_POS:
                        lo, hi = start[a] - c + 1, end[a] - c + 1
                        out[(ka, t.i, k, pron.i)] = np.concatenate(
                            [att[:, q, lo:hi].sum(-1), att[:, lo:hi, q].mean(-1)]).astype(np.float32)
                    a -= 1
        return out


_NAMES: dict[str, tuple[str, ...]] = {}


def feature_names(pclass: str) -> tuple[str, ...]:
    """The names of the 144 features of a pronoun class, one shared tuple each (coref.softmax.Dense)."""
    names = _NAMES.get(pclass)
    if names is None:
        names = _NAMES[pclass] = tuple(f"att{i}|{pclass}" for i in range(FEATURES))
    return names


def ranker_features(scores: AttentionScores, pclass: str, cand_sentence: int, cand_head: int,
                    sentence: int, index: int) -> list:
    """The ranker's features of one (pronoun, noun-phrase candidate) pair: each head's attention,
    both ways, on the log scale, conjoined with the pronoun's class (one Dense block); or that none
    was read."""
    v = scores.get((cand_sentence, cand_head, sentence, index))
    if v is None:
        return [f"att_missing|{pclass}"]
    return [Dense(feature_names(pclass), np.log(v + _LOG_FLOOR) / _LOG_SCALE + 1.0)]
