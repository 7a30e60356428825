"""The shared task's n-gram LM baseline (DiscoMT 2015, WMT 2016; Versley and Stymne's
discomt_baseline): every placeholder of a sentence is filled with each class word, with each of
22 frequent non-pronoun words (a win means OTHER), or with nothing (NONE, scored OTHER, with an
adjustable penalty), and the fillings are ranked by the target LM's score of the whole sentence
with <s> and </s>. Sentences are independent.

Where this differs from that code: the search over several placeholders is a beam over LM states
that is sorted before it is cut (the original cuts its list of partial fillings at 200 before
sorting it, which fixes the third placeholder of a sentence to the first filler); the LM reads the
target in the case it was trained in (`lm_case`: truecased by the truecase-model.fr that cad train
writes beside a truecased model's lm.arpa, else lowercased)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from cad.corpus.truecase import Truecaser
from cad.decoder.tables import quiet_stderr
from cad.plm.score import score
from cad.plm.tsv import Item

CLASS_FILLERS = ("il", "elle", "ils", "elles", "c'", "ce", "ça", "cela", "on")
OTHER_FILLERS = ("le", "l'", "se", "s'", "y", "en", "qui", "que", "qu'", "tout", "faire", "ont", "fait", "est",
                 "parler", "comprendre", "chose", "choses", "ne", "pas", "dessus", "dedans")
NONE = ""


def filler_class(word: str) -> str:
    """The class a filler predicts: c' is ce; a non-pronoun filler or nothing is OTHER (the scorer
    maps ça to cela in the 2016 classes)."""
    if word == "c'":
        return "ce"
    return word if word in CLASS_FILLERS else "OTHER"


@dataclass
class Filling:
    score: float                      # log10 LM score so far, penalties included
    state: object
    words: tuple[str, ...]            # the filler chosen for each placeholder so far


def lm_case(path: str | os.PathLike) -> Callable[[list[str]], list[str]]:
    """How a French text beside `path` (a model's lm.arpa or corpus.fr) is cased: truecased by the
    truecase-model.fr there, or lowercased (a model trained with --lowercase)."""
    model = Path(path).parent / "truecase-model.fr"
    if model.exists():
        return Truecaser(model).truecase
    return lambda words: [w.lower() for w in words]


class LMBaseline:
    """`none_penalty`: added (log10) to the score of a sentence once per empty placeholder; negative
    values make NONE rarer (the original's --none-penalty, default 0). `case`: the target's words
    as the LM was trained on them (default: lm_case of the LM's file)."""

    def __init__(self, lm_path: str | os.PathLike, none_penalty: float = 0.0, beam: int = 200,
                 case: Callable[[list[str]], list[str]] | None = None):
        import kenlm

        with quiet_stderr():
            self.model = kenlm.Model(str(lm_path))
        self.kenlm = kenlm
        self.none_penalty = none_penalty
        self.beam = beam
        self.case = case or lm_case(lm_path)

    def _advance(self, state, word: str) -> tuple[float, object]:
        out = self.kenlm.State()
        return self.model.BaseScore(state, word, out), out

    def fill(self, item: Item) -> tuple[tuple[str, ...], float]:
        """The best filler of each placeholder and the sentence's log10 score."""
        slots = {j for j, _ in item.slots}
        start = self.kenlm.State()
        self.model.BeginSentenceWrite(start)
        beam = [Filling(0.0, start, ())]
        cased = self.case(item.target)
        for j, w in enumerate(cased):
            if j in slots:
                nxt = []
                for f in beam:
                    for filler in CLASS_FILLERS + OTHER_FILLERS:
                        s, st = self._advance(f.state, filler)
                        nxt.append(Filling(f.score + s, st, f.words + (filler,)))
                    nxt.append(Filling(f.score + self.none_penalty, f.state, f.words + (NONE,)))
                # fillings that reach the same LM state can never be told apart later: keep the best
                best: dict = {}
                for f in nxt:
                    if f.state not in best or f.score > best[f.state].score:
                        best[f.state] = f
                beam = sorted(best.values(), key=lambda f: -f.score)[:self.beam]
            else:
                for f in beam:
                    s, f.state = self._advance(f.state, w)
                    f.score += s
        for f in beam:
            end = self.kenlm.State()
            f.score += self.model.BaseScore(f.state, "</s>", end)
        top = max(beam, key=lambda f: f.score)
        return top.words, top.score

    def predict(self, items: list[Item]) -> list[list[str]]:
        return [[filler_class(w) for w in self.fill(it)[0]] if it.slots else [] for it in items]


def tune_none_penalty(baseline: LMBaseline, items: list[Item], grid: list[float], classes: list[str]) -> list[tuple[float, float]]:
    """(penalty, macro-averaged recall) on `items` (with gold classes) for each penalty."""
    out = []
    for p in grid:
        baseline.none_penalty = p
        out.append((p, score(items, baseline.predict(items), classes).macro_recall))
    return out


def folds_by_document(n_lines: int, starts: list[int], folds: int = 2) -> list[list[int]]:
    """Line numbers of each fold: consecutive runs of whole documents (as `cad cm experiment`)."""
    bounds = list(starts) + [n_lines]
    per = -(-len(starts) // folds)
    return [list(range(bounds[k], bounds[min(k + per, len(starts))])) for k in range(0, len(starts), per)]


def cross_validate(baseline: LMBaseline, items: list[Item], folds: list[list[int]], grid: list[float],
                   classes: list[str]) -> tuple[list[list[str]], list[dict]]:
    """The none-penalty of each fold chosen on the other folds (best macro-R, ties: the penalty
    nearest 0), and the pooled predictions."""
    pooled: list[list[str]] = [[] for _ in items]
    report = []
    for f, test in enumerate(folds):
        tune = [items[k] for g, fold in enumerate(folds) if g != f for k in fold]
        tried = tune_none_penalty(baseline, tune, grid, classes)
        best = max(tried, key=lambda r: (round(r[1], 9), -abs(r[0])))[0]
        baseline.none_penalty = best
        for k, p in zip(test, baseline.predict([items[k] for k in test])):
            pooled[k] = p
        report.append({"fold": f + 1, "none_penalty": best, "tuning_macro_r": dict(tried)})
    return pooled, report
