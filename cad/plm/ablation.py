"""`cad plm ablation`: the pronoun classifier and its feature-group ablations in one run.

The training features are computed once (cad/plm/pronoun_classifier.py's `training_instances`,
every model-based feature from the other half's models) and so are the test instances'; then
each configuration (all groups, the groups chosen on the halves, and that choice without each
remaining group) gets its C from the halves, is fitted on the whole corpus and scored on the
test file in both class sets. Nothing is chosen on the test file."""

from __future__ import annotations

import os

from cad.plm.lm_baseline import LMBaseline
from cad.plm.pronoun_classifier import FEATURE_GROUPS, _fit, drop_groups, halves_macro_r, instance_features, \
    eliminate_groups, training_instances
from cad.plm.score import score
from cad.plm.tsv import CLASSES_2015, CLASSES_2016, Item


def configurations(missing: tuple[str, ...], X, y, grid) -> list[tuple[str, tuple[str, ...]]]:
    """(name, dropped groups): all groups, the backward elimination's choice on the halves, and
    that choice without each group it kept."""
    dropped, _ = eliminate_groups(X, y, missing, missing, grid)
    out = [("all groups", missing), ("chosen on the halves", dropped)]
    out += [(f"chosen, without {g}", dropped + (g,)) for g in FEATURE_GROUPS if g not in dropped]
    return out


def run_ablation(src: str | os.PathLike, tgt: str | os.PathLike, align: str | os.PathLike, docs: str | os.PathLike,
                 coref: str | os.PathLike | None, items: list[Item], antecedents: list[dict] | None,
                 doc_starts: list[int], lm_path: str | os.PathLike, plm_dir: str | os.PathLike | None,
                 grid: tuple[float, ...] = (0.03, 0.1, 0.3, 1.0)) -> list[dict]:
    X, y, missing = training_instances(src, tgt, align, docs, coref=coref, plm=plm_dir is not None)
    test = instance_features(LMBaseline(lm_path), items, antecedents, doc_starts, True, plm_dir)
    rows = []
    for name, dropped in configurations(missing, X, y, grid):
        halves, c, _ = halves_macro_r(X, y, dropped, grid)
        vec, clf = _fit([drop_groups(x, dropped) for x in X[0] + X[1]], y[0] + y[1], c)
        preds = [[str(p) for p in clf.predict(vec.transform([drop_groups(f, dropped) for f in feats]))]
                 if feats else [] for feats in test]
        row = {"system": name, "without": [g for g in dropped if g not in missing], "C": c,
               "halves_macro_r": round(halves, 4)}
        for label, classes in (("2015", CLASSES_2015), ("2016", CLASSES_2016)):
            sc = score(items, preds, classes)
            row[f"macro_r_{label}"] = round(100 * sc.macro_recall, 2)
            row[f"acc_{label}"] = round(100 * sc.accuracy, 2)
            row[f"recall_{label}"] = {c2: round(100 * sc.recall(c2), 1) for c2 in classes}
        rows.append(row)
    return rows


def to_markdown(rows: list[dict]) -> str:
    out = ["| classifier | groups left out | halves macro-R | macro-R 2015 | acc. 2015 | macro-R 2016 | acc. 2016 |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['system']} | {', '.join(r['without']) or '–'} | {100 * r['halves_macro_r']:.2f}% | "
                   f"{r['macro_r_2015']:.2f}% | {r['acc_2015']:.2f}% | {r['macro_r_2016']:.2f}% | {r['acc_2016']:.2f}% |")
    return "\n".join(out) + "\n"
