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

Whether the pronoun refers at all, the pronoun's own attention says too: the anaphoricity model reads,
per head and on the same log scale, the attention from the pronoun to [CLS], to [SEP] and to itself
(where heads with nothing to attend to put their weight) and the total and the largest attention to
the first pieces of the tokens of its window that can head a mention (a pleonastic *it* gives them
little). First pieces, not whole tokens, as the held-out folds were scored.

The choice of chunking, the log scale, the pair of directions, the pronoun's five anaphoricity
readings and the pronoun classes the features are conjoined with were fixed on held-out GUM and news
documents (docs/results.md), not on the TED talks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from coref.english.entities import THIRD_PERSON
from coref.english.minilm import HEADS, LAYERS, MiniLM
from coref.softmax import Dense

CHUNK, STRIDE = 256, 128
# the parts of speech of the tokens that can head the ranker's noun-phrase candidates
HEAD_POS = frozenset({"NOUN", "PROPN", "PRON", "NUM", "X", "ADJ", "SYM", "DET"})
FEATURES = 2 * LAYERS * HEADS
PRONOUN_FEATURES = 5 * LAYERS * HEADS
_LOG_FLOOR, _LOG_SCALE = 0.01, 4.6     # 4.6: about log(100), as the folds were scored


@dataclass
class AttentionScores:
    """What the encoder said about one document's pronouns."""
    # (candidate sentence, candidate token, pronoun sentence, pronoun token) -> float32[144]
    pairs: dict = field(default_factory=dict)
    # (pronoun sentence, pronoun token) -> float32[360]: to [CLS], [SEP], itself, the window's heads (sum, max)
    pronouns: dict = field(default_factory=dict)


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
        out = AttentionScores()
        for c, pronouns in sorted(chunks.items()):
            piece = ids[c:c + room]
            _, att = self.encoder.forward(np.concatenate([[tok.cls], piece, [tok.sep]]))
            att = att.reshape(LAYERS * HEADS, len(piece) + 2, len(piece) + 2)
            for j in pronouns:
                k, pron = toks[j]
                q = start[j] - c + 1
                firsts = []        # the first piece of each token of the window that can head a mention
                a = j - 1
                while a >= 0 and start[a] >= c and toks[a][0] >= k - self.window:
                    ka, t = toks[a]
                    if t.pos_ in HEAD_POS:
                        lo, hi = start[a] - c + 1, end[a] - c + 1
                        firsts.append(lo)
                        out.pairs[(ka, t.i, k, pron.i)] = np.concatenate(
                            [att[:, q, lo:hi].sum(-1), att[:, lo:hi, q].mean(-1)]).astype(np.float32)
                    a -= 1
                heads = att[:, q, firsts] if firsts else np.zeros((LAYERS * HEADS, 1), np.float32)
                out.pronouns[(k, pron.i)] = np.concatenate(
                    [att[:, q, 0], att[:, q, -1], att[:, q, q], heads.sum(-1), heads.max(-1)]).astype(np.float32)
        return out


_NAMES: dict[tuple[str, str], tuple[str, ...]] = {}


def feature_names(pclass: str, prefix: str = "att", n: int = FEATURES) -> tuple[str, ...]:
    """The names of a pronoun class's features (the 144 pair features, or with prefix "ana_att" the 360
    anaphoricity ones), one shared tuple each (coref.softmax.Dense)."""
    names = _NAMES.get((prefix, pclass))
    if names is None:
        names = _NAMES[(prefix, pclass)] = tuple(f"{prefix}{i}|{pclass}" for i in range(n))
    return names


def _log_scale(v: np.ndarray) -> np.ndarray:
    return np.log(v + _LOG_FLOOR) / _LOG_SCALE + 1.0


def ranker_features(scores: AttentionScores, pclass: str, cand_sentence: int, cand_head: int,
                    sentence: int, index: int) -> list:
    """The ranker's features of one (pronoun, noun-phrase candidate) pair: each head's attention,
    both ways, on the log scale, conjoined with the pronoun's class (one Dense block); or that none
    was read."""
    v = scores.pairs.get((cand_sentence, cand_head, sentence, index))
    if v is None:
        return [f"att_missing|{pclass}"]
    return [Dense(feature_names(pclass), _log_scale(v))]


def pronoun_features(scores: AttentionScores, pclass: str, sentence: int, index: int) -> list:
    """The anaphoricity model's features of one pronoun: its own attention (see the module's doc) on the
    log scale, conjoined with its class (one Dense block); none where the encoder did not read it."""
    v = scores.pronouns.get((sentence, index))
    if v is None:
        return []
    return [Dense(feature_names(pclass, "ana_att", PRONOUN_FEATURES), _log_scale(v))]
