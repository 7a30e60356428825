"""The referent type of a pronoun (coref.referent): the entity type of a noun phrase from its head
(WordNet's class, the named-entity label, the head word), learned from GUM's typed mentions, and
a pronoun's type as what its ranked list of antecedents adds up to:

    P(pleonastic) = 1 - P(referential)
    P(event)      = P(referential) * sum of the probabilities of clause candidates (and of pronouns
                    whose chain started at a clause)
    P(np:t)       = P(referential) * sum over noun-phrase candidates c of P(c) * P(t | c)

where a pronoun candidate's P(t | c) is that of the first noun of its chain (a pronoun that joins
an earlier *it*'s chain takes that chain's type), or of the pronoun itself where the chain has none.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from cad.core.errors import CadError
from cad.core.threads import one_blas_thread
from coref.english.lexicon import head_class, noun_lexnames, selection
from coref.english.mentions import Mention
from coref.gold.gum import ENTITY_TYPES
from coref.softmax import softmax

TYPES = ENTITY_TYPES


def event_features(site, ana_feats: list[str]) -> list[str]:
    """What says that a referring pronoun stands for a clause: its context (the anaphoricity
    features: the words after it, its governor, the predicate of *be*) and what its governor wants."""
    sel = selection(site.gov_lemma, site.role, site.pred)
    return ana_feats + [f"sel={sel}|{site.pclass}", f"pred={site.pred}|{site.pclass}",
                        f"govrole={site.gov_lemma}:{site.role}|{site.pclass}"]


def type_features(m: Mention | None, doc, word: str = "") -> list[str]:
    """What the type of mention `m` (of parsed sentence `doc`) is read from; for a pronoun with no
    noun in its chain, `m` is None and `word` the pronoun."""
    if m is None or m.pronoun:
        return ["bias", f"pron={(word or (m.text if m else '')).lower()}"]
    head = doc[m.head]
    lex, anim = head_class(head)
    f = ["bias", f"lex={lex}", f"anim={anim}", f"ent={m.ent or '-'}", f"pos={head.pos_}", f"num={m.number}",
         f"hum={m.human}", f"head={head.lemma_.lower()}", f"kind={m.kind}"]
    if head.pos_ == "NOUN":
        f += [f"sense={name}" for name, w in noun_lexnames(head.lemma_.lower()) if w >= 0.2]
    if head.pos_ == "PROPN" and not m.ent:
        f.append("propn_no_ent")
    return f


@dataclass
class TypeModel:
    """Multinomial logistic regression over TYPES: one weight vector per feature."""
    vocab: dict[str, int]
    weights: np.ndarray             # features x types

    def distribution(self, feats: list[str]) -> dict[str, float]:
        rows = [self.vocab[f] for f in dict.fromkeys(feats) if f in self.vocab]
        s = self.weights[rows].sum(axis=0) if rows else np.zeros(len(TYPES))
        return {t: float(p) for t, p in zip(TYPES, softmax(s))}

    @classmethod
    def fit(cls, examples: list[tuple[list[str], str]], l2: float = 1.0, min_count: int = 2,
            max_iter: int = 300) -> "TypeModel":
        from scipy.optimize import minimize
        from scipy.sparse import csr_matrix

        counts = Counter(f for feats, _ in examples for f in set(feats))
        vocab = {f: i for i, f in enumerate(sorted(f for f, c in counts.items() if c >= min_count))}
        rows, cols = [], []
        for r, (feats, _) in enumerate(examples):
            for f in set(feats):
                if f in vocab:
                    rows.append(r)
                    cols.append(vocab[f])
        x = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(examples), len(vocab)))
        y = np.zeros((len(examples), len(TYPES)))
        y[np.arange(len(examples)), [TYPES.index(t) for _, t in examples]] = 1.0
        shape = (len(vocab), len(TYPES))

        def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
            w = w.reshape(shape)
            s = x @ w
            s -= s.max(axis=1, keepdims=True)
            lse = np.log(np.exp(s).sum(axis=1))
            p = np.exp(s - lse[:, None])
            loss = float(np.sum(lse - (s * y).sum(axis=1))) + 0.5 * l2 * float((w * w).sum())
            return loss, (x.T @ (p - y) + l2 * w).ravel()

        with one_blas_thread():
            res = minimize(objective, np.zeros(shape[0] * shape[1]), jac=True, method="L-BFGS-B",
                           options={"maxiter": max_iter})
        return cls(vocab, res.x.reshape(shape))

    def to_dict(self) -> dict:
        names = sorted(self.vocab, key=self.vocab.get)
        return {"types": list(TYPES), "weights": {f: [round(float(v), 5) for v in self.weights[self.vocab[f]]]
                                                  for f in names if np.abs(self.weights[self.vocab[f]]).max() >= 1e-5}}

    @classmethod
    def from_dict(cls, d: dict, path: str = "") -> "TypeModel":
        try:
            if list(d["types"]) != list(TYPES):
                raise ValueError("other entity types")
            items = sorted(d["weights"].items())
            return cls({f: i for i, (f, _) in enumerate(items)},
                       np.array([[float(v) for v in w] for _, w in items]).reshape(len(items), len(TYPES)))
        except (KeyError, AttributeError, TypeError, ValueError) as exc:
            raise CadError(f"not an entity-type model ({exc})", path) from None


def type_distribution(model: TypeModel, feats: list[str]) -> dict[str, float]:
    return model.distribution(feats)


def referent_distribution(p_ref: float, candidates: list[Mention], probs, type_dists: list[dict | None],
                          own: dict[str, float], p_event: float | None = None) -> dict[str, float]:
    """Labels (pleonastic, event, np:<type>) with their probabilities (see the module's doc);
    `type_dists[j]` is None for a candidate that stands for a clause, `own` the pronoun's own type
    distribution for a referential pronoun without noun-phrase candidates. With `p_event`
    (P(a clause | the pronoun refers), the event model's), the clause's share is that, and the
    noun-phrase candidates share the rest by their ranked probabilities."""
    out = {"pleonastic": 1.0 - p_ref, "event": 0.0}
    nominal = [(float(p), d) for p, d in zip(probs if probs is not None else [], type_dists) if d is not None]
    clause = sum(float(p) for p, d in zip(probs if probs is not None else [], type_dists) if d is None)
    mass = sum(p for p, _ in nominal)
    if p_event is None:
        p_event = clause if nominal or clause else 0.0
    out["event"] = p_ref * p_event
    if mass <= 0:
        nominal, mass = [(1.0, own)], 1.0
    for p, dist in nominal:
        for t, q in dist.items():
            out["np:" + t] = out.get("np:" + t, 0.0) + p_ref * (1.0 - p_event) * (p / mass) * q
    return out
