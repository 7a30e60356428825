"""How often the adjective or participle after *être* agrees with the subject pronoun before it, in
tokenized French text (one sentence a line): for every *il*, *elle*, *ils* and *elles*, the
predicate cad/lang/fr_agreement.py's `agreeing_predicate` finds and whether it agrees, counted by
pronoun. Run on a system's output and on the reference, whose own rate says how often the reading
itself errs (a predicate that is no predicate, a pronoun that is no subject).

    python bench/predicate_agreement.py models/baseline/pronoun-eval.work/cm-feature.out \\
        models/baseline/pronoun-eval.work/cm-feature-agreement.out ../shared/data/en-fr/dev.fr
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cad.resources import fr_inflection  # noqa: E402
from cad.lang.fr import SUBJECT_AGREEMENT  # noqa: E402
from cad.lang.fr_agreement import agreeing_predicate  # noqa: E402


def count(lines, inflections) -> dict[str, Counter]:
    """pronoun -> Counter(subjects, predicates, agree)."""
    out = {p: Counter() for p in SUBJECT_AGREEMENT}
    for line in lines:
        words = line.split()
        for i, w in enumerate(words):
            lower = w.lower()
            if lower not in SUBJECT_AGREEMENT:
                continue
            c = out[lower]
            c["subjects"] += 1
            pred = agreeing_predicate(words, i, *SUBJECT_AGREEMENT[lower], inflections)
            if pred is not None:
                c["predicates"] += 1
                c["agree"] += pred.agrees
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help="tokenized French, one sentence a line")
    a = ap.parse_args()
    inflections = fr_inflection.load()
    print("| file | pronoun | subjects | predicates | agree |")
    print("|---|---|---|---|---|")
    for f in a.files:
        with open(f, encoding="utf-8") as fh:
            got = count(fh, inflections)
        fem = got["elle"] + got["elles"]
        for name, c in [*got.items(), ("elle+elles", fem)]:
            rate = f"{c['agree']} ({100 * c['agree'] / c['predicates']:.0f}%)" if c["predicates"] else "0"
            print(f"| {f} | {name} | {c['subjects']} | {c['predicates']} | {rate} |")


if __name__ == "__main__":
    main()
