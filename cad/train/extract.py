"""Phrase-pair extraction consistent with a word alignment, as Moses's `extract` does it.

For every target span of at most `max_len` words containing an aligned word, the smallest source
span covering its alignment points is taken if no word inside it aligns outside the target span;
then the source span is extended over unaligned words on either side (still at most `max_len`).
Target spans with unaligned boundary words arise by enumeration. Each pair carries its
word-based (wbe) orientation towards the previous and the next phrase: mono, swap or other.

`extract_rows` is the Python engine's extraction half, Moses's `extract` / `extract.inv` files:
every pair counted as a direct and an inverse record, which the scoring (phrase_scoring.py) and
the shards (extract_shards.py) both read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from cad.train.extsort import ExternalCounter

SEP = " ||| "


@dataclass
class ScoringStats:
    """What building the tables counted: sentences and phrase pair occurrences extracted, phrase
    pairs and source phrases written."""
    sentences: int = 0
    extracted: int = 0
    phrase_pairs: int = 0
    source_phrases: int = 0


@dataclass(frozen=True)
class PhrasePair:
    """One extracted occurrence: half-open spans, alignment as (src, tgt) points inside the pair."""

    src_start: int
    src_end: int
    tgt_start: int
    tgt_end: int
    alignment: tuple[tuple[int, int], ...]
    prev_orientation: str
    next_orientation: str


def _orientation(connected_mono: bool, connected_swap: bool) -> str:
    # Moses's getOrientWordModel for the msd model: both or neither connected is "other".
    if connected_mono and not connected_swap:
        return "mono"
    if connected_swap and not connected_mono:
        return "swap"
    return "other"


def extract_pairs(n_src: int, n_tgt: int, points, max_len: int = 7) -> list[PhrasePair]:
    aligned_to_t: list[list[int]] = [[] for _ in range(n_tgt)]
    t_min = [n_tgt] * n_src
    t_max = [-1] * n_src
    pset = set()
    for i, j in points:
        aligned_to_t[j].append(i)
        if j < t_min[i]:
            t_min[i] = j
        if j > t_max[i]:
            t_max[i] = j
        pset.add((i, j))
    s_aligned = [t_max[i] >= 0 for i in range(n_src)]

    def is_aligned(fi: int, ei: int) -> bool:
        if fi == -1 and ei == -1:
            return True
        if fi < 0 or ei < 0:
            return False
        if fi == n_src and ei == n_tgt:
            return True
        return (fi, ei) in pset

    out: list[PhrasePair] = []
    for start_e in range(n_tgt):
        min_f, max_f = n_src, -1
        for end_e in range(start_e, min(n_tgt, start_e + max_len)):
            for fi in aligned_to_t[end_e]:
                if fi < min_f:
                    min_f = fi
                if fi > max_f:
                    max_f = fi
            if max_f < 0 or max_f - min_f >= max_len:
                continue
            if any(t_max[fi] >= 0 and (t_min[fi] < start_e or t_max[fi] > end_e)
                   for fi in range(min_f, max_f + 1)):
                continue
            start_f = min_f
            while start_f >= 0 and start_f > max_f - max_len and (start_f == min_f or not s_aligned[start_f]):
                end_f = max_f
                while end_f < n_src and end_f < start_f + max_len and (end_f == max_f or not s_aligned[end_f]):
                    align = tuple(sorted(
                        (fi - start_f, ei - start_e)
                        for ei in range(start_e, end_e + 1) for fi in aligned_to_t[ei]
                    ))
                    prev_o = _orientation(is_aligned(start_f - 1, start_e - 1), is_aligned(end_f + 1, start_e - 1))
                    next_o = _orientation(is_aligned(end_f + 1, end_e + 1), is_aligned(start_f - 1, end_e + 1))
                    out.append(PhrasePair(start_f, end_f + 1, start_e, end_e + 1, align, prev_o, next_o))
                    end_f += 1
                start_f -= 1
    return out


def extract_rows(rows: Iterable[tuple[list[str], list[str], list[tuple[int, int]]]], max_len: int,
                 direct: ExternalCounter, inverse: ExternalCounter, stats: ScoringStats) -> None:
    """The Python engine's extraction half: count every phrase pair of the (source tokens, target
    tokens, points) rows in both directions."""
    for ss, tt, points in rows:
        stats.sentences += 1
        for p in extract_pairs(len(ss), len(tt), points, max_len):
            sp = " ".join(ss[p.src_start:p.src_end])
            tp = " ".join(tt[p.tgt_start:p.tgt_end])
            # target-major order: the order in which Moses prints a pair's alignment
            al = " ".join(f"{i}-{j}" for i, j in sorted(p.alignment, key=lambda x: (x[1], x[0])))
            inv = " ".join(f"{j}-{i}" for i, j in p.alignment)
            direct.add(f"{sp}{SEP}{tp}{SEP}{al}{SEP}{p.prev_orientation} {p.next_orientation}")
            inverse.add(f"{tp}{SEP}{sp}{SEP}{inv}")
            stats.extracted += 1
