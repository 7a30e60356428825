"""`cad eval report`: several systems on one test set, as Markdown, JSON and a PNG chart."""

from __future__ import annotations

import json
import logging
import math
import os
from dataclasses import dataclass

from cad.core.errors import CadError
from cad.eval.apt import AptResult, AptSettings, evaluate
from cad.eval.apt_settings import settings_for
from cad.eval.bleu import bleu_chrf
from cad.eval.pronoun_pr import pronoun_prf
from cad.eval.significance import mcnemar
from cad.core.textio import atomic_output
from cad.lang import NONE
from cad.lang.facts import Language
from cad.lang.pairs import Pair, chosen


@dataclass
class System:
    name: str
    candidate: str
    alignment: str

    @classmethod
    def parse(cls, spec: str) -> "System":
        name, sep, rest = spec.partition("=")
        cand, sep2, align = rest.rpartition(":")
        if not sep or not sep2 or not name or not cand or not align:
            raise CadError(f"system {spec!r} must be NAME=CANDIDATE:ALIGNMENT")
        return cls(name, cand, align)


def correct(result: AptResult, cases: tuple[int, ...]) -> list[bool]:
    return [o.case in cases for o in result.occurrences]


def _class(side, target: Language) -> str:
    """The class of one side's words; nothing aligned, or only the target's NONE marker (the
    reference's translator left the pronoun out: French's DiscoMT references write NONE), is NONE:
    a candidate that leaves it out agrees with it."""
    if side is None:
        return NONE
    return target.class_of_words([w for w in side.tokens if w.lower() != target.none_marker])


def strict_counts(result: AptResult, pair: Pair | None = None) -> dict:
    """A count stricter than APT's: the class of the candidate's words (il, elle, ce, le, la, l', …
    for French: the pair's target classes, after APT's alignment improvement) equal to the
    reference's, so that OTHER is not OTHER's match and the similar pairs count for nothing (a
    pronoun left out on both sides, NONE, agrees); and the same on the references whose class is
    the target's `marked` one (French's feminine elle, elles), where gender is what the antecedent
    decides ("feminine" in the report)."""
    same, fem = strict_right(result, pair)
    return {"strict": sum(same), "feminine": sum(fem), "feminine_references": len(fem)}


def strict_right(result: AptResult, pair: Pair | None = None) -> tuple[list[bool], list[bool]]:
    """Per pronoun, whether the candidate's class is the reference's; and the same on the
    references of the target's marked classes alone (French: elle, elles), in their order."""
    target = chosen(pair).target
    same = [_class(o.ref, target) == _class(o.cand, target) for o in result.occurrences]
    fem = [ok for ok, o in zip(same, result.occurrences) if _class(o.ref, target) in target.marked]
    return same, fem


def class_agreement(result: AptResult, pair: Pair | None = None) -> dict:
    """Strict class agreement as a share of the pronouns, and its recall on the references of each
    group of the target's class groups (French: il, elle, ils, elles, ce, ça, the object clitics,
    on, other, none): of the pronouns whose reference is *il*, the share the candidate also wrote
    *il*, and so on. APT and C1+C2 count *ce* right for an *il* or *ça* reference; here only the
    reference's own class is."""
    target = chosen(pair).target
    group_of = {c: g for g, classes in target.class_groups.items() for c in classes}
    counts = {g: [0, 0] for g in target.class_groups}           # group -> [right, references]
    right = 0
    for o in result.occurrences:
        ref, cand = _class(o.ref, target), _class(o.cand, target)
        c = counts[group_of.get(ref, "other")]
        c[1] += 1
        if ref == cand:
            c[0] += 1
            right += 1
    n = len(result.occurrences)
    return {"strict_agreement": right / n if n else math.nan,
            "class_recall": {g: {"right": r, "references": m, "recall": r / m if m else math.nan}
                             for g, (r, m) in counts.items()}}


def build_report(source: str, reference: str, align_ref: str, systems: list[System],
                 docs: str | None = None, settings: AptSettings | None = None, lowercase: bool = False,
                 pair: Pair | None = None) -> dict:
    """APT, pronoun P/R/F and BLEU/chrF of each system. BLEU and chrF score the texts as given,
    with their case (sacrebleu's default; `lowercase`: case-insensitive, for lowercased systems),
    and their signatures say so. `pair`: the language pair, whose lists and classes are read."""
    pair = chosen(pair)
    if not systems:
        raise CadError("no system to report on")
    rows = []
    results: list[AptResult] = []
    for sys_ in systems:
        s = settings or settings_for(pair)
        res = evaluate(source, reference, sys_.candidate, align_ref, sys_.alignment, s)
        results.append(res)
        prf = pronoun_prf(source, reference, sys_.candidate, align_ref, sys_.alignment,
                          pronouns=pair.source.cm_pronouns, docs=docs)
        bl = bleu_chrf(sys_.candidate, reference, lowercase=lowercase)
        total = sum(res.counts.values())
        rows.append({
            "system": sys_.name,
            "cases": {f"C{c}": res.counts[c] for c in range(1, 7)},
            "pronouns": total,
            "apt": res.score,
            "acc_c1": res.counts[1] / total if total else math.nan,
            "acc_c1_c2": (res.counts[1] + res.counts[2]) / total if total else math.nan,
            "pronoun_prf": {k: v.as_dict() for k, v in prf.items()},
            **strict_counts(res, pair),
            **class_agreement(res, pair),
            "bleu": bl["bleu"], "chrf": bl["chrf"],
            "bleu_signature": bl["bleu_signature"], "chrf_signature": bl["chrf_signature"],
        })
    base = results[0]
    base_strict, base_fem = strict_right(base, pair)
    for row, res in zip(rows[1:], results[1:]):
        same, fem = strict_right(res, pair)
        row["mcnemar_vs_" + systems[0].name] = {
            "strict": mcnemar(base_strict, same).p_value,
            # the same references on both sides: the marked classes are the reference's
            "feminine": mcnemar(base_fem, fem).p_value,
            "C1": mcnemar(correct(base, (1,)), correct(res, (1,))).p_value,
            "C1+C2": mcnemar(correct(base, (1, 2)), correct(res, (1, 2))).p_value,
        }
    s = results[0].settings
    return {"source": source, "reference": reference, "apt_weights": dict(zip(s.cases, s.weights)),
            "systems": rows}


def _f(x: float, digits: int = 3) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _recall_cell(row: dict, group: str) -> str:
    r = row.get("class_recall", {}).get(group)
    return "–" if r is None else f"{r['right']}/{r['references']}"


def to_markdown(report: dict, pair: Pair | None = None) -> str:
    """Strict class agreement and its recall by reference class first (the pronoun the reference
    wrote, and no other, is right), then APT (C2 worth its weight, 0.5 by default) and C1+C2 as the
    seeds report them, the pronoun P/R/F, BLEU and chrF; the classes are those of `pair`'s target."""
    target = chosen(pair).target
    groups = list(target.class_groups)
    marked = "/".join(target.marked)
    head = ("| system | strict agr. | " + " | ".join(groups) + f" | {marked} | APT | C1+C2 acc. | C1 | C2 | C3 | C4 "
            "| C5 | C6 | P | R | F | BLEU | chrF | p (strict) | p (" + marked + ") | p (C1) | p (C1+C2) |")
    out = [head, "|" + "---|" * (head.count("|") - 1)]
    for row in report["systems"]:
        c = row["cases"]
        prf = row["pronoun_prf"]["all"]
        mc = next((v for k, v in row.items() if k.startswith("mcnemar_vs_")), None)
        strict = f"{_f(row['strict_agreement'])} ({row['strict']})" if "strict_agreement" in row else "–"
        out.append("| " + " | ".join([
            row["system"], strict, *(_recall_cell(row, g) for g in groups),
            f"{row['feminine']}/{row['feminine_references']}" if "feminine" in row else "–",
            _f(row["apt"]), _f(row["acc_c1_c2"]), *(str(c[f"C{i}"]) for i in range(1, 7)),
            _f(prf["precision"]), _f(prf["recall"]), _f(prf["f"]), _f(row["bleu"], 2), _f(row["chrf"], 2),
            *(_f(mc[k], 4) if mc and k in mc else "–" for k in ("strict", "feminine", "C1", "C1+C2"))]) + " |")
    weights = ", ".join(f"w{k}={v:g}" for k, v in report["apt_weights"].items())
    sig = report["systems"][0]["bleu_signature"] if report["systems"] else ""
    grouped = "; ".join(f"{g}: {', '.join(cs)}" for g, cs in target.class_groups.items() if cs != (g,)
                        and g not in ("other", "none"))
    other = "other: any other word" + (", or nothing aligned" if NONE in target.class_groups.get("other", ()) else "")
    if "none" in target.class_groups:
        other += "; none: no pronoun, nothing aligned" + (" or the reference's NONE" if target.none_marker else "")
    out += ["", f"strict agr.: the candidate's pronoun class ({', '.join(target.classes[:-2])}) equal to the "
            f"reference's, as a share of the pronouns (their number); {groups[0]} … {groups[-1]}: of the pronouns "
            f"whose reference has that class, how many the candidate gave the same class ({grouped}; {other}); "
            f"{marked}: the same on the references {' and '.join(target.marked)}. "
            f"APT weights: {weights}. C1+C2 acc. counts a similar pair (ce for il or ça) right. p-values: McNemar "
            f"against {report['systems'][0]['system']}, on strict agreement, on it over the {marked} references, "
            f"on C1 and on C1+C2.",
            f"BLEU signature: `{sig}`"]
    return "\n".join(out) + "\n"


def plot_cases(report: dict, path: str | os.PathLike) -> None:
    """Share of each APT case per system, one horizontal stacked bar per system (seed 000, Fig. 2)."""
    # loaded only to draw (a third of a second), and pyplot only once the Agg backend is chosen
    import matplotlib

    logging.getLogger("matplotlib").setLevel(logging.WARNING)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["system"] for r in report["systems"]]
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.6 * len(names)))
    left = [0.0] * len(names)
    colors = ["#2e7d32", "#9ccc65", "#e53935", "#fb8c00", "#8e24aa", "#9e9e9e"]
    labels = ["1 identical", "2 equivalent", "3 different", "4 cand. missing", "5 ref. missing", "6 both missing"]
    for c in range(1, 7):
        shares = []
        for r in report["systems"]:
            total = r["pronouns"] or 1
            shares.append(r["cases"][f"C{c}"] / total)
        ax.barh(names, shares, left=left, color=colors[c - 1], label=labels[c - 1])
        left = [a + b for a, b in zip(left, shares)]
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of source pronouns")
    ax.invert_yaxis()
    ax.legend(ncol=3, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.35 if len(names) < 3 else -0.15))
    fig.tight_layout()
    with atomic_output(path, binary=True) as fh:
        fig.savefig(fh, format="png", dpi=100)
    plt.close(fig)


def _no_nan(x):
    if isinstance(x, float) and math.isnan(x):
        return None
    if isinstance(x, dict):
        return {str(k): _no_nan(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_no_nan(v) for v in x]
    return x


def write_report(report: dict, prefix: str | os.PathLike, pair: Pair | None = None) -> None:
    with atomic_output(f"{prefix}.json") as fh:
        json.dump(_no_nan(report), fh, indent=2, sort_keys=True)
        fh.write("\n")
    with atomic_output(f"{prefix}.md") as fh:
        fh.write(to_markdown(report, pair))
    plot_cases(report, f"{prefix}.png")
