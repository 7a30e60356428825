"""Folds by document for the pronoun experiments: the documents cut into consecutive folds, every
system's weight chosen on the other folds by a pronoun measure (TUNING_METRICS: C1+C2 accuracy
by default, or strict class agreement; ties: BLEU, then the smaller weight) and its outputs at
that weight pooled over the folds it was tested on."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from cad.eval.apt import evaluate
from cad.eval.apt_settings import french_settings
from cad.eval.bleu import bleu_chrf
from cad.defaults import CM_TUNE
from cad.eval.report import System, class_agreement
from cad.experiments.stages import SystemRun, slug, weight_size, weight_text, write_lines


@dataclass
class Folds:
    first_line: list[int]            # per document, its first sentence in the whole set
    doc_lines: list[list[int]]       # per document, its sentences
    fold_docs: list[list[int]]       # per fold, its documents
    fold_sents: list[set[int]]       # per fold, its sentences

    @classmethod
    def by_document(cls, docs_list: list, folds: int) -> "Folds":
        """Consecutive runs of the document list (folds by talk)."""
        first_line, k = [], 0
        for _, sents in docs_list:
            first_line.append(k)
            k += len(sents)
        doc_lines = [list(range(first_line[d], first_line[d] + len(s))) for d, (_, s) in enumerate(docs_list)]
        per = math.ceil(len(docs_list) / folds)
        fold_docs = [list(range(i, min(i + per, len(docs_list)))) for i in range(0, len(docs_list), per)]
        return cls(first_line, doc_lines, fold_docs, [{k for d in f for k in doc_lines[d]} for f in fold_docs])

    def tuning_sentences(self, f: int) -> set[int]:
        return set().union(*(self.fold_sents[g] for g in range(len(self.fold_sents)) if g != f))


# what a CM weight is chosen by on the tuning folds: APT's C1+C2 accuracy (ce right for il and ça),
# or the share of pronouns whose class is the reference's. With the likelihood objective strict
# agreement barely moves with the weight on the dev talks (.52-.53 from 1 to 6 on one fold, .48-.53
# on the other) and, by a few pronouns, chooses 1 or 3, which leaves the phrase table's masculine
# *il* its way (7 of 46 feminine references, against 14 with C1+C2's 25 and 40; docs/results.md)
TUNING_METRICS = {"strict": "strict_agreement", "c1c2": "acc_c1_c2"}


def fold_score(source, reference, align_ref, cand_lines, align_lines, sentences: set[int], work: Path) -> dict:
    """{strict_agreement, acc_c1_c2, bleu} of a candidate restricted to the given sentences."""
    keep = sorted(sentences)
    sub = {}
    for name, lines in (("src", source), ("ref", reference), ("aref", align_ref), ("cand", cand_lines),
                        ("acand", align_lines)):
        sub[name] = write_lines(work / f"fold.{name}", [lines[k] for k in keep])
    res = evaluate(sub["src"], sub["ref"], sub["cand"], sub["aref"], sub["acand"], french_settings())
    total = sum(res.counts.values())
    acc = (res.counts[1] + res.counts[2]) / total if total else math.nan
    return {"strict_agreement": class_agreement(res)["strict_agreement"], "acc_c1_c2": acc,
            "bleu": bleu_chrf(sub["cand"], sub["ref"])["bleu"]}


def pool_run(name: str, runs: list[SystemRun], folds: Folds, lines: tuple[list[str], list[str], list[str]],
             work: Path, tuning: dict, tuned_per_fold: bool, metric: str = CM_TUNE) -> System:
    """Each fold's sentences at the weight the other folds chose by `metric` (TUNING_METRICS;
    `tuning` records every weight's scores), written as the system's pooled output and alignment.
    `runs`: per fold, the run its weight is chosen on and its sentences come from (the same run
    for every fold, or each fold's own when its decoder weights were tuned without it). `lines`:
    the source, reference and reference alignment. A system `tuned_per_fold` already holds its
    pooled outputs."""
    if len(runs) != len(folds.fold_sents):
        raise ValueError(f"{len(runs)} runs for {len(folds.fold_sents)} folds")
    final_out = list(runs[0].outputs[next(iter(runs[0].outputs))])
    final_al = list(runs[0].alignments[next(iter(runs[0].alignments))])
    for f, test in enumerate(folds.fold_sents):
        tune = folds.tuning_sentences(f)
        run = runs[f]
        if tuned_per_fold:
            continue
        if len(run.outputs) > 1:
            scored = []
            for w in run.outputs:
                sc = fold_score(*lines, run.outputs[w], run.alignments[w], tune, work)
                scored.append((sc[TUNING_METRICS[metric]], sc["bleu"], -weight_size(w), w))
                tuning.setdefault(name, {}).setdefault(f"fold{f + 1}", {})[weight_text(w)] = sc
            best_w = max(scored)[3]
        else:
            best_w = next(iter(run.outputs))
        run.chosen[f"fold{f + 1}"] = best_w
        for k in test:
            final_out[k] = run.outputs[best_w][k]
            final_al[k] = run.alignments[best_w][k]
    cand = write_lines(work / f"{slug(name)}.out", final_out)
    al = write_lines(work / f"{slug(name)}.align", final_al)
    return System(name, cand, al)
