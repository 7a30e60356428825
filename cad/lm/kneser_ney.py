"""Interpolated modified Kneser-Ney estimation (Chen & Goodman 1998), as KenLM's lmplz does it.

* Sentences are padded `<s> ... </s>`. The highest order keeps raw counts; lower orders use
  continuation counts (distinct left extensions), except n-grams starting with `<s>`, which
  cannot be extended and keep raw counts.
* Discounts per order from counts of adjusted counts t1..t4:
  Y = t1/(t1 + 2 t2), D_k = k - (k+1) Y t_{k+1}/t_k for k = 1, 2, 3+.
* p(w|c) = (a(cw) - D(a(cw))) / Σ_x a(cx) + γ(c) p(w|c'), with
  γ(c) = (D1 N1(c•) + D2 N2(c•) + D3 N3+(c•)) / Σ_x a(cx); unigrams interpolate with the uniform
  distribution over the vocabulary without `<s>` (with `<unk>`, whose count is 0).
* The ARPA backoff of a context is its γ, which makes the backoff model equal the interpolated one.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable

from cad.core.errors import CadError

log = logging.getLogger(__name__)

BOS, EOS, UNK = "<s>", "</s>", "<unk>"
FALLBACK_DISCOUNTS = (0.5, 1.0, 1.5)

Gram = tuple[str, ...]


@dataclass
class KNModel:
    order: int
    discounts: list[tuple[float, float, float]]          # per order (index 0 = unigrams)
    prob: list[dict[Gram, float]] = field(default_factory=list)     # interpolated p(w|c), linear
    # γ of each context, linear; backoff[k] holds the contexts of length k+1
    backoff: list[dict[Gram, float]] = field(default_factory=list)

    def vocabulary(self) -> list[str]:
        return sorted(g[0] for g in self.prob[0])

    def p(self, word: str, context: Gram) -> float:
        """Backoff-form probability, identical to the interpolated model."""
        context = tuple(context)[-(self.order - 1):] if self.order > 1 else ()
        if (word,) not in self.prob[0]:
            word = UNK
        weight = 1.0
        while True:
            g = context + (word,)
            hit = self.prob[len(g) - 1].get(g)
            if hit is not None:
                return weight * hit
            weight *= self.backoff[len(context) - 1].get(context, 1.0) if context else 1.0
            context = context[1:]


def compute_discounts(adjusted: Counter, order: int, fallback: bool) -> tuple[float, float, float]:
    t = Counter()
    for c in adjusted.values():
        if 1 <= c <= 4:
            t[c] += 1
    return discounts_from_counts_of_counts([t[k] for k in (1, 2, 3, 4)], order, fallback)


def discounts_from_counts_of_counts(t1_to_t4: list[int], order: int, fallback: bool) -> tuple[float, float, float]:
    """D1..D3+ of one order from the number of n-grams whose adjusted count is 1, 2, 3 and 4."""
    t = dict(zip((1, 2, 3, 4), t1_to_t4))
    try:
        y = t[1] / (t[1] + 2 * t[2])
        d = tuple(k - (k + 1) * y * t[k + 1] / t[k] for k in (1, 2, 3))
    except ZeroDivisionError:
        d = None
    if d is None or not all(0 < x < k + 1 for x, k in zip(d, (1, 2, 3))):
        if not fallback:
            raise CadError(
                f"cannot estimate Kneser-Ney discounts for order {order} from counts of counts "
                f"{[t[k] for k in (1, 2, 3, 4)]}: corpus too small (allow the fallback discounts)"
            )
        log.warning("order %d: counts of counts %s give no valid discounts, using fallback %s",
                    order, [t[k] for k in (1, 2, 3, 4)], FALLBACK_DISCOUNTS)
        return FALLBACK_DISCOUNTS
    return d  # type: ignore[return-value]


def _discount(d: tuple[float, float, float], count: int) -> float:
    return d[min(count, 3) - 1] if count > 0 else 0.0


def estimate(sentences: Iterable[list[str]], order: int = 5, discount_fallback: bool = True) -> KNModel:
    if order < 1:
        raise CadError(f"language model order must be at least 1, got {order}")
    top: Counter[Gram] = Counter()
    starts: list[Counter[Gram]] = [Counter() for _ in range(order)]
    vocab: set[str] = set()
    n_sent = 0
    for toks in sentences:
        n_sent += 1
        w = (BOS, *toks, EOS)
        vocab.update(toks)
        for i in range(len(w) - order + 1):
            top[w[i:i + order]] += 1
        # n-grams that begin at <s> keep raw counts at every order below the highest
        # (a padded sentence shorter than the order is itself such an n-gram)
        for n in range(1, min(order, len(w) + 1)):
            starts[n - 1][w[:n]] += 1
    if n_sent == 0:
        raise CadError("cannot estimate a language model from an empty corpus")
    if BOS in vocab or EOS in vocab:
        raise CadError("the corpus contains <s> or </s> tokens")

    adjusted: list[Counter[Gram]] = [Counter() for _ in range(order)]
    adjusted[order - 1] = top
    for n in range(order - 1, 0, -1):
        higher = adjusted[n]
        cur = adjusted[n - 1]
        for g in higher:
            cur[g[1:]] += 1
        # start n-grams: raw counts replace continuation counts
        for g, c in starts[n - 1].items():
            cur[g] = c
    # <s> is never predicted; <unk> gets only the interpolation mass
    adjusted[0].pop((BOS,), None)
    adjusted[0].setdefault((UNK,), 0)
    adjusted[0].setdefault((EOS,), 0)

    discounts = [compute_discounts(adjusted[n], n + 1, discount_fallback) for n in range(order)]
    model = KNModel(order, discounts)
    vocab_size = len(adjusted[0])  # includes <unk> and </s>, excludes <s>

    lower: dict[Gram, float] = {}
    for n in range(order):
        d = discounts[n]
        by_ctx: dict[Gram, list[Gram]] = defaultdict(list)
        for g in adjusted[n]:
            by_ctx[g[:-1]].append(g)
        probs: dict[Gram, float] = {}
        gammas: dict[Gram, float] = {}
        for ctx, grams in by_ctx.items():
            denom = sum(adjusted[n][g] for g in grams)
            nk = [0, 0, 0]
            for g in grams:
                c = adjusted[n][g]
                if c > 0:
                    nk[min(c, 3) - 1] += 1
            gamma = (d[0] * nk[0] + d[1] * nk[1] + d[2] * nk[2]) / denom if denom > 0 else 1.0
            gammas[ctx] = gamma
            for g in grams:
                c = adjusted[n][g]
                base = 1.0 / vocab_size if n == 0 else lower[g[1:]]
                uninterp = (c - _discount(d, c)) / denom if denom > 0 else 0.0
                probs[g] = uninterp + gamma * base
        model.prob.append(probs)
        if n > 0:
            model.backoff.append(gammas)
        lower = probs
    if (BOS,) not in model.prob[0]:
        model.prob[0][(BOS,)] = 0.0
    return model
