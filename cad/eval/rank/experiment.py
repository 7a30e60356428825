"""`cad eval rank cv`: seed 002's metrics against sentence-BLEU and chrF on WMT pairwise rankings,
by cross-validation with folds by segment (no segment's judgments, nor its reference, are in
training and test at once). The Nyström landmarks come from reserved segments (every tenth),
which are used for training but never scored, so no scored translation is a landmark."""

from __future__ import annotations

import hashlib
import json
import logging
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sacrebleu.metrics import BLEU, CHRF

from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import atomic_output, read_lines
from cad.eval.correlation import kendall_tau
from cad.eval.significance import bootstrap_tau
from cad.eval.rank.judgments import RankingSet, load_pair, pairs_in
from cad.eval.rank.metric import KernelSpec, Nystrom, TreeRankMetric, direct_similarity, train_ranker
from cad.eval.rank.objects import STRUCTURES, Pair, TreeCache, make_pair

log = logging.getLogger(__name__)
BASELINES = ("sentBLEU", "chrF")


@dataclass
class Objects:
    """Every distinct (segment, hypothesis text) of the data, with its trees and metric features."""
    keys: list[tuple[int, str]]
    index: dict[tuple[int, str], int]
    layers: dict[str, list[Pair]]   # per structure (SYN, SYN+CLS)
    extra: np.ndarray               # n × 2: sentence BLEU and chrF (sacrebleu), / 100
    of: dict[tuple[str, int, str], int] = field(default_factory=dict)    # (lp, segment, system) -> object


def sentence_metrics(hyps: list[str], refs: list[str]) -> np.ndarray:
    """sacrebleu's sentence BLEU (exp smoothing, effective order) and chrF2, as the data's
    baselines.md computes them, on the texts as released."""
    bleu, chrf = BLEU(effective_order=True), CHRF()
    return np.array([[bleu.sentence_score(h, [r]).score / 100, chrf.sentence_score(h, [r]).score / 100]
                     for h, r in zip(hyps, refs)]).reshape(len(hyps), 2)


def build_objects(sets: list[RankingSet], cache: TreeCache) -> Objects:
    keys: list[tuple[int, str]] = []
    index: dict[tuple[int, str], int] = {}
    of = {}
    refs: dict[int, str] = {}
    for rs in sets:
        for (seg, system), text in rs.outputs.items():
            k = (seg, text)
            if k not in index:
                index[k] = len(keys)
                keys.append(k)
            of[(rs.pair, seg, system)] = index[k]
            if refs.setdefault(seg, rs.reference(seg)) != rs.reference(seg):
                raise CadError(f"segment {seg} has different references in different pairs")
    segs = sorted(refs)
    trees = cache.parse([t for _, t in keys] + [refs[s] for s in segs])
    cache.save()
    ref_tree = dict(zip(segs, trees[len(keys):]))
    layers = {st: [make_pair(t, ref_tree[seg], st) for (seg, _), t in zip(keys, trees)] for st in STRUCTURES}
    extra = sentence_metrics([t for _, t in keys], [refs[s] for s, _ in keys])
    return Objects(keys, index, layers, extra, of)


def features(nystrom: Nystrom, pairs: list[Pair], spec: KernelSpec, chunk: int = 2000) -> np.ndarray:
    out = []
    for k in progress(range(0, len(pairs), chunk), desc="tree kernels", unit="chunk"):
        out.append(nystrom.transform(pairs[k:k + chunk], spec))
    return np.vstack(out) if out else np.zeros((0, nystrom.projection.shape[1]))


def preferences(sets: list[RankingSet], objs: Objects, skip: set[int] = frozenset()) -> tuple[np.ndarray, np.ndarray]:
    """(winner, loser) object indices of every human non-tie judgment outside the `skip` segments."""
    wins, loses = [], []
    for rs in sets:
        for j in rs.judgments:
            if j.winner == "tie" or j.segment in skip:
                continue
            a, b = objs.of[(rs.pair, j.segment, j.a)], objs.of[(rs.pair, j.segment, j.b)]
            wins.append(a if j.winner == "a" else b)
            loses.append(b if j.winner == "a" else a)
    if not wins:
        raise CadError("no non-tie judgment to learn from")
    return np.asarray(wins), np.asarray(loses)


def _segment_counts(sets, test_segments, score_of) -> dict[str, dict[int, tuple[int, int]]]:
    """Per pair and test segment: (concordant, discordant) under WMT12's tau."""
    out = {}
    for rs in sets:
        by_seg: dict[int, list] = {}
        for j in rs.judgments:
            if j.segment in test_segments:
                by_seg.setdefault(j.segment, []).append(j)
        out[rs.pair] = {}
        for seg, js in by_seg.items():
            r = kendall_tau(js, lambda sg, sys: score_of[(rs.pair, sg, sys)])
            out[rs.pair][seg] = (r.concordant, r.discordant)
    return out


COMPARISONS = [("SYN learned", "sentBLEU"), ("SYN similarity", "sentBLEU"), ("SYN learned + BLEU + chrF", "chrF"),
               ("SYN learned + BLEU + chrF", "BLEU+chrF learned"), ("SYN+CLS learned + BLEU + chrF", "chrF"),
               ("SYN learned", "SYN+CLS learned"), ("SYN learned", "SYN similarity")]


def _cached_features(out: str, objs: Objects, landmark_ids: list[int], spec: KernelSpec, seconds: dict,
                     key_parts: tuple) -> tuple[dict, dict]:
    """The Nyström features and direct similarities of every structure, kept in OUT.work/ with a
    key of their inputs: a second run (another C, more folds) skips the kernels."""
    key = hashlib.sha1(repr((key_parts, spec.signature(), objs.keys[:1], len(objs.keys))).encode()).hexdigest()
    path = Path(out + ".work") / f"features-{key[:16]}.npz"
    if path.exists():
        got = np.load(path)
        return ({st: got[f"phi {st}"] for st in STRUCTURES}, {st: got[f"direct {st}"] for st in STRUCTURES})
    phi, direct = {}, {}
    for st in STRUCTURES:
        t = time.time()
        nystrom = Nystrom.fit([objs.layers[st][i] for i in landmark_ids], spec)
        phi[st] = features(nystrom, objs.layers[st], spec)
        seconds[f"{st} tree-kernel features"] = round(time.time() - t, 1)
        t = time.time()
        direct[st] = direct_similarity(objs.layers[st], spec)
        seconds[f"{st} direct similarity"] = round(time.time() - t, 1)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **{f"phi {st}": phi[st] for st in STRUCTURES}, **{f"direct {st}": direct[st] for st in STRUCTURES})
    tmp.replace(path)
    return phi, direct


def _systems(objs: Objects, phi: dict, direct: dict) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The metrics compared: fixed scores (sentence-BLEU, chrF, direct tree similarity), and the
    feature sets a ranker is learned on in each fold."""
    fixed = {"sentBLEU": objs.extra[:, 0], "chrF": objs.extra[:, 1]}
    fixed.update({f"{st} similarity": direct[st] for st in STRUCTURES})
    learned = {"BLEU+chrF learned": objs.extra}
    for st in STRUCTURES:
        learned[f"{st} learned"] = phi[st]
    for st in STRUCTURES:
        learned[f"{st} learned + BLEU + chrF"] = np.hstack([phi[st], objs.extra])
    return fixed, learned


def _fold_counts(sets: list[RankingSet], objs: Objects, fold_of: dict[int, int], folds: int, fixed: dict,
                 learned: dict, c: float, seed: int) -> tuple[dict, float]:
    """Per metric, pair and scored segment: (concordant, discordant) when the segment is tested;
    and the seconds spent training the learned metrics."""
    per_seg: dict[str, dict[str, dict[int, tuple[int, int]]]] = {s: {rs.pair: {} for rs in sets}
                                                                 for s in list(fixed) + list(learned)}
    train_seconds = 0.0
    for f in range(folds):
        test = {s for s, k in fold_of.items() if k == f}
        w_idx, l_idx = preferences(sets, objs, test)
        for name in per_seg:
            if name in fixed:
                score = fixed[name]
            else:
                t = time.time()
                w, scale = train_ranker(learned[name], w_idx, l_idx, c, seed + f)
                train_seconds += time.time() - t
                score = (learned[name] / scale) @ w
            score_of = {k: float(score[i]) for k, i in objs.of.items()}
            for lp, counts in _segment_counts(sets, test, score_of).items():
                per_seg[name][lp].update(counts)
        log.info("fold %d of %d done", f + 1, folds)
    return per_seg, train_seconds


def _tau_table(per_seg: dict, pairs: list[str]) -> tuple[dict, dict]:
    """(concordant, discordant) sums per metric and pair, and the tau of each pair, their mean
    and the pooled tau."""
    sums = {name: {lp: [sum(v[k] for v in per_seg[name][lp].values()) for k in range(2)] for lp in pairs}
            for name in per_seg}
    table = {}
    for name in per_seg:
        row = {lp: (cc - dd) / (cc + dd) if cc + dd else math.nan for lp, (cc, dd) in sums[name].items()}
        row["all (mean)"] = sum(row[lp] for lp in pairs) / len(pairs)
        tot = [sum(v[k] for v in sums[name].values()) for k in range(2)]
        row["pooled"] = (tot[0] - tot[1]) / (tot[0] + tot[1])
        table[name] = row
    return sums, table


def _significance(per_seg: dict, pairs: list[str], scored: list[int], seed: int) -> dict:
    """The paired bootstrap of each of COMPARISONS over the scored segments."""
    significance = {}
    arrays = {name: np.array([[[per_seg[name][lp].get(sg, (0, 0))[k] for sg in scored] for k in range(2)]
                              for lp in pairs]) for name in per_seg}
    for a_, b_ in COMPARISONS:
        if a_ in arrays and b_ in arrays:
            r = bootstrap_tau(arrays[a_], arrays[b_], resamples=1000, seed=seed)
            significance[f"{a_} vs {b_}"] = {"delta": r.delta, "ci95": [r.low, r.high], "p": r.p_value}
    return significance


def run_cv(data: str, out: str, pairs: list[str] | None = None, folds: int = 5, landmarks: int = 300,
           spec: KernelSpec | None = None, c: float = 1.0, seed: int = 1, cache: str | None = None) -> dict:
    """Kendall's tau of every metric by `folds`-fold cross-validation by segment; writes the report
    as OUT.json and OUT.md and returns it."""
    spec = spec or KernelSpec()
    t0 = time.time()
    seconds: dict[str, float] = {}
    pairs = pairs or pairs_in(data)
    if not pairs:
        raise CadError("no judgments.<pair>.tsv.gz files", data)
    sets = [load_pair(data, p) for p in pairs]
    t = time.time()
    objs = build_objects(sets, TreeCache(cache))
    seconds["parse and sentence metrics"] = round(time.time() - t, 1)
    segments = sorted({s for s, _ in objs.keys})
    reserved = {s for s in segments if s % 10 == 0}
    rng = np.random.default_rng(seed)
    pool = [i for i, (s, _) in enumerate(objs.keys) if s in reserved]
    if len(pool) < landmarks:
        raise CadError(f"{len(pool)} translations in the reserved segments, fewer than {landmarks} landmarks")
    chosen = sorted(rng.choice(len(pool), size=landmarks, replace=False))
    phi, direct = _cached_features(out, objs, [pool[i] for i in chosen], spec, seconds,
                                   (data, ",".join(pairs), landmarks, seed, TreeCache.VERSION))
    log.info("%d translations, %d landmarks (rank %s): %s", len(objs.keys), landmarks,
             {st: v.shape[1] for st, v in phi.items()}, seconds)

    scored = [s for s in segments if s not in reserved]
    order = rng.permutation(len(scored))
    fold_of = {scored[i]: k % folds for k, i in enumerate(order)}
    fixed, learned = _systems(objs, phi, direct)
    per_seg, train_seconds = _fold_counts(sets, objs, fold_of, folds, fixed, learned, c, seed)
    seconds["training (all folds, learned systems)"] = round(train_seconds, 1)
    sums, table = _tau_table(per_seg, pairs)
    significance = _significance(per_seg, pairs, scored, seed)
    seconds["total"] = round(time.time() - t0, 1)
    report = {"data": data, "pairs": pairs, "folds": folds, "landmarks": landmarks,
              "rank": {st: int(v.shape[1]) for st, v in phi.items()},
              "kernel": spec.signature(), "C": c, "seed": seed, "translations": len(objs.keys),
              "reserved_segments": len(reserved), "scored_segments": len(scored),
              "tau_variant": "wmt12 (metric ties discordant, human ties left out)",
              "tau": table, "counts": {s: {lp: dict(zip(("concordant", "discordant"), v))
                                           for lp, v in sums[s].items()} for s in per_seg},
              "significance": significance,
              "significance_method": "paired bootstrap over the scored segments (1000 resamples), "
                                     "difference of the mean over pairs; p = share of resamples <= 0",
              "seconds": seconds}
    with atomic_output(out + ".json") as fh:
        json.dump(report, fh, indent=2)
        fh.write("\n")
    with atomic_output(out + ".md") as fh:
        fh.write(to_markdown(report))
    return report


def to_markdown(r: dict) -> str:
    cols = r["pairs"] + ["all (mean)", "pooled"]
    lines = [f"# Kendall's tau ({r['tau_variant']}), {r['folds']}-fold cross-validation by segment", "",
             f"{r['translations']} distinct translations; {r['scored_segments']} scored segments; "
             f"{r['reserved_segments']} reserved segments hold the {r['landmarks']} Nyström landmarks "
             f"(rank {r['rank']}); clause layer (CLS): see cad/eval/rank/syntax.py; kernel {r['kernel']}; logistic regression C={r['C']}.", "",
             "| metric | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for name, row in r["tau"].items():
        lines.append(f"| {name} | " + " | ".join(f"{row[c]:.3f}" for c in cols) + " |")
    lines += ["", f"Differences in the mean tau, {r['significance_method']}:", "",
              "| comparison | Δτ | 95% interval | p |", "|---|---|---|---|"]
    for k, v in r["significance"].items():
        lines.append(f"| {k} | {v['delta']:+.3f} | [{v['ci95'][0]:+.3f}, {v['ci95'][1]:+.3f}] | {v['p']:.3f} |")
    lines += ["", "Times (s): " + ", ".join(f"{k} {v}" for k, v in r["seconds"].items()), ""]
    return "\n".join(lines)


def train_metric(data: str, out: str, pairs: list[str] | None = None, landmarks: int = 300,
                 spec: KernelSpec | None = None, c: float = 1.0, seed: int = 1, cache: str | None = None,
                 features_kind: str = "syn+metrics", structure: str = "SYN") -> TreeRankMetric:
    """The metric trained on every non-tie judgment of `data`, landmarks drawn from all of it."""
    spec = spec or KernelSpec()
    pairs = pairs or pairs_in(data)
    if not pairs:
        raise CadError("no judgments.<pair>.tsv.gz files", data)
    sets = [load_pair(data, p) for p in pairs]
    objs = build_objects(sets, TreeCache(cache))
    pairs_ = objs.layers[structure]
    if len(pairs_) < landmarks:
        raise CadError(f"{len(pairs_)} translations, fewer than {landmarks} landmarks")
    rng = np.random.default_rng(seed)
    nystrom = Nystrom.fit([pairs_[i] for i in sorted(rng.choice(len(pairs_), landmarks, replace=False))], spec)
    x = features(nystrom, pairs_, spec)
    extra = ["sentbleu", "chrf"] if features_kind == "syn+metrics" else []
    if extra:
        x = np.hstack([x, objs.extra])
    w, scale = train_ranker(x, *preferences(sets, objs), c, seed)
    model = TreeRankMetric(spec, nystrom, w, scale, extra, structure)
    model.save(out)
    return model


def score_lines(model_path: str, hypotheses: str, references: str, cache: str | None = None) -> tuple[list[float], str]:
    """Scores of line-parallel hypotheses and references under a trained metric, and its signature."""
    model = TreeRankMetric.load(model_path)
    hyps, refs = list(read_lines(hypotheses)), list(read_lines(references))
    if len(hyps) != len(refs):
        raise CadError(f"{len(hyps)} hypotheses but {len(refs)} references", references)
    trees = TreeCache(cache).parse(hyps + refs)
    pairs = [make_pair(h, r, model.structure) for h, r in zip(trees[:len(hyps)], trees[len(hyps):])]
    extra = sentence_metrics(hyps, refs) if model.extra else None
    return [float(s) for s in model.score(pairs, extra)], model.signature()
