"""WMT pairwise ranking data: judgments, the judged system outputs and the references (the layout
of ../shared/data/wmt-ranking: `judgments.<lp>.tsv.gz`, `outputs.<lp>.tsv.gz`, `ref.<lp>.txt`),
and a metric's segment-level Kendall's tau against a judgments file."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from cad.core.errors import CadError
from cad.core.textio import read_lines
from cad.eval.correlation import TauResult, kendall_tau, read_scores

WINNERS = ("a", "b", "tie")


@dataclass(frozen=True)
class Judgment:
    segment: int          # 1-based, the line of the reference
    a: str
    b: str
    winner: str           # "a", "b" or "tie"


@dataclass
class RankingSet:
    """One language pair: judgments, {(segment, system): text}, and the references by segment."""
    pair: str
    judgments: list[Judgment]
    outputs: dict[tuple[int, str], str]
    references: list[str]

    def reference(self, segment: int) -> str:
        return self.references[segment - 1]


def read_judgments(path: str | os.PathLike) -> list[Judgment]:
    out = []
    for lineno, line in enumerate(read_lines(path), 1):
        f = line.split("\t")
        if len(f) != 4:
            raise CadError(f"{len(f)} fields, expected segment<TAB>system_a<TAB>system_b<TAB>winner", str(path), lineno)
        if f[3] not in WINNERS:
            raise CadError(f"winner {f[3]!r}: expected a, b or tie", str(path), lineno)
        if not f[1] or not f[2] or f[1] == f[2]:
            raise CadError(f"systems {f[1]!r} and {f[2]!r}: two different names expected", str(path), lineno)
        out.append(Judgment(_segment(f[0], path, lineno), f[1], f[2], f[3]))
    return out


def read_outputs(path: str | os.PathLike) -> dict[tuple[int, str], str]:
    out: dict[tuple[int, str], str] = {}
    for lineno, line in enumerate(read_lines(path), 1):
        f = line.split("\t")
        if len(f) != 3:
            raise CadError(f"{len(f)} fields, expected segment<TAB>system<TAB>text", str(path), lineno)
        key = (_segment(f[0], path, lineno), f[1])
        if key in out:
            raise CadError(f"a second output of {f[1]} for segment {key[0]}", str(path), lineno)
        out[key] = f[2]
    return out


def load_pair(folder: str | os.PathLike, pair: str) -> RankingSet:
    """The files of one pair in a wmt-ranking folder; every judged output must be present."""
    d = Path(folder)
    paths = {"judgments": d / f"judgments.{pair}.tsv.gz", "outputs": d / f"outputs.{pair}.tsv.gz",
             "ref": d / f"ref.{pair}.txt"}
    for p in paths.values():
        if not p.exists():
            raise CadError("no such file", str(p))
    judgments = read_judgments(paths["judgments"])
    outputs = read_outputs(paths["outputs"])
    refs = list(read_lines(paths["ref"]))
    for k, j in enumerate(judgments, 1):
        if j.segment > len(refs):
            raise CadError(f"segment {j.segment}, but the references have {len(refs)} lines",
                           str(paths["judgments"]), k)
        for s in (j.a, j.b):
            if (j.segment, s) not in outputs:
                raise CadError(f"no output of {s} for segment {j.segment} in {paths['outputs']}",
                               str(paths["judgments"]), k)
    return RankingSet(pair, judgments, outputs, refs)


def kendall_tau_from_files(judgments: str | os.PathLike, scores: str | os.PathLike,
                           variant: str = "wmt12") -> TauResult:
    """`kendall_tau` of a metric's `segment<TAB>system<TAB>score` lines against a judgments file;
    every system of every judgment needs a score."""
    js = read_judgments(judgments)
    sc = read_scores(scores)
    for k, j in enumerate(js, 1):
        for s in (j.a, j.b):
            if (j.segment, s) not in sc:
                raise CadError(f"no score for {s} on segment {j.segment} in {scores}", str(judgments), k)
    return kendall_tau(js, lambda seg, sys: sc[(seg, sys)], variant)


def pairs_in(folder: str | os.PathLike) -> list[str]:
    return sorted(p.name[len("judgments."):-len(".tsv.gz")] for p in Path(folder).glob("judgments.*.tsv.gz"))


def _segment(text: str, path, lineno: int) -> int:
    try:
        n = int(text)
    except ValueError:
        raise CadError(f"segment id {text!r} is not a number", str(path), lineno) from None
    if n < 1:
        raise CadError(f"segment id {n}: ids start at 1", str(path), lineno)
    return n
