"""The CM's tables where the language pair's source marks the antecedent's features itself
(Spanish→English, seed 003; cad/lang/pairs.py): the bundle is the source pronoun with its
antecedent's gender, number and humanness as the source side states them (`su-fem-sing-hum`,
cad/cm/bundles.py), with no projection through the translation and so no second pass. `cad cm
build` (cad/cm/build.py) collects and writes them for such a pair as it does the others.

Estimating: for every pronoun with candidates, each candidate c gives the triple (bundle(c), English
words aligned to the pronoun, p(c)); P(e | bundle) = Σ score(bundle, e) / Σ score(bundle) (seed
003 §3.2), entries below 1e-5 dropped. Seed 003 lists every pronoun-gender-number-humanness
combination, the unseen ones too; an unseen or rare bundle here is Witten-Bell interpolated
along pronoun-G-N-H → pronoun-N-H → pronoun-H → pronoun, the parts dropped in the order English
stops needing them (gender matters for he/she only, number for it/they, humanness for all).
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field

from cad.cm.bundles import HUMANS, source_bundle, source_chain, source_values, source_vocabulary
from cad.cm.models import PronounModel
from cad.core.errors import CadError
from cad.core.textio import atomic_output, read_lines
from cad.defaults import CM_MIN_PROB, SOURCE_MARKED_PAIR
from cad.lang.pairs import Pair
from coref.records import PronounResolution

MIN_PROB = CM_MIN_PROB
# the names the seed-003 code and its tests know them by
bundle_of, chain = source_bundle, source_chain


@dataclass
class SourceCMStats:
    pronouns: int = 0
    with_candidates: int = 0
    unaligned: int = 0
    triples: int = 0
    entries: int = 0
    bundles: dict = field(default_factory=dict)


def source_marked(pair: Pair | None) -> Pair:
    """`pair`, or the default source-marked pair (cad.defaults.SOURCE_MARKED_PAIR) where none is given."""
    if pair is not None:
        return pair
    from cad.lang.pairs import pair as language_pair

    return language_pair(*SOURCE_MARKED_PAIR)


def bundle_vocabulary(pronouns, pair: Pair | None = None) -> list[str]:
    """Every bundle token of these pronouns (cad.cm.bundles.source_vocabulary)."""
    return source_vocabulary(pronouns, source_marked(pair))


def collect(src: list[list[str]], tgt: list[list[str]], align: list[list[tuple[int, int]]],
            records: list[PronounResolution], stats: SourceCMStats) -> list[tuple[str, str, float]]:
    out = []
    for r in records:
        stats.pronouns += 1
        if not r.candidates:
            continue
        stats.with_candidates += 1
        tpos = sorted(j for i, j in align[r.sentence] if i == r.index)
        if not tpos:
            stats.unaligned += 1
            continue
        target = " ".join(tgt[r.sentence][j] for j in tpos)
        for c in r.candidates:
            out.append((bundle_of(r.token, c), target, c.probability))
    stats.triples += len(out)
    return out


def estimate(triples, pair: Pair | None = None) -> dict[str, dict[str, tuple[float, float]]]:
    """{bundle: {target: (P(target | bundle), Σ score)}} for every combination of the pronouns seen:
    relative frequencies interpolated (Witten-Bell) with the parent's distribution."""
    counts: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for bundle, target, score in triples:
        for h in chain(bundle):
            counts[h][target] += score
    cache: dict[str, dict[str, float]] = {}

    def dist(h: str, parents: list[str]) -> dict[str, float]:
        if h in cache:
            return cache[h]
        own = counts.get(h, {})
        total = sum(own.values())
        if not parents:
            out = {t: c / total for t, c in own.items()} if total > 0 else {}
        else:
            up = dist(parents[0], parents[1:])
            kinds = sum(1 for c in own.values() if c > 0)
            out = dict(up) if total <= 0 or kinds == 0 else {
                t: (own.get(t, 0.0) + kinds * up.get(t, 0.0)) / (total + kinds) for t in set(own) | set(up)}
        cache[h] = out
        return out

    pronouns = sorted({b.split("-")[0] for b, _, _ in triples})
    genders, numbers = source_values(source_marked(pair))
    every = [f"{p}-{g}-{n}-{h}" for p in pronouns for g in genders for n in numbers for h in HUMANS]
    out = {}
    for b in every:
        c = chain(b)
        out[b] = {t: (p, counts.get(b, {}).get(t, 0.0)) for t, p in dist(b, c[1:]).items()}
    return out


def table_lines(model: dict[str, dict[str, tuple[float, float]]], stats: SourceCMStats) -> list[str]:
    """cm.gz's lines (the back-off table of seed 003), sorted, below MIN_PROB dropped; each
    bundle's total score kept in `stats`."""
    lines = []
    for bundle, targets in model.items():
        for target, (p, s) in targets.items():
            if p >= MIN_PROB:
                align_str = " ".join(f"0-{j}" for j in range(len(target.split())))
                lines.append(f"{bundle} ||| {target} ||| {p:.6g} ||| {align_str} ||| {s:.6g}")
        stats.bundles[bundle] = round(sum(s for _, s in targets.values()), 4)
    lines.sort()
    stats.entries = len(lines)
    return lines


# ---------------------------------------------------------------- the class CM of the decoder feature
def collect_classes(src: list[list[str]], tgt: list[list[str]], align: list[list[tuple[int, int]]],
                    records: list[PronounResolution], pair: Pair | None = None) -> list[tuple[dict[str, float], str]]:
    """({bundle(c): p(c)}, target class) for every pronoun with candidates; a pronoun aligned to
    nothing counts as NONE (the translation dropped it, or said *the*), which the feature must know."""
    target = source_marked(pair).target
    out = []
    for r in records:
        if not r.candidates:
            continue
        words = [tgt[r.sentence][j] for j in sorted(j for i, j in align[r.sentence] if i == r.index)]
        mix: dict[str, float] = defaultdict(float)
        for c in r.candidates:
            mix[bundle_of(r.token, c)] += c.probability
        out.append((dict(mix), target.class_of_words(words)))
    return out


def estimate_em(instances: list[tuple[dict[str, float], str]], iterations: int = 5, pair: Pair | None = None
                ) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """({bundle: {class: P}}, {bundle: expected count}): the class table with the antecedent latent.
    Seed 003's expected counts spread each pronoun over all its kept candidates, the wrong ones too,
    which pulls every bundle toward the pronoun's overall distribution (P(her | su-fem-sing-hum) .28
    against P(his) .26). Each iteration re-weights a pronoun's candidates by their posterior
    p(c) P(class | bundle(c)) / Σ_c' p(c') P(class | bundle(c')) under the previous table (as
    ClassTable.estimate_em does for English→French); iteration 0 is seed 003's table."""
    def triples(model):
        table = None if model is None else SourceClassTable(model, pair)
        out = []
        for mix, cls in instances:
            post = mix
            if table is not None:
                joint = {b: w * table.dist(b).get(cls, 0.0) for b, w in mix.items()}
                z = sum(joint.values())
                if z > 0:
                    post = {b: v / z for b, v in joint.items()}
            out.extend((b, cls, w) for b, w in post.items())
        return out

    model = None
    for _ in range(iterations + 1):
        ts = triples(model)
        model = {b: {c: p for c, (p, _) in d.items()} for b, d in estimate(ts, pair).items()}
    counts: dict[str, float] = defaultdict(float)
    for b, _, w in ts:
        counts[b] += w
    return model, dict(counts)


class SourceClassTable(PronounModel):
    """P(target class | bundle) for the CoreferenceModel feature (`model=source-table`): a pronoun
    with several candidates scores the mixture Σ_c p(c) P(class | bundle(c)) (seed 003's expected
    value), every option that translates it by the class of its words aligned to the pronoun, in
    the classes of the pair's target (English's for Spanish→English)."""

    credits = False         # English classes: no APT credit matrix, ln P(class) only
    implicit_pair = SOURCE_MARKED_PAIR

    @classmethod
    def from_file(cls, path: str | os.PathLike, pair: Pair | None = None) -> SourceClassTable:
        return cls.read(path, pair)

    def __init__(self, probs: dict[str, dict[str, float]], pair: Pair | None = None):
        self.probs = probs
        self.pair = source_marked(pair)

    def dist(self, bundle: str) -> dict[str, float]:
        for b in chain(bundle) if bundle.count("-") == 3 else [bundle]:
            if b in self.probs:
                return self.probs[b]
        return {}

    def class_distribution(self, mixture: dict[str, float], tokens: list[str] | None = None,
                           index: int | None = None) -> dict[str, float]:
        out: dict[str, float] = defaultdict(float)
        for b, w in mixture.items():
            for c, p in self.dist(b).items():
                out[c] += w * p
        return dict(out)

    def option_class(self, opt, index: int, tokens: list[str]) -> str:
        """The class of the option's words aligned to the pronoun (without APT's improvement)."""
        class_of = self.pair.target.class_of_words
        if opt.table < 0:
            return class_of(opt.words)          # an unknown word passes through
        rel = index - opt.start
        return class_of([opt.words[j] for i, j in sorted(opt.alignment, key=lambda x: x[1]) if i == rel])

    def write(self, path: str | os.PathLike, counts: dict[str, float]) -> None:
        with atomic_output(path) as fh:
            for b in sorted(self.probs):
                for c, p in sorted(self.probs[b].items()):
                    fh.write(f"{b} ||| {c} ||| {p:.6g} ||| {counts.get(b, 0.0):.6g}\n")

    @classmethod
    def read(cls, path: str | os.PathLike, pair: Pair | None = None) -> "SourceClassTable":
        probs: dict[str, dict[str, float]] = defaultdict(dict)
        for lineno, line in enumerate(read_lines(path), 1):
            f = line.split(" ||| ")
            try:
                if len(f) != 4:
                    raise ValueError
                probs[f[0]][f[1]] = float(f[2])
            except ValueError:
                raise CadError("expected 'bundle ||| class ||| probability ||| count'", str(path), lineno) from None
        if not probs:
            raise CadError("empty class table", str(path))
        return cls(dict(probs), pair)
