"""How often the cognate source (cad/lang/cognates.py) and the dictionary source give an English
noun the gender its French translation has in a word-aligned training corpus (not the dev talks):
the figures CHANGELOG.md gives for choosing the cognate rules.

    python bench/cognate_gender.py [--corpus models/baseline/corpus] [--align ALIGN]
                                   [--min-links 3] [--agreement 0.7]

The truth of an English word type (lowercased, letters only, 4 letters or more): the gender that
the French nouns aligned to it have in the lexicon, where it has at least --min-links such links
and one gender holds --agreement of them. Printed: for each source the types it decides and its
accuracy, the same on the types both decide, and the cognate's accuracy per correspondence.
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=str(REPO / "models" / "baseline" / "corpus"),
                    help="corpus prefix with .en and .fr, one sentence per line (default: %(default)s)")
    ap.add_argument("--align", help="its alignment (default: CORPUS's folder's aligned.grow-diag-final-and)")
    ap.add_argument("--min-links", type=int, default=3, help="links to gendered nouns a type needs (default 3)")
    ap.add_argument("--agreement", type=float, default=0.7, help="share of its links one gender needs (default .7)")
    a = ap.parse_args()

    from cad.cm.projection import dictionary_gender
    from cad.core.alignment import parse_alignment
    from cad.core.textio import read_lines
    from cad.lang.cognates import finder
    from cad.lang.fr_morph import lexicon_features

    align = a.align or str(Path(a.corpus).parent / "aligned.grow-diag-final-and")
    gender = collections.defaultdict(lambda: None)
    votes: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    lines = zip(read_lines(f"{a.corpus}.en"), read_lines(f"{a.corpus}.fr"), read_lines(align))
    for k, (en, fr, al) in enumerate(lines, 1):
        src, tgt = en.split(), fr.split()
        for i, j in parse_alignment(al, len(src), len(tgt), align, k):
            word = src[i].lower()
            if len(word) < 4 or not word.isalpha():
                continue
            if tgt[j] not in gender:
                gender[tgt[j]] = lexicon_features(tgt[j])[0]
            if gender[tgt[j]]:
                votes[word][gender[tgt[j]]] += 1
    cognates = finder()
    counts: collections.Counter = collections.Counter()
    rules: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for word, v in votes.items():
        n = sum(v.values())
        truth, top = v.most_common(1)[0]
        if n < a.min_links or top / n < a.agreement:
            continue
        counts["types"] += 1
        cog, dic = cognates.find(word), dictionary_gender(word)
        for name, g in (("cognate", cog and cog.gender), ("dictionary", dic and dic[0])):
            if g:
                counts[name] += 1
                counts[f"{name} right"] += g == truth
        if cog and dic:
            counts["both"] += 1
            counts["both: cognate right"] += cog.gender == truth
            counts["both: dictionary right"] += dic[0] == truth
        if cog:
            rules[cog.rule]["n"] += 1
            rules[cog.rule]["right"] += cog.gender == truth
    print(f"word types with a gender\t{counts['types']}")
    for name, right in (("cognate", "cognate right"), ("dictionary", "dictionary right"),
                        ("both", "both: cognate right"), ("both", "both: dictionary right")):
        print(f"{right}\t{counts[right]}/{counts[name]}\t{counts[right] / max(counts[name], 1):.3f}")
    for rule, c in sorted(rules.items(), key=lambda x: -x[1]["n"]):
        print(f"rule {rule or '>'}\t{c['right']}/{c['n']}\t{c['right'] / c['n']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
