"""P(word | OTHER): which non-pronoun word a source pronoun becomes when it becomes one.

The class CM scores a pronoun's translation by its class, and every aligned word that is no
pronoun of the target's list is the one class OTHER. Scored as it stands, an option that aligns
*it* to any word at all (*repair it* → *réparer*, the clitic gone) collects the whole of
P(OTHER | bundle), which for an object *it* is as large as that of *la*. The corpus says which
words those are: *est-ce*, *les*, *pas*, *tout*, *leur*, *sont-ils* … So the feature scores
OTHER as P(OTHER | bundle) × P(word | OTHER, pronoun and role), the second factor from the words
the corpus aligns to each *it*/*they* of class OTHER, Witten-Bell interpolated from the pronoun
and role (`it-obj`) to the pronoun (`it`), to every pronoun, to a uniform share of the words seen
plus one for an unseen word. P(class) summed over the target's words stays 1.

other-words.gz, beside classes.gz: `context<TAB>word<TAB>count` for the finest contexts, counts
weighted as the class table's instances are (their domain weight).
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from typing import Iterable

from cad.core.errors import CadError
from cad.core.textio import atomic_output, read_lines

OTHER_WORDS_FILE = "other-words.gz"
ROOT = ""
CACHE = 200_000       # (context, word) probabilities kept: a server meets new words without end


def context(bundle: str) -> str:
    """The context of a bundle's OTHER word: its pronoun and role (`it-obj-fem-sing` -> `it-obj`)."""
    return "-".join(bundle.split("-")[:2])


def parent(ctx: str) -> str | None:
    """`it-obj` -> `it` -> "" (every pronoun) -> None."""
    if ctx == ROOT:
        return None
    return ctx.rsplit("-", 1)[0] if "-" in ctx else ROOT


def other_word(words: Iterable[str]) -> str:
    """The word that stands for an OTHER translation: the first aligned word, lowercased."""
    for w in words:
        return w.lower()
    raise CadError("an OTHER translation has at least one aligned word")


def count_words(instances: Iterable[tuple[dict[str, float], str, float]], words: Iterable[str]
                ) -> dict[str, dict[str, float]]:
    """{context: {word: count}} from the class instances (mixture, class, weight) and each one's
    OTHER word ("" where its class is not OTHER): a mixture's weight shared by its bundles' contexts."""
    counts: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for (mix, _cls, weight), word in zip(instances, words, strict=True):
        if not word:
            continue
        z = sum(mix.values())
        for b, w in mix.items():
            if w > 0 and z > 0:
                counts[context(b)][word] += weight * w / z
    return {c: dict(row) for c, row in counts.items()}


class OtherWords:
    """P(word | OTHER, context), Witten-Bell along `parent` (the module's docstring)."""

    def __init__(self, counts: dict[str, dict[str, float]]):
        self.counts = {c: {w: v for w, v in row.items() if v > 0} for c, row in counts.items()}
        full: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        for c, row in self.counts.items():
            h: str | None = c
            while h is not None:
                for w, v in row.items():
                    full[h][w] += v
                h = parent(h)
        self.full = {h: dict(row) for h, row in full.items()}
        self.totals = {h: (sum(row.values()), len(row)) for h, row in self.full.items()}
        vocabulary = set(self.full.get(ROOT, {}))
        self.uniform = 1.0 / (len(vocabulary) + 1)      # one share for every unseen word
        self._cache: dict[tuple[str, str], float] = {}

    def prob(self, ctx: str, word: str) -> float:
        key = (ctx, word)
        got = self._cache.get(key)
        if got is None:
            if len(self._cache) >= CACHE:
                self._cache.clear()
            got = self._cache[key] = self._prob(ctx, word)
        return got

    def _prob(self, ctx: str | None, word: str) -> float:
        if ctx is None:
            return self.uniform
        lower = self._prob(parent(ctx), word)
        if ctx not in self.full:
            return lower
        n, types = self.totals[ctx]
        return (self.full[ctx].get(word, 0.0) + types * lower) / (n + types)

    def mixture_prob(self, mixture: dict[str, float], word: str) -> float:
        """Σ_b w_b P(word | OTHER, context(b)), the weights normalized."""
        z = sum(mixture.values())
        if z <= 0:
            return self.prob(ROOT, word)
        return sum(w * self.prob(context(b), word) for b, w in mixture.items()) / z

    def log_prob(self, mixture: dict[str, float], word: str) -> float:
        return math.log(self.mixture_prob(mixture, word))

    def write(self, path: str | os.PathLike) -> None:
        with atomic_output(path) as fh:
            for c in sorted(self.counts):
                for w in sorted(self.counts[c]):
                    fh.write(f"{c}\t{w}\t{self.counts[c][w]:.6g}\n")

    @classmethod
    def read(cls, path: str | os.PathLike) -> "OtherWords":
        counts: dict[str, dict[str, float]] = defaultdict(dict)
        for lineno, line in enumerate(read_lines(path), 1):
            f = line.rstrip("\n").split("\t")
            if len(f) != 3 or not f[1]:
                raise CadError("expected 'context<TAB>word<TAB>count'", str(path), lineno)
            try:
                v = float(f[2])
            except ValueError:
                raise CadError(f"malformed count {f[2]!r}", str(path), lineno) from None
            if not v >= 0 or math.isinf(v):
                raise CadError(f"count {f[2]!r} is not a finite number >= 0", str(path), lineno)
            counts[f[0]][f[1]] = v
        if not counts:
            raise CadError("empty OTHER-word table", str(path))
        return cls(dict(counts))
