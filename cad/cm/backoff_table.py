"""Seed 004's back-off table, cm.gz: P(target words | bundle) from the triples (bundle, target
words aligned to the pronoun, candidate probability) the collection gathers, as relative
frequencies (seed 004 §3.2) or Witten-Bell interpolated along the bundle's back-off chain (seed
003 §3.2); written as a Moses phrase table whose source phrases are the bundle tokens.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict

from cad.cm.bundles import Bundle
from cad.cm.collect import CMStats
from cad.core.errors import CadError
from cad.core.textio import atomic_output, read_lines
from cad.defaults import CM_MIN_PROB as MIN_PROB

SMOOTHING = ("none", "witten-bell")


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


def table_lines(model: dict[str, dict[str, tuple[float, float]]], stats: CMStats) -> list[str]:
    """The table's lines in `LC_ALL=C sort` order, entries below MIN_PROB dropped (counted in
    `stats`, as each bundle's total score)."""
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
    return lines


def write_table(lines: list[str], path: str | os.PathLike) -> None:
    with atomic_output(path) as fh:
        for line in lines:
            fh.write(line + "\n")


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
