"""The CM trained on the reading it is scored under: the classifier CM and the class table trained
on each pronoun's whole mixture or on its most probable bundle alone (`reading=map`), each scored
under both readings, on the two halves of the training corpus by document (train on one, score the
other, both ways, as `cad cm build` chooses C). The figures of CHANGELOG.md ("The CM trained on
the reading it is scored under"); about 1.5 min.

    python bench/cm_training_reading.py [--model models/baseline] [--C 0.3]

Printed per (trained on, scored under) and model: held-out log-loss, argmax accuracy, and the share
of the instances whose class is elle/elles that are predicted so.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

FEMININE = ("elle", "elles")


def scores(model, instances) -> tuple[float, float, float]:
    from cad.cm.class_classifier import log_loss

    n = right = fem = fem_right = 0.0
    for mix, cls, w, tokens, index in instances:
        dist = model.class_distribution(mix, tokens, index)
        best = max(dist, key=dist.get)
        n += w
        right += w * (best == cls)
        if cls in FEMININE:
            fem += w
            fem_right += w * (best == cls)
    return log_loss(model, instances), right / n, fem_right / fem


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(REPO / "models" / "baseline"),
                    help="the model folder make trains: corpus.{en,fr,docs}, the alignment, corpus.coref.jsonl")
    ap.add_argument("--C", type=float, default=0.3, help="the classifier's regularisation (default: make's choice, .3)")
    a = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)

    from cad.cm.class_classifier import ClassifierCM, features
    from cad.cm.class_model import ClassTable, read_mixture
    from cad.cm.collect import collect_in_process
    from cad.core.docs import read_docs
    from cad.core.textio import count_lines

    corpus = f"{a.model}/corpus"
    starts = read_docs(f"{corpus}.docs", count_lines(f"{corpus}.en"))
    acc = collect_in_process(corpus, f"{a.model}/aligned.grow-diag-final-and", "en", "fr", f"{corpus}.docs",
                             [(d.first_line, d.doc_id) for d in starts], f"{a.model}/corpus.coref.jsonl", "ranker",
                             False, False, {})
    instances = [(m, c, w, toks, i) for (m, c, w), (toks, i) in zip(acc.instances, acc.positions)]
    halves = [[x for x, h in zip(instances, acc.halves) if h == k] for k in (0, 1)]

    def read(part, reading):
        return [(read_mixture(m, reading), c, w, t, i) for m, c, w, t, i in part]

    print("trained on\tscored under\tmodel\tlog-loss\taccuracy\tfeminine")
    for train_reading in ("mixture", "map"):
        for test_reading in ("mixture", "map"):
            rows = {"classifier": [], "class table": []}
            for k in (0, 1):
                train, test = read(halves[k], train_reading), read(halves[1 - k], test_reading)
                clf = ClassifierCM.fit([features(t, i, m) for m, _, _, t, i in train], [x[1] for x in train],
                                       [x[2] for x in train], a.C)
                rows["classifier"].append(scores(clf, test))
                rows["class table"].append(scores(ClassTable.estimate_em([x[:3] for x in train], 5), test))
            for name, got in rows.items():
                mean = [sum(g[j] for g in got) / 2 for j in range(3)]
                print(f"{train_reading}\t{test_reading}\t{name}\t{mean[0]:.3f}\t{mean[1]:.3f}\t{mean[2]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
