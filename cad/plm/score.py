"""Scoring pronoun predictions as the DiscoMT 2015 / WMT 2016 scorer does: confusion matrix,
per-class precision/recall/F, accuracy, and the official macro-averaged recall."""

from __future__ import annotations

from dataclasses import dataclass

from cad.core.errors import CadError
from cad.plm.tsv import CLASSES_2015, CLASSES_2016, Item


@dataclass
class Scores:
    classes: list[str]
    matrix: dict[tuple[str, str], int]     # (gold, predicted) -> count

    def count(self, gold=None, pred=None) -> int:
        return sum(v for (g, p), v in self.matrix.items() if (gold is None or g == gold) and (pred is None or p == pred))

    def precision(self, c: str) -> float:
        n = self.count(pred=c)
        return self.matrix.get((c, c), 0) / n if n else 0.0

    def recall(self, c: str) -> float:
        n = self.count(gold=c)
        return self.matrix.get((c, c), 0) / n if n else 0.0

    def f(self, c: str) -> float:
        p, r = self.precision(c), self.recall(c)
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def accuracy(self) -> float:
        total = self.count()
        return sum(self.matrix.get((c, c), 0) for c in self.classes) / total if total else 0.0

    @property
    def macro_recall(self) -> float:
        """Mean recall over the classes of the task (WMT 2016's official criterion)."""
        return sum(self.recall(c) for c in self.classes) / len(self.classes)


def detect_classes(gold: list[Item]) -> list[str]:
    seen = {c for it in gold for c in it.classes}
    return CLASSES_2015 if "ça" in seen else CLASSES_2016


def normalize(c: str, classes: list[str]) -> str:
    if c not in classes:
        if c == "ça" and "cela" in classes:
            return "cela"
        return "OTHER"
    return c


def score(gold: list[Item], pred: list[list[str]], classes: list[str] | None = None, path: str | None = None) -> Scores:
    classes = classes or detect_classes(gold)
    if len(gold) != len(pred):
        raise CadError(f"{len(pred)} predicted lines for {len(gold)} gold lines", path)
    m: dict[tuple[str, str], int] = {}
    for it, p in zip(gold, pred):
        if len(p) != len(it.classes):
            raise CadError(f"{len(p)} predictions for {len(it.classes)} gold classes", path, it.line)
        for g, q in zip(it.classes, p):
            key = (normalize(g, classes), normalize(q, classes))
            m[key] = m.get(key, 0) + 1
    return Scores(classes, m)


def format_scores(s: Scores) -> str:
    cls = s.classes
    w = max(6, max(len(c) for c in cls) + 1)
    out = ["Confusion matrix:", " " * w + "".join(f"{c:>{w}}" for c in cls) + "   <-- classified as"]
    for g in cls:
        out.append(f"{g:<{w}}" + "".join(f"{s.matrix.get((g, p), 0):>{w}}" for p in cls) + f"   {s.count(gold=g):>5}")
    out.append(f"{'total':<{w}}" + "".join(f"{s.count(pred=p):>{w}}" for p in cls) + f"   {s.count():>5}")
    out += ["", f"{'class':<{w}}{'P':>9}{'R':>9}{'F':>9}"]
    for c in cls:
        out.append(f"{c:<{w}}{100 * s.precision(c):>8.2f}%{100 * s.recall(c):>8.2f}%{100 * s.f(c):>8.2f}%")
    out += ["", f"Accuracy: {100 * s.accuracy:.2f}%", f"Macro-averaged recall: {100 * s.macro_recall:.2f}%"]
    return "\n".join(out) + "\n"
