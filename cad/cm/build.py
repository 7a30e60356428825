"""`cad cm build`: the Coreference Model from a word-aligned parallel corpus with documents.

For every source *it*/*they* with candidate antecedents, each candidate is projected through the
alignment; the first noun or pronoun among its aligned target words gives the gender and number
(French morphology), which with the source pronoun (and, optionally, source-side humanness) form
a feature bundle. The target words aligned to the pronoun, the bundle and the candidate's
probability form a triple; then P(target | bundle) = Σ score(bundle, target) / Σ score(bundle), and
entries below 1e-5 are dropped (seed 004 §3.2, seed 003 §3.1). That table, cm.gz, is the
back-off mode's second translation table.

Beside it, classes.gz holds the class CM of the decoder feature and the reranker
(cad/cm/class_model.py): every *it*/*they*, with its role and its anaphoricity, counted
against the class of its aligned target words, Witten-Bell smoothed, the latent bundle of each
pronoun re-weighted by EM.
"""

from __future__ import annotations

import json
import logging
import math
import os
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cad.cm.bundles import Bundle
from cad.lang.fr_morph import first_noun_or_pronoun, tag
from cad.core.docs import read_docs
from cad.core.errors import CadError
from cad.core.shards.options import Parallel
from cad.core.textio import atomic_output, count_lines, read_lines
from coref.records import PronounResolution

log = logging.getLogger(__name__)
MIN_PROB = 1e-5
SMOOTHING = ("none", "witten-bell")


@dataclass
class CMStats:
    pronouns: int = 0
    with_candidates: int = 0
    unaligned_pronouns: int = 0
    candidates: int = 0
    projected: int = 0
    triples: int = 0
    entries: int = 0
    dropped: int = 0
    class_pronouns: int = 0
    bundles: dict = field(default_factory=dict)


def document_morph(tgt: list[list[str]], records: list[PronounResolution]) -> dict:
    """French morphology of the target sentences that hold a candidate antecedent."""
    needed = sorted({c.sentence for r in records for c in r.candidates})
    return dict(zip(needed, tag([tgt[k] for k in needed]))) if needed else {}


def project_candidate(c, align: list[list[tuple[int, int]]], morph: dict) -> tuple[str, str] | None:
    """Gender and number of the first noun or pronoun aligned to candidate `c` (seed 004)."""
    if c.sentence not in morph:
        return None
    span = range(c.start, c.end)
    p = first_noun_or_pronoun([j for i, j in align[c.sentence] if i in span], morph[c.sentence])
    if p is None:
        return None
    m = morph[c.sentence][p]
    return m.gender, m.number


def collect_class_instances(src: list[list[str]], tgt: list[list[str]], align: list[list[tuple[int, int]]],
                            records: list[PronounResolution], with_human: bool, morph: dict,
                            out: list, weight: float = 1.0, positions: list | None = None) -> int:
    """Add one document's (bundle mixture, target class) instances for the class CM; returns the
    number of pronouns added. Every it/they counts, referential or not: the class of a
    pleonastic *it* (*il faut*, *c'est*) is as much to learn as that of an anaphoric one.
    `positions`, when given, receives each instance's (source sentence, token index), which the
    classifier CM reads."""
    from cad.cm.class_model import CM_PRONOUNS, pronoun_mixture
    from cad.cm.classes import aligned_words, pronoun_class
    from coref.english.roles import pronoun_roles

    recs = [r for r in records if r.token.lower() in CM_PRONOUNS]
    roles = pronoun_roles(src, {(r.sentence, r.index) for r in recs})
    for r in recs:
        cls = pronoun_class(aligned_words(src[r.sentence], tgt[r.sentence], align[r.sentence], r.index))
        mix = pronoun_mixture(r, roles[(r.sentence, r.index)],
                              lambda c: {project_candidate(c, align, morph): 1.0}, with_human)
        out.append((mix, cls, weight))
        if positions is not None:
            positions.append((src[r.sentence], r.index))
    return len(recs)


def collect_triples(src: list[list[str]], tgt: list[list[str]], align: list[list[tuple[int, int]]],
                    records: list[PronounResolution], with_human: bool, stats: CMStats,
                    single_best: bool = False, morph: dict | None = None) -> list[tuple[str, str, float]]:
    """Triples (bundle token, target words, score) of one document."""
    if morph is None:
        morph = document_morph(tgt, records)
    out = []
    for r in records:
        stats.pronouns += 1
        if not r.referential or not r.candidates:
            continue
        stats.with_candidates += 1
        tpos = sorted(j for i, j in align[r.sentence] if i == r.index)
        if not tpos:
            stats.unaligned_pronouns += 1
            continue
        target = " ".join(tgt[r.sentence][j] for j in tpos)
        cands = r.candidates[:1] if single_best else r.candidates
        for c in cands:
            if c.kind != "np":
                continue        # clauses carry no gender or number to project
            stats.candidates += 1
            span = set(range(c.start, c.end))
            aligned = [j for i, j in align[c.sentence] if i in span]
            p = first_noun_or_pronoun(aligned, morph[c.sentence])
            if p is None:
                continue
            m = morph[c.sentence][p]
            stats.projected += 1
            bundle = Bundle(r.token.lower(), m.gender, m.number, c.human)
            score = 1.0 if single_best else c.probability
            out.append((bundle.token(with_human), target, score))
    stats.triples += len(out)
    return out


def estimate(triples) -> dict[str, dict[str, tuple[float, float]]]:
    """{bundle: {target: (P(target|bundle), Σ score)}}."""
    joint: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for bundle, target, score in triples:
        joint[bundle][target] += score
    out = {}
    for bundle, targets in joint.items():
        total = sum(targets.values())
        if total <= 0:
            continue
        out[bundle] = {t: (s / total, s) for t, s in targets.items()}
    return out


def coarser(bundle: str) -> str | None:
    """The next bundle up the back-off chain: it-fem-sing-hum → it-fem-sing → it-sing → it → None."""
    parts = bundle.split("-")
    if len(parts) == 4:
        return "-".join(parts[:3])
    if len(parts) == 3:
        return f"{parts[0]}-{parts[2]}"
    if len(parts) == 2:
        return parts[0]
    return None


def all_bundles(seen, with_human: bool) -> list[str]:
    """Every pronoun-gender-number(-human) combination of the pronouns seen (seed 003 §3.2: the
    combinations the data does not cover are generated too)."""
    pronouns = sorted({b.split("-")[0] for b in seen})
    humans = ("hum", "nonhum") if with_human else (None,)
    return [Bundle(p, g, n, None if h is None else h == "hum").token(with_human)
            for p in pronouns for g in ("masc", "fem") for n in ("sing", "plur") for h in humans]


def estimate_witten_bell(triples, with_human: bool = False) -> dict[str, dict[str, tuple[float, float]]]:
    """{bundle: {target: (P_WB(target | bundle), Σ score)}} with Witten-Bell interpolation along
    the back-off chain of `coarser`: P(t|h) = (c(h,t) + T(h) P(t|h')) / (c(h) + T(h)), T(h) the
    number of distinct targets seen with h, maximum likelihood at the pronoun alone. A rare bundle
    thus leans on the coarser ones, and a bundle never seen takes its parent's distribution."""
    counts: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for bundle, target, score in triples:
        h: str | None = bundle
        while h is not None:
            counts[h][target] += score
            h = coarser(h)
    cache: dict[str, dict[str, float]] = {}

    def dist(h: str) -> dict[str, float]:
        if h in cache:
            return cache[h]
        parent = coarser(h)
        own = counts.get(h, {})
        total = sum(own.values())
        if parent is None:
            out = {t: c / total for t, c in own.items()} if total > 0 else {}
        else:
            up = dist(parent)
            kinds = sum(1 for c in own.values() if c > 0)
            if total <= 0 or kinds == 0:
                out = dict(up)
            else:
                out = {t: (own.get(t, 0.0) + kinds * up.get(t, 0.0)) / (total + kinds) for t in set(own) | set(up)}
        cache[h] = out
        return out

    full = [b for b in counts if len(b.split("-")) == (4 if with_human else 3)]
    return {b: {t: (p, counts.get(b, {}).get(t, 0.0)) for t, p in dist(b).items()}
            for b in sorted(set(full) | set(all_bundles(full, with_human)))}


def build_cm(corpus: str, align: str, out_dir: str | os.PathLike, src_lang: str = "en", tgt_lang: str = "fr",
             docs: str | None = None, coref: str | None = None, backend: str = "ranker", with_human: bool = False,
             single_best: bool = False, smoothing: str = "none", em_iterations: int = 5,
             domain_weights: dict[str, float] | None = None, classifier: bool = True,
             parallel: Parallel | None = None) -> CMStats:
    """`smoothing` (cm.gz): "none" (seed 004: relative frequencies) or "witten-bell" (back-off to
    coarser bundles). `em_iterations` (classes.gz): EM over each pronoun's latent bundle; 0 keeps
    seed 003's expected counts under the coreference's own weights. `domain_weights` (classes.gz):
    {id prefix: w}, the pronouns of a document whose id starts with `prefix:` count w times (the
    class CM's register follows its data: TED speakers say *ça* where news writes *il*).
    `classifier`: also train the classifier CM on the same instances (classifier.json).
    `parallel`: collect the triples and instances in shards of documents (kept in OUT/cm.gz.shards/
    until the tables are written, so that a rerun resumes from them), the same tables again; None:
    in this process, without shards."""
    if smoothing not in SMOOTHING:
        raise CadError(f"unknown smoothing {smoothing!r} (choose from {', '.join(SMOOTHING)})")
    out_dir = Path(out_dir)
    docs = docs or (f"{corpus}.docs" if Path(f"{corpus}.docs").exists() else None)
    n_lines = count_lines(f"{corpus}.{src_lang}")
    doc_starts = read_docs(docs, n_lines) if docs else []
    domain_weights = dict(domain_weights or {})
    for prefix, w in domain_weights.items():
        if not w >= 0:
            raise CadError(f"domain weight {prefix}={w} must be >= 0")
        if docs and not any(d.doc_id.startswith(prefix + ":") for d in doc_starts):
            raise CadError(f"domain weight {prefix}={w}: no document id starts with {prefix + ':'!r}", docs)
    from cad.cm.collect import collect_in_process, collect_in_shards

    doc_ids = [(d.first_line, d.doc_id) for d in doc_starts] if docs else None
    store = None
    if parallel is None:
        acc = collect_in_process(corpus, align, src_lang, tgt_lang, docs, doc_ids, coref, backend, with_human,
                                 single_best, domain_weights)
    else:
        from cad.core.shards import ShardStore

        store = ShardStore.beside(out_dir / "cm.gz")
        acc = collect_in_shards(corpus, align, src_lang, tgt_lang, doc_ids, n_lines, coref, backend, with_human,
                                single_best, domain_weights, parallel, store)
    stats, triples, class_instances, positions, halves = (acc.stats, acc.triples, acc.instances, acc.positions,
                                                           acc.halves)
    model = estimate(triples) if smoothing == "none" else estimate_witten_bell(triples, with_human)
    lines = []
    for bundle, targets in model.items():
        for target, (p, s) in targets.items():
            if p < MIN_PROB:
                stats.dropped += 1
                continue
            n_t = len(target.split())
            align_str = " ".join(f"0-{j}" for j in range(n_t))
            lines.append(f"{bundle} ||| {target} ||| {p:.6g} ||| {align_str} ||| {s:.6g}")
        stats.bundles[bundle] = round(sum(s for _, s in targets.values()), 4)
    lines.sort()
    stats.entries = len(lines)
    if not lines:
        raise CadError("no coreference triple could be collected: is the corpus aligned and does it contain it/they?")
    out_dir.mkdir(parents=True, exist_ok=True)
    with atomic_output(out_dir / "cm.gz") as fh:
        for line in lines:
            fh.write(line + "\n")
    provenance = {"corpus": str(corpus), "source": f"{corpus}.{src_lang}", "target": f"{corpus}.{tgt_lang}",
                  "alignment": str(align), "documents": docs, "coreference": coref or f"backend:{backend}",
                  "humanness": with_human, "single_best": single_best, "min_probability": MIN_PROB,
                  "smoothing": smoothing, "class_em_iterations": em_iterations,
                  "class_domain_weights": domain_weights,
                  "counts": asdict(stats)}
    from cad.cm.class_model import ClassTable

    ClassTable.estimate_em(class_instances, em_iterations).write(out_dir / "classes.gz")
    if classifier:
        from cad.cm.class_classifier import MODEL_FILE, train_classifier

        clf = train_classifier([(m, c, w, toks, i) for (m, c, w), (toks, i) in zip(class_instances, positions)],
                               halves, em_iterations)
        clf.save(out_dir / MODEL_FILE)
        provenance["classifier"] = clf.meta
        log.info("classifier CM: C=%g, held-out log-loss %s (class table %s)", clf.meta["C"],
                 clf.meta["heldout_log_loss"], clf.meta.get("table_heldout_log_loss"))
    with atomic_output(out_dir / "provenance.json") as fh:
        json.dump(provenance, fh, indent=2, sort_keys=True)
        fh.write("\n")
    if store is not None:
        store.remove()
    log.info("CM: %d entries for %d bundles from %d triples", stats.entries, len(model), stats.triples)
    return stats


def show(table: str | os.PathLike, top: int = 5) -> str:
    """The most likely translations per bundle, with their scores (seed 003, Figure 1). Reads the
    back-off table (bundle ||| target ||| p ||| alignment ||| count: counts per target) and the
    class table (bundle ||| class ||| p ||| count: the bundle's count on every line)."""
    rows: dict[str, list[tuple[float, str, float]]] = defaultdict(list)
    totals: dict[str, float] = {}
    for lineno, line in enumerate(read_lines(table), 1):
        f = line.split(" ||| ")
        if len(f) < 3:
            raise CadError("not a phrase table line", str(table), lineno)
        try:
            p = float(f[2])
            if len(f) == 4:                     # class table
                totals[f[0]] = float(f[3])
                count = math.nan
            else:
                count = float(f[4]) if len(f) > 4 and f[4].strip() else 0.0
                totals[f[0]] = totals.get(f[0], 0.0) + count
        except ValueError:
            raise CadError("malformed number", str(table), lineno) from None
        rows[f[0]].append((p, f[1], count))
    out = []
    for bundle in sorted(rows):
        out.append(f"{bundle}  (score {totals[bundle]:g})")
        for p, t, c in sorted(rows[bundle], key=lambda x: -x[0])[:top]:
            out.append(f"    {t:<20} {p:.4f}" + ("" if math.isnan(c) else f"  ({c:g})"))
    return "\n".join(out) + "\n"
