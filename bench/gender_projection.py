"""How well the antecedent's French gender is read: the projection through a system's translation
against the same projection through the reference (the oracle's "reference features"), on the
dev talks with ParCorFull's gold coreference, and which source decided each.

    python bench/gender_projection.py --translation OUT --alignment ALIGN [--sources S,...]
                                      [--data ../shared/data] [--model models/baseline/moses.ini]

OUT and ALIGN are a tokenized translation of dev.en and its word alignment to the source, as
`cad translate --system baseline --alignment-out ALIGN` writes them (in the model's case). For
every *it*/*they* whose gold antecedent is a noun phrase, the antecedent is projected through the
translation and through the reference (dev.fr, dev.en-fr.alig); printed: how often the reference
gives a gender, how often the translation's projection agrees with it (gender; gender and
number), and the sources that decided on each side. `--sources` sets CAD_GENDER_SOURCES for the
run (e.g. `determiner` alone is the projection before the lexicons).
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--translation", required=True, help="tokenized translation of dev.en, one line per sentence")
    ap.add_argument("--alignment", required=True, help="its source-translation alignment (Moses i-j)")
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"), help="the shared data folder")
    ap.add_argument("--model", default=str(REPO / "models" / "baseline" / "moses.ini"),
                    help="the model whose case the translation is in (default: %(default)s)")
    ap.add_argument("--sources", help="CAD_GENDER_SOURCES for this run (default: the environment's, else all)")
    a = ap.parse_args()
    if a.sources is not None:
        os.environ["CAD_GENDER_SOURCES"] = a.sources

    from cad.cm.projection import project
    from cad.core.alignment import parse_alignment
    from cad.core.textio import read_lines
    from cad.corpus.truecase import ModelCase
    from cad.lang.en import CM_PRONOUNS
    from cad.lang.fr_morph import tag
    from coref.backends import documents, get_backend

    data = Path(a.data)
    case = ModelCase.of(a.model, "en", "fr")
    docs = [(d, [case.source(s) for s in sents]) for d, sents in documents(data / "en-fr/dev.en", data / "en-fr/dev.docs")]
    src = [s for _, sents in docs for s in sents]
    ref = [case.target_line(x).split() for x in read_lines(data / "en-fr/dev.fr")]
    hyp = [x.split() for x in read_lines(a.translation)]
    ref_al = [parse_alignment(x, len(src[k]), len(ref[k]), str(data / "en-fr/dev.en-fr.alig"), k + 1)
              for k, x in enumerate(read_lines(data / "en-fr/dev.en-fr.alig"))]
    hyp_al = [parse_alignment(x, len(src[k]), len(hyp[k]), a.alignment, k + 1)
              for k, x in enumerate(read_lines(a.alignment))]
    gold = get_backend("gold", gold=str(data / "coref/parcorfull/corpus/TED/EN"))
    ref_morph, hyp_morph = tag(ref), tag(hyp)
    counts: collections.Counter = collections.Counter()
    sources = {"reference": collections.Counter(), "translation": collections.Counter()}
    first = 0
    for doc_id, sents in docs:
        for r in gold.resolve(doc_id, sents):
            c = r.best
            if r.token.lower() not in CM_PRONOUNS or not r.referential or c is None or c.kind != "np":
                continue
            k = first + c.sentence
            counts["pronouns"] += 1
            on_ref = project(c, src[k], ref[k], ref_al[k], ref_morph[k])
            on_hyp = project(c, src[k], hyp[k], hyp_al[k], hyp_morph[k])
            sources["reference"][on_ref.source if on_ref else "none"] += 1
            sources["translation"][on_hyp.source if on_hyp else "none"] += 1
            if on_ref is None:
                continue
            counts["reference gives a gender"] += 1
            counts[f"reference {on_ref.gender}"] += 1
            if on_hyp is None:
                counts["translation gives none"] += 1
                continue
            counts["gender agrees"] += on_hyp.gender == on_ref.gender
            counts["gender and number agree"] += (on_hyp.gender, on_hyp.number) == (on_ref.gender, on_ref.number)
            if on_ref.gender == "fem":
                counts["feminine on the reference, feminine on the translation"] += on_hyp.gender == "fem"
        first += len(sents)
    print(f"CAD_GENDER_SOURCES={os.environ.get('CAD_GENDER_SOURCES', '(all)')}")
    for key, v in counts.items():
        print(f"{key}\t{v}")
    n = counts["reference gives a gender"]
    if n:
        print(f"gender accuracy against the reference\t{counts['gender agrees'] / n:.3f}")
        print(f"gender and number accuracy\t{counts['gender and number agree'] / n:.3f}")
    for side, c in sources.items():
        print(f"sources ({side})\t" + ", ".join(f"{s} {v}" for s, v in c.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
