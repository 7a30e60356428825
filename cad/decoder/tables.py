"""The tables a moses.ini names: phrase tables, the lexicalized reordering table and the n-gram
language model, read on Moses's scale.

Phrase and reordering table values enter as natural logs floored at -100 (Moses's LOWEST_SCORE);
language model log10 probabilities are converted to natural logs. Features read these tables;
the tables know no feature.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass

import kenlm

from cad.core.errors import CadError
from cad.core.textio import is_uint, read_lines
from cad.moses.ini import Feature

LOWEST_SCORE = -100.0
LN10 = math.log(10.0)


def floor_log(x: float) -> float:
    return max(math.log(x), LOWEST_SCORE) if x > 0 else LOWEST_SCORE


def scored_lines(path: str, wanted: set[str] | None, n_scores: int,
                 what: str) -> Iterator[tuple[int, str, list[str], tuple[float, ...]]]:
    """Lines `src ||| tgt ||| scores ...` whose source is wanted: (line number, source, fields, log scores)."""
    for lineno, line in enumerate(read_lines(path), 1):
        fields = line.split(" ||| ")
        if len(fields) < 3:
            raise CadError("expected 'source ||| target ||| scores'", path, lineno)
        src = fields[0].strip()
        if wanted is not None and src not in wanted:
            continue
        parts = fields[2].split()
        if len(parts) != n_scores:
            raise CadError(f"{len(parts)} scores, but {what}", path, lineno)
        try:
            scores = tuple(floor_log(float(x)) for x in parts)
        except ValueError:
            raise CadError(f"non-numeric score in {fields[2]!r}", path, lineno) from None
        yield lineno, src, fields, scores


@dataclass
class TargetEntry:
    words: tuple[str, ...]
    scores: tuple[float, ...]            # natural-log table scores
    alignment: tuple[tuple[int, int], ...]


class PhraseTable:
    """PhraseDictionaryMemory: `src ||| tgt ||| scores [||| alignment [||| counts ...]]`."""

    def __init__(self, feature: Feature, config_path: str | None):
        self.feature = feature
        self.name = feature.name
        self.num_scores = feature.num_features
        self.table_limit = int(feature.args.get("table-limit", "20"))
        self.path = feature.path
        if not self.path:
            raise CadError(f"{feature.name} has no path=", config_path, feature.line)
        if not os.path.exists(self.path):
            raise CadError(f"{feature.name}: phrase table {self.path} not found", config_path, feature.line)
        self.entries: dict[str, list[TargetEntry]] = {}
        self.max_source_length = 0

    def load(self, wanted: set[str] | None) -> None:
        what = f"{self.name} declares num-features={self.num_scores}"
        for lineno, src, fields, scores in scored_lines(self.path, wanted, self.num_scores, what):
            tgt = tuple(fields[1].split())
            if not src or not tgt:
                raise CadError("empty source or target phrase", self.path, lineno)
            align: tuple[tuple[int, int], ...] = ()
            if len(fields) > 3 and fields[3].strip():
                pts = []
                for tok in fields[3].split():
                    a, sep, b = tok.partition("-")
                    if not sep or not is_uint(a) or not is_uint(b):
                        raise CadError(f"malformed alignment point {tok!r}", self.path, lineno)
                    pts.append((int(a), int(b)))
                align = tuple(pts)
            self.entries.setdefault(src, []).append(TargetEntry(tgt, scores, align))
            self.max_source_length = max(self.max_source_length, src.count(" ") + 1)


class ReorderingTable:
    """LexicalReordering wbe-msd-bidirectional-fe: `src ||| tgt ||| 6 probabilities`."""

    def __init__(self, feature: Feature, config_path: str | None):
        kind = feature.args.get("type", "")
        parts = kind.split("-")
        if "msd" not in parts or "bidirectional" not in parts or "fe" not in parts:
            raise CadError(f"{feature.name}: only msd-bidirectional-fe reordering models are supported, not {kind!r}",
                           config_path, feature.line)
        if feature.num_features != 6:
            raise CadError(f"{feature.name}: msd-bidirectional needs 6 scores", config_path, feature.line)
        self.feature = feature
        self.path = feature.path
        if not self.path or not os.path.exists(self.path):
            raise CadError(f"{feature.name}: reordering table {self.path} not found", config_path, feature.line)
        self.scores: dict[tuple[str, str], tuple[float, ...]] = {}

    def load(self, wanted: set[str] | None) -> None:
        for _, src, fields, scores in scored_lines(self.path, wanted, 6, "the reordering model needs 6"):
            self.scores[(src, fields[1].strip())] = scores


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """kenlm prints loading chatter on the C stderr; keep it off the user's terminal."""
    try:
        fd = os.dup(2)
    except OSError:
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(fd, 2)
        os.close(fd)


class LanguageModel:
    def __init__(self, feature: Feature, config_path: str | None):
        self.feature = feature
        path = feature.path
        if not path or not os.path.exists(path):
            raise CadError(f"{feature.name}: language model {path} not found", config_path, feature.line)
        try:
            with quiet_stderr():
                self.model = kenlm.Model(path)
        except Exception as exc:
            raise CadError(f"{feature.name}: kenlm cannot load {path}: {exc}", config_path, feature.line) from None
        self.order = self.model.order
        self._estimates: dict[tuple[str, ...], float] = {}

    def begin(self) -> kenlm.State:
        s = kenlm.State()
        self.model.BeginSentenceWrite(s)
        return s

    def score_words(self, state: kenlm.State, words) -> tuple[float, kenlm.State]:
        """Natural-log score of `words` after `state`, and the state after them."""
        total = 0.0
        base = self.model.BaseScore
        State = kenlm.State
        for w in words:
            out = State()
            total += base(state, w, out)
            state = out
        return total * LN10, state

    def estimate(self, words: tuple[str, ...]) -> float:
        """Context-free estimate of a phrase, as Moses's future cost uses (cached: phrases recur)."""
        v = self._estimates.get(words)
        if v is None:
            s = kenlm.State()
            self.model.NullContextWrite(s)
            v = self._estimates[words] = self.score_words(s, words)[0]
        return v
