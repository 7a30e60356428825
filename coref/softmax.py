"""A log-linear ranker over groups of alternatives: P(j | group) = exp(w·x_j) / Σ_k exp(w·x_k).

Mention ranking (one group per pronoun, one alternative per candidate antecedent) and binary
logistic regression (two alternatives: the features, and nothing) are both this model. It is
trained by L-BFGS on the negative log-likelihood of the gold alternatives (a group may have
several right answers: every mention of the gold chain) with an L2 penalty, and stored as JSON
so that a model file does not depend on a library's pickle format.
"""

from __future__ import annotations

import gzip
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from cad.core.errors import CadError
from cad.core.textio import atomic_output
from cad.core.threads import one_blas_thread



@dataclass(frozen=True, eq=False)
class Dense:
    """Many real-valued features in one object: `values[i]` is the value of `names[i]`. A pretrained
    scorer's vector (144 attention values a candidate) would otherwise cost a Python tuple and float
    per value and candidate, gigabytes over the gold corpora's ranking groups; `names` is meant to be
    one shared tuple. Compared by identity, so that an alternative's features dedupe as before."""
    names: tuple[str, ...]
    values: np.ndarray


# the features of each alternative: a name (binary, 1), a (name, value) pair (real-valued), or a Dense block
Feature = "str | tuple[str, float] | Dense"
Group = Sequence[Sequence[Feature]]


def _named(f) -> tuple[str, float]:
    return (f, 1.0) if isinstance(f, str) else (f[0], float(f[1]))


@dataclass
class SoftmaxRanker:
    vocab: dict[str, int]
    weights: np.ndarray
    # a Dense block's names tuple (by identity) -> (the tuple, its names' weights)
    _columns: dict = field(default_factory=dict, repr=False, compare=False)

    def _block_weights(self, names: tuple[str, ...]) -> np.ndarray:
        """The weights of a Dense block's names (0 for a name the model lacks), computed once per names tuple."""
        got = self._columns.get(id(names))
        if got is None or got[0] is not names:
            got = (names, np.array([self.weights[self.vocab[n]] if n in self.vocab else 0.0 for n in names]))
            self._columns[id(names)] = got
        return got[1]

    # -- scoring --------------------------------------------------------------------------------
    def scores(self, group: Group) -> np.ndarray:
        w = self.weights
        v = self.vocab
        # binary features: a feature listed twice still fires once, as in training; summed in the
        # order listed (a set's order follows the process's string hashing, and the last bits of
        # the sum with it: two processes, the workers of a sharded `cad coref`, would then differ)
        out = []
        for alt in group:
            total = 0.0
            for f in dict.fromkeys(alt):
                if f.__class__ is str:       # the common case, on every candidate of every pronoun
                    j = v.get(f)
                    if j is not None:
                        total += w[j]
                elif f.__class__ is Dense:
                    total += float(self._block_weights(f.names) @ f.values.astype(float))
                else:
                    j = v.get(f[0])
                    if j is not None:
                        total += w[j] * float(f[1])
            out.append(total)
        return np.array(out, dtype=float)

    def probabilities(self, group: Group) -> np.ndarray:
        if not len(group):
            return np.zeros(0)
        return softmax(self.scores(group))

    # -- training -------------------------------------------------------------------------------
    @classmethod
    def fit(cls, groups: list[Group], gold: list[Sequence[bool]], l2: float = 1.0, min_count: int = 2,
            max_iter: int = 500) -> "SoftmaxRanker":
        """Maximum penalized likelihood. Groups without a gold alternative are skipped."""
        # scipy loads only to train: resolving with a stored model needs numpy alone
        from scipy.optimize import minimize
        from scipy.sparse import csr_matrix

        pairs = [(g, y) for g, y in zip(groups, gold) if len(g) and any(y)]
        if not pairs:
            raise CadError("no training group has a gold alternative")
        counts: Counter[str] = Counter()
        blocks: Counter[int] = Counter()         # Dense blocks counted by their names tuple
        named_blocks: dict[int, tuple[str, ...]] = {}
        for g, _ in pairs:
            for alt in g:
                for f in set(alt):
                    if f.__class__ is Dense:
                        blocks[id(f.names)] += 1
                        named_blocks[id(f.names)] = f.names
                    else:
                        counts[_named(f)[0]] += 1
        for key, c in blocks.items():
            for name in named_blocks[key]:
                counts[name] += c
        vocab = {f: i for i, f in enumerate(sorted(f for f, c in counts.items() if c >= min_count))}
        rows, cols, vals, starts, is_gold = [], [], [], [], []
        dense_rows, dense_cols, dense_vals = [], [], []
        block_cols = {key: np.array([vocab.get(n, -1) for n in names], dtype=np.int64)
                      for key, names in named_blocks.items()}
        r = 0
        for g, y in pairs:
            starts.append(r)
            for alt, ok in zip(g, y):
                for f in dict.fromkeys(alt):
                    if f.__class__ is Dense:
                        c = block_cols[id(f.names)]
                        keep = c >= 0
                        dense_cols.append(c[keep])
                        dense_vals.append(np.asarray(f.values, dtype=float)[keep])
                        dense_rows.append(np.full(int(keep.sum()), r, dtype=np.int64))
                        continue
                    name, value = _named(f)
                    if name in vocab:
                        rows.append(r)
                        cols.append(vocab[name])
                        vals.append(value)
                is_gold.append(bool(ok))
                r += 1
        all_rows = np.concatenate([np.array(rows, dtype=np.int64)] + dense_rows)
        all_cols = np.concatenate([np.array(cols, dtype=np.int64)] + dense_cols)
        all_vals = np.concatenate([np.array(vals, dtype=float)] + dense_vals)
        x = csr_matrix((all_vals, (all_rows, all_cols)), shape=(r, len(vocab)))
        starts_a = np.array(starts)
        gold_a = np.array(is_gold)
        seg = np.repeat(np.arange(len(starts)), np.diff(np.append(starts_a, r)))

        def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
            s = x @ w
            lse_all = segment_logsumexp(s, starts_a, seg)
            s_gold = np.where(gold_a, s, -np.inf)
            lse_gold = segment_logsumexp(s_gold, starts_a, seg)
            loss = float(np.sum(lse_all - lse_gold)) + 0.5 * l2 * float(w @ w)
            p = np.exp(s - lse_all[seg])
            q = np.where(gold_a, np.exp(s_gold - lse_gold[seg]), 0.0)
            grad = x.T @ (p - q) + l2 * w
            return loss, grad

        with one_blas_thread():
            res = minimize(objective, np.zeros(len(vocab)), jac=True, method="L-BFGS-B",
                           options={"maxiter": max_iter})
        return cls(vocab, res.x)

    # -- storage --------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        names = sorted(self.vocab, key=self.vocab.get)
        return {"weights": {f: round(float(self.weights[self.vocab[f]]), 6) for f in names
                            if abs(self.weights[self.vocab[f]]) >= 1e-6}}

    @classmethod
    def from_dict(cls, d: dict, path: str = "") -> "SoftmaxRanker":
        try:
            items = sorted(d["weights"].items())
            vocab = {f: i for i, (f, _) in enumerate(items)}
            return cls(vocab, np.array([float(v) for _, v in items]))
        except (KeyError, AttributeError, TypeError, ValueError) as exc:
            raise CadError(f"not a ranker model ({exc})", path) from None


def softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max())
    return e / e.sum()


def segment_logsumexp(s: np.ndarray, starts: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """log Σ exp over consecutive segments; -inf for a segment that is all -inf."""
    m = np.maximum.reduceat(s, starts)
    safe = np.where(np.isfinite(m), m, 0.0)
    total = np.add.reduceat(np.exp(s - safe[seg]), starts)
    with np.errstate(divide="ignore"):
        return np.log(total) + safe


def save_json(obj: dict, path: str | os.PathLike) -> None:
    """Written atomically; gzip (with mtime 0, byte-identical across runs) when the name ends in .gz."""
    with atomic_output(path) as fh:
        fh.write(json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=0))


def load_json(path: str | os.PathLike) -> dict:
    try:
        if str(path).endswith(".gz"):
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                return json.load(fh)
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise CadError("model file not found", str(path)) from None
    except (OSError, EOFError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CadError(f"corrupt model file ({exc})", str(path)) from None
