"""`cad contrastive translate`: what the translations of a generated agreement suite (probes.py)
made of each block's pronoun and of the predicate after it.

For each block, from the decoder's tokens and word alignment (`cad translate --tokens-out
--alignment-out`):
- the antecedent's translation, read as every stage of cad reads it (cad/cm/projection.py: the
  French noun aligned to the English head, its gender from the lexicon, the determiner or the
  tagger), and its number the English noun's; a block whose antecedent has no gender read is
  not judged (`judged` counts the others);
- the pronoun's translation: the words aligned to it with APT's alignment improvement, as a class
  (cad/cm/classes.py: il, elle, ils, elles, ce, ça, le, la, l', ...);
- whether that is what the frame requires: the subject pronoun of the antecedent's translated
  gender and number (*il*, *elle*, *ils*, *elles*); the object clitic of its gender (*le*, *la*;
  *l'* where the next word begins with a vowel or an h; *les* in the plural); *ce*; *ça* for an
  event;
- after a subject pronoun, the adjective or participle after *être* (cad/lang/fr_agreement.py,
  `agreeing_predicate`) and whether it agrees with the pronoun written: the predicate's agreement
  is read against the pronoun the decoder chose, right or wrong.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from cad.cm.classes import pronoun_class
from cad.cm.projection import project
from cad.experiments.contrastive_french import starts_with_vowel
from cad.experiments.contrastive_make import pronoun_positions
from cad.experiments.probes import CE, CLITIC, EVENT, PERSONAL
CLITIC_OF = {("masc", "sing"): "le", ("fem", "sing"): "la", ("masc", "plur"): "les", ("fem", "plur"): "les"}


@dataclass(frozen=True)
class Span:
    """An antecedent as cad.cm.projection reads candidates."""
    start: int
    end: int
    head: int
    number: str | None = None


def expected_class(block: dict, gender: str | None, number: str | None,
                   subject_cells: dict[str, tuple[str, str]]) -> str | None:
    """What the frame requires of the pronoun, given the antecedent's translated gender and
    number (None: nothing can be required, the antecedent's gender was not read)."""
    requires = block["requires"]
    if requires == CE:
        return "ce"
    if requires == EVENT:
        return "ça"
    if gender is None or number is None:
        return None
    if requires == PERSONAL:
        return next(p for p, cell in subject_cells.items() if cell == (gender, number))
    return CLITIC_OF[(gender, number)]


def judge(block: dict, words: list[list[str]], alignments: list[list[tuple[int, int]]], morph: list,
          agreement) -> dict:
    """One block's result: `words`, `alignments` and `morph` (the French tags of the first
    sentence's translation, cad.lang.fr_morph.tag) of its two sentences."""
    a, p = block["antecedent"], block["pronoun"]
    src = block["sentences"]
    found = project(Span(a["start"], a["end"], a["head"]), src[a["sentence"]], words[a["sentence"]],
                    alignments[a["sentence"]], morph)
    # the gender of the translation, the number of the source: the tagger reads the number of a
    # plural without its article as often as not (*violons*: sing)
    gender, number = (found.gender, block["number"]) if found is not None else (None, None)
    target = words[p["sentence"]]
    positions = pronoun_positions(src[p["sentence"]], target, alignments[p["sentence"]], p["index"])
    written = [target[t] for t in positions]
    cls = pronoun_class(written)
    want = expected_class(block, gender, number, agreement.subject_cells)
    right = None if want is None else cls == want
    if not right and want in ("le", "la") and cls == "l'":
        after = positions[-1] + 1
        right = after < len(target) and (starts_with_vowel(target[after]) or target[after][:1].lower() == "h")
    out = {"id": block["id"], "frame": block["frame"], "requires": block["requires"],
           "antecedent": None if found is None else found.word, "gender": gender, "number": number,
           "pronoun": " ".join(written), "class": cls, "expected": want, "right": right,
           "translation": " ".join(target), "predicate": None, "agrees": None}
    subject = next((t for t in positions if target[t].lower() in agreement.subject_cells), None)
    if block["predicate"] and subject is not None:
        g, n = agreement.subject_cells[target[subject].lower()]
        pred = agreement.agreeing_predicate(target, subject, g, n)
        if pred is not None:
            out["predicate"], out["agrees"] = pred.word, pred.agrees
    return out


def _rate(k: int, n: int) -> float | None:
    return round(k / n, 3) if n else None


def frame_summary(results: Sequence[dict]) -> dict:
    judged = [r for r in results if r["right"] is not None]
    right = sum(1 for r in judged if r["right"])
    preds = [r for r in results if r["predicate"] is not None]
    fem = [r for r in preds if r["class"] in ("elle", "elles")]
    return {"blocks": len(results), "judged": len(judged), "right": right, "rate": _rate(right, len(judged)),
            "classes": dict(Counter(r["class"] for r in results).most_common()),
            "antecedent_genders": dict(Counter(f"{r['gender']}-{r['number']}" for r in results).most_common()),
            "predicates": len(preds), "agree": sum(1 for r in preds if r["agrees"]),
            "predicates_after_feminine": len(fem), "agree_after_feminine": sum(1 for r in fem if r["agrees"])}


def report(results: Sequence[dict]) -> dict:
    """By frame, and the suite's three targets: the right subject pronoun where the frame requires
    il/elle/ils/elles (of the blocks whose antecedent's gender was read), ce kept where the frame
    requires it, and the predicate's agreement after a feminine pronoun (of the blocks whose
    predicate was translated by an adjective or a participle)."""
    frames = {}
    for r in results:
        frames.setdefault(r["frame"], []).append(r)
    by_frame = {name: frame_summary(rs) for name, rs in frames.items()}
    by_need: dict[str, dict] = {}
    for need in (PERSONAL, CE, CLITIC, EVENT):
        rs = [r for r in results if r["requires"] == need]
        if rs:
            by_need[need] = frame_summary(rs)
    preds = frame_summary([r for r in results if r["predicate"] is not None])
    return {"blocks": len(results), "by_frame": by_frame, "by_requirement": by_need,
            "targets": {"personal_right": by_need.get(PERSONAL, {}).get("rate"),
                        "ce_kept": by_need.get(CE, {}).get("rate"),
                        "agreement_after_feminine": _rate(preds["agree_after_feminine"],
                                                          preds["predicates_after_feminine"]),
                        "agreement_after_any": _rate(preds["agree"], preds["predicates"])}}


def format_report(rep: dict) -> str:
    """The report as a Markdown table by frame, then the targets."""
    lines = ["| frame | blocks | judged | right | classes written | predicates | agree | after elle(s) | agree |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, f in rep["by_frame"].items():
        classes = ", ".join(f"{c} {n}" for c, n in f["classes"].items())
        lines.append(f"| {name} | {f['blocks']} | {f['judged']} | {f['right']} ({_pct(f['rate'])}) | {classes} | "
                     f"{f['predicates']} | {f['agree']} | {f['predicates_after_feminine']} | "
                     f"{f['agree_after_feminine']} |")
    t = rep["targets"]
    lines.append("")
    lines.append(f"il/elle/ils/elles right: {_pct(t['personal_right'])}; ce kept: {_pct(t['ce_kept'])}; "
                 f"predicate agrees after elle/elles: {_pct(t['agreement_after_feminine'])} "
                 f"(after any subject pronoun: {_pct(t['agreement_after_any'])})")
    return "\n".join(lines) + "\n"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"
