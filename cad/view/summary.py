"""The page's summary: the APT table (a `cad eval report`'s rows, or APT computed here over the
systems shown) and its category chart, the stacked bars `cad eval report` draws (the same
colours and order), as inline SVG."""

from __future__ import annotations

import html
import math

from cad.eval.apt import CASE_NAMES, AptResult

# cad/eval/report.py's plot_cases: one colour per APT case, C1 to C6
CASE_COLOURS = ["#2e7d32", "#9ccc65", "#e53935", "#fb8c00", "#8e24aa", "#9e9e9e"]
CASE_LABELS = ["1 identical", "2 equivalent", "3 different", "4 cand. missing", "5 ref. missing", "6 both missing"]


def _num(x) -> float | None:
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        try:
            f = float(x)
        except OverflowError:        # an integer too large for a float
            return None
        return f if math.isfinite(f) else None
    return None


def _dict(x) -> dict:
    return x if isinstance(x, dict) else {}


def _count(cases: dict, c: int) -> int:
    v = _num(cases.get(f"C{c}", 0))
    return int(v) if v is not None and math.isfinite(v) and v >= 0 else 0


def report_rows(report: dict, shown: list[str]) -> list[dict]:
    """The rows of a `cad eval report` JSON, as the page's table reads them."""
    rows = []
    for r in report["systems"]:
        cases = {f"C{c}": _count(r["cases"], c) for c in range(1, 7)}
        prf = _dict(_dict(r.get("pronoun_prf")).get("all"))
        mc = next((v for k, v in r.items() if k.startswith("mcnemar_vs_") and isinstance(v, dict)), {})
        rows.append({"system": r["system"], "cases": cases, "pronouns": sum(cases.values()),
                     "apt": _num(r.get("apt")), "acc_c1_c2": _num(r.get("acc_c1_c2")),
                     "precision": _num(prf.get("precision")), "recall": _num(prf.get("recall")),
                     "f": _num(prf.get("f")), "bleu": _num(r.get("bleu")), "chrf": _num(r.get("chrf")),
                     "p_c1": _num(mc.get("C1")), "p_c1_c2": _num(mc.get("C1+C2")),
                     "shown": r["system"] in shown})
    return rows


def apt_rows(results: dict[str, AptResult]) -> list[dict]:
    """APT's table computed here, over the systems shown."""
    rows = []
    for name, res in results.items():
        total = sum(res.counts.values())
        rows.append({"system": name, "cases": {f"C{c}": res.counts[c] for c in range(1, 7)}, "pronouns": total,
                     "apt": _num(res.score), "acc_c1_c2": (res.counts[1] + res.counts[2]) / total if total else None,
                     "shown": True})
    return rows


def chart_svg(rows: list[dict], width: int = 720) -> str:
    """Share of each APT case per system, one horizontal stacked bar per system; each segment
    carries its case (data-case) so that a click can filter the page by it."""
    if not rows:
        return ""
    # the labels' width from the longest name (about 7 px a character at 12 px)
    label_w, bar_h, gap, top = min(320, max(80, 7 * max(len(r["system"]) for r in rows) + 14)), 20, 8, 6
    height = top + len(rows) * (bar_h + gap) + 30
    plot_w = width - label_w - 10
    out = [f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="APT categories per system">']
    for n, row in enumerate(rows):
        y = top + n * (bar_h + gap)
        total = row["pronouns"] or 1
        name = html.escape(row["system"])
        weight = "bold" if row.get("shown") else "normal"
        out.append(f'<text x="{label_w - 6}" y="{y + bar_h - 5}" text-anchor="end" font-weight="{weight}">{name}</text>')
        x = float(label_w)
        for c in range(1, 7):
            n_c = row["cases"][f"C{c}"]
            w = plot_w * n_c / total
            if w > 0:
                out.append(f'<rect class="seg" data-case="{c}" x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar_h}" '
                           f'fill="{CASE_COLOURS[c - 1]}"><title>{name}: C{c} {CASE_NAMES[c]}, {n_c} of '
                           f'{row["pronouns"]} ({100 * n_c / total:.1f}%)</title></rect>')
            x += w
    y = top + len(rows) * (bar_h + gap) + 12
    for t in range(0, 11, 2):
        x = label_w + plot_w * t / 10
        out.append(f'<text x="{x:.1f}" y="{y}" text-anchor="middle" class="tick">{t / 10:g}</text>')
    out.append(f'<text x="{label_w + plot_w / 2:.1f}" y="{y + 14}" text-anchor="middle" class="tick">'
               'share of source pronouns</text></svg>')
    return "".join(out)
