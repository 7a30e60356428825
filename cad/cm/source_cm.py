"""The Coreference Model where the source language marks the antecedent's features itself
(Spanish→English, seed 003): the bundle is the source pronoun with its antecedent's gender,
number and humanness as the source side states them (`su-fem-sing-hum`), with no projection
through the translation and so no second pass.

Building: for every pronoun with candidates, each candidate c gives the triple (bundle(c), English
words aligned to the pronoun, p(c)); P(e | bundle) = Σ score(bundle, e) / Σ score(bundle) (seed
003 §3.2), entries below 1e-5 dropped. Seed 003 lists every pronoun-gender-number-humanness
combination, the unseen ones too; an unseen or rare bundle here is Witten-Bell interpolated
along pronoun-G-N-H → pronoun-N-H → pronoun-H → pronoun, the parts dropped in the order English
stops needing them (gender matters for he/she only, number for it/they, humanness for all).
"""

from __future__ import annotations

import json
import logging
import os
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cad.cm.models import PronounModel
from cad.core.aligned_docs import aligned_documents
from cad.core.docs import read_docs
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import atomic_output, count_lines, read_lines
from cad.defaults import CM_MIN_PROB
from cad.lang.en import pronoun_class
from cad.lang.es import GENDERS, NUMBERS
from coref.records import Candidate, PronounResolution

log = logging.getLogger(__name__)
MIN_PROB = CM_MIN_PROB
HUMANS = ("hum", "nonhum")


@dataclass
class SourceCMStats:
    pronouns: int = 0
    with_candidates: int = 0
    unaligned: int = 0
    triples: int = 0
    entries: int = 0
    bundles: dict = field(default_factory=dict)


def bundle_of(pronoun: str, c: Candidate) -> str:
    """`su-fem-sing-hum`: unknown gender or number is `unk` (FreeLing leaves many names without)."""
    return "-".join((pronoun.lower(), c.gender or "unk", c.number or "unk", "hum" if c.human else "nonhum"))


def bundle_vocabulary(pronouns) -> list[str]:
    """Every bundle token of these pronouns: a decoder that filters its tables to the input must
    also load the back-off table's entries for the tokens that will replace them."""
    return [f"{p}-{g}-{n}-{h}" for p in sorted(pronouns) for g in GENDERS for n in NUMBERS for h in HUMANS]


def chain(bundle: str) -> list[str]:
    """The bundle and its back-off parents, finest first."""
    p, g, n, h = bundle.split("-")
    return [bundle, f"{p}-{n}-{h}", f"{p}-{h}", p]


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


def estimate(triples) -> dict[str, dict[str, tuple[float, float]]]:
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
    every = [f"{p}-{g}-{n}-{h}" for p in pronouns for g in GENDERS for n in NUMBERS for h in HUMANS]
    out = {}
    for b in every:
        c = chain(b)
        out[b] = {t: (p, counts.get(b, {}).get(t, 0.0)) for t, p in dist(b, c[1:]).items()}
    return out


def build_source_cm(corpus: str, align: str, out_dir: str | os.PathLike, resolver, src_lang: str = "es",
                    tgt_lang: str = "en", docs: str | None = None, em_iterations: int = 5) -> SourceCMStats:
    """Write out_dir/cm.gz (the back-off table, seed 003), classes.gz (the class CM of the decoder
    feature: P(English class | bundle), NONE included) and provenance.json; `resolver` gives each
    document's pronoun records with their candidates' features (the corzu backend).
    `em_iterations`: EM over each pronoun's latent antecedent for classes.gz (0: seed 003's
    expected counts, as cm.gz keeps)."""
    docs = docs or (f"{corpus}.docs" if Path(f"{corpus}.docs").exists() else None)
    n_docs = len(read_docs(docs, count_lines(f"{corpus}.{src_lang}"))) if docs else 1
    stats = SourceCMStats()
    triples = []
    rows = aligned_documents(f"{corpus}.{src_lang}", f"{corpus}.{tgt_lang}", align, docs)
    class_instances = []
    for doc_id, src, tgt, al in progress(rows, total=n_docs, desc="cm", unit="doc"):
        recs = resolver.resolve(doc_id, src)
        triples.extend(collect(src, tgt, al, recs, stats))
        class_instances.extend(collect_classes(src, tgt, al, recs))
    if not triples:
        raise CadError("no coreference triple could be collected: do the records match the corpus?")
    model = estimate(triples)
    lines = []
    for bundle, targets in model.items():
        for target, (p, s) in targets.items():
            if p >= MIN_PROB:
                align_str = " ".join(f"0-{j}" for j in range(len(target.split())))
                lines.append(f"{bundle} ||| {target} ||| {p:.6g} ||| {align_str} ||| {s:.6g}")
        stats.bundles[bundle] = round(sum(s for _, s in targets.values()), 4)
    lines.sort()
    stats.entries = len(lines)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with atomic_output(out_dir / "cm.gz") as fh:
        fh.writelines(line + "\n" for line in lines)
    class_model, class_counts = estimate_em(class_instances, em_iterations)
    SourceClassTable(class_model).write(out_dir / "classes.gz", class_counts)
    with atomic_output(out_dir / "provenance.json") as fh:
        json.dump({"corpus": str(corpus), "alignment": str(align), "documents": docs, "pair": f"{src_lang}-{tgt_lang}",
                   "bundles": "pronoun-gender-number-humanness of the source antecedent (seed 003)",
                   "min_probability": MIN_PROB, "smoothing": "witten-bell", "class_em_iterations": em_iterations,
                   "counts": asdict(stats)},
                  fh, indent=2, sort_keys=True)
        fh.write("\n")
    log.info("CM: %d entries for %d bundles from %d triples", stats.entries, len(model), stats.triples)
    return stats


# ---------------------------------------------------------------- the class CM of the decoder feature
def collect_classes(src: list[list[str]], tgt: list[list[str]], align: list[list[tuple[int, int]]],
                    records: list[PronounResolution]) -> list[tuple[dict[str, float], str]]:
    """({bundle(c): p(c)}, English class) for every pronoun with candidates; a pronoun aligned to
    nothing counts as NONE (the translation dropped it, or said *the*), which the feature must know."""
    out = []
    for r in records:
        if not r.candidates:
            continue
        words = [tgt[r.sentence][j] for j in sorted(j for i, j in align[r.sentence] if i == r.index)]
        mix: dict[str, float] = defaultdict(float)
        for c in r.candidates:
            mix[bundle_of(r.token, c)] += c.probability
        out.append((dict(mix), pronoun_class(words)))
    return out


def estimate_em(instances: list[tuple[dict[str, float], str]], iterations: int = 5
                ) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """({bundle: {class: P}}, {bundle: expected count}): the class table with the antecedent latent.
    Seed 003's expected counts spread each pronoun over all its kept candidates, the wrong ones too,
    which pulls every bundle toward the pronoun's overall distribution (P(her | su-fem-sing-hum) .28
    against P(his) .26). Each iteration re-weights a pronoun's candidates by their posterior
    p(c) P(class | bundle(c)) / Σ_c' p(c') P(class | bundle(c')) under the previous table (as
    ClassTable.estimate_em does for English→French); iteration 0 is seed 003's table."""
    def triples(model):
        table = None if model is None else SourceClassTable(model)
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
        model = {b: {c: p for c, (p, _) in d.items()} for b, d in estimate(ts).items()}
    counts: dict[str, float] = defaultdict(float)
    for b, _, w in ts:
        counts[b] += w
    return model, dict(counts)


class SourceClassTable(PronounModel):
    """P(English class | bundle) for the CoreferenceModel feature (`model=source-table`): a pronoun
    with several candidates scores the mixture Σ_c p(c) P(class | bundle(c)) (seed 003's expected
    value), every option that translates it by the class of its words aligned to the pronoun."""

    credits = False         # English classes: no APT credit matrix, ln P(class) only

    @classmethod
    def from_file(cls, path: str | os.PathLike, pair=None) -> SourceClassTable:
        return cls.read(path)

    def __init__(self, probs: dict[str, dict[str, float]]):
        self.probs = probs

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

    @staticmethod
    def option_class(opt, index: int, tokens: list[str]) -> str:
        if opt.table < 0:
            return pronoun_class(opt.words)          # an unknown word passes through
        rel = index - opt.start
        return pronoun_class([opt.words[j] for i, j in sorted(opt.alignment, key=lambda x: x[1]) if i == rel])

    def write(self, path: str | os.PathLike, counts: dict[str, float]) -> None:
        with atomic_output(path) as fh:
            for b in sorted(self.probs):
                for c, p in sorted(self.probs[b].items()):
                    fh.write(f"{b} ||| {c} ||| {p:.6g} ||| {counts.get(b, 0.0):.6g}\n")

    @classmethod
    def read(cls, path: str | os.PathLike) -> "SourceClassTable":
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
        return cls(dict(probs))
