"""The Spanish resolver (coref.spanish.ranker) against CorZu on the dev split, with baselines.

No gold Spanish coreference exists, so the reference is CorZu's first candidate (seed 003's
antecedent). Figures, over CorZu's dev pronouns:
- coverage: pronouns that are sites of the resolver at all, and those it gives candidates;
- agreement: the top candidate has the head of CorZu's first (same sentence, same token), over the
  pronouns CorZu resolved (its first candidate's line survived) and the resolver found and resolved;
- features: the top candidate's gender, number and humanness equal CorZu's first's (the features
  seed 003 appends to the pronoun, what the MT model reads), each and all three together. An
  unknown gender/number counts as a value of its own; an unknown humanness counts as non-human,
  as the MT model reads it;
- oracle: CorZu's first candidate is among the resolver's candidates at all (its ceiling).
Baselines run through the same reading of the document: `nearest_np` takes the nearest earlier
noun phrase whose gender and number agree where the pronoun marks them; `nearest_mention` the
nearest earlier mention of any kind (pronouns, elided subjects, relatives) that agrees.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections import Counter, defaultdict

from cad.core.cliargs import run_module
from cad.core.textio import atomic_output
from cad.lang.es import corzu_morph
from coref.spanish.corzu import DEFAULT_DATA, SplitDoc, corzu_first, is_human, read_split
from coref.spanish.features import agrees
from coref.spanish.ranker import Decision, SpanishResolver, default_model_path, walk
from coref.spanish.tokens import lowered

log = logging.getLogger("coref.spanish.evaluate")

SEED003 = ("él", "ella", "su", "sus", "suyo", "suya")


def nearest_np(dec: Decision) -> tuple[int | None, None, None]:
    """Baseline: the nearest earlier agreeing noun phrase."""
    for j, c in enumerate(dec.candidates):
        if c.kind in ("noun", "propn") and agrees(dec.site, c):
            return j, None, None
    return None, None, None


def nearest_mention(dec: Decision) -> tuple[int | None, None, None]:
    """Baseline: the nearest earlier agreeing mention of any kind."""
    for j, c in enumerate(dec.candidates):
        if agrees(dec.site, c):
            return j, None, None
    return None, None, None


def _features_of_corzu(c: dict) -> tuple[str | None, str | None, bool]:
    m = corzu_morph(c.get("gender"), c.get("number"))
    return (None if m.gender == "unk" else m.gender, None if m.number == "unk" else m.number,
            is_human(c.get("ne"), c.get("animate")))


class Tally:
    """Counts of one system, overall and by group (pronoun, CorZu's kind of antecedent)."""

    def __init__(self) -> None:
        self.c: dict[str, Counter] = defaultdict(Counter)

    def add(self, groups: list[str], key: str, n: int = 1) -> None:
        for g in ["all"] + groups:
            self.c[g][key] += n

    def figures(self) -> dict:
        out = {}
        for g in sorted(self.c):
            c = self.c[g]
            r = {"corzu_pronouns": c["records"], "found": c["found"], "resolved": c["resolved"],
                 "compared": c["compared"]}
            if c["records"]:
                r["coverage_found"] = round(c["found"] / c["records"], 4)
                r["coverage_resolved"] = round(c["resolved"] / c["records"], 4)
            if c["compared"]:
                for k in ("head", "gender", "number", "human", "gnh", "oracle"):
                    r[k] = round(c[k] / c["compared"], 4)
            out[g] = r
        return out


def score_document(doc: SplitDoc, results, tally: Tally) -> None:
    """`results`: the walk's (decision, choice, probs, p_ref) for one document."""
    by_site = {(d.site.sentence, d.site.index): (d, ch) for d, ch, _, _ in results}
    for key, rec in sorted(doc.corzu.items()):
        word = rec["token"].lower()
        first = corzu_first(rec)
        groups = [f"w={word}"] + (["seed003"] if word in SEED003 else [])
        if first is not None:
            groups.append(f"corzu={first['pos']}")
        tally.add(groups, "records")
        if key not in by_site:
            continue
        tally.add(groups, "found")
        dec, choice = by_site[key]
        if choice is None:
            continue
        tally.add(groups, "resolved")
        if first is None:
            continue
        tally.add(groups, "compared")
        top = dec.candidates[choice]
        g, n, h = _features_of_corzu(first)
        same_g, same_n, same_h = top.gender == g, top.number == n, bool(top.human) == h
        tally.add(groups, "head", int(top.sentence == first["sentence"] and top.head == first["head"]))
        tally.add(groups, "gender", int(same_g))
        tally.add(groups, "number", int(same_n))
        tally.add(groups, "human", int(same_h))
        tally.add(groups, "gnh", int(same_g and same_n and same_h))
        tally.add(groups, "oracle", int(any(c.sentence == first["sentence"] and c.head == first["head"]
                                            for c in dec.candidates)))


def evaluate(resolver: SpanishResolver, docs: list[SplitDoc], cased: bool = False,
             baselines: bool = True) -> dict:
    """Figures of the resolver (and the baselines) on `docs`: {system: {group: {figure: value}}}."""
    choosers = {"model": resolver.choose}
    if baselines:
        choosers.update({"nearest_np": nearest_np, "nearest_mention": nearest_mention})
    tallies = {name: Tally() for name in choosers}
    m = resolver.model
    for d in docs:
        sents = d.sentences if cased else lowered(d.sentences)
        parsed = resolver.parse(sents)
        for name, choose in choosers.items():
            results = walk(parsed, choose, m.window, m.max_candidates, resolver.lexicon, resolver.genders)
            score_document(d, results, tallies[name])
    return {name: t.figures() for name, t in tallies.items()}


def format_report(figs: dict) -> str:
    lines = []
    cols = ("compared", "head", "gender", "number", "human", "gnh", "oracle", "coverage_found", "coverage_resolved")
    for name, groups in figs.items():
        lines.append(f"== {name}")
        lines.append(f"{'group':<14}" + "".join(f"{c:>10}" for c in ("records",) + cols))
        for g, r in groups.items():
            if r["corzu_pronouns"] < 5:
                continue
            row = [f"{r['corzu_pronouns']:>10}"]
            for c in cols:
                v = r.get(c)
                row.append(f"{'-':>10}" if v is None else f"{v:>10}" if isinstance(v, int) else f"{100 * v:>9.1f}%")
            lines.append(f"{g:<14}" + "".join(row))
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m coref.spanish.evaluate",
        description="Evaluate the Spanish resolver against CorZu's first candidates on the dev split: "
                    "head agreement, gender/number/humanness agreement, coverage, and two baselines "
                    "(nearest agreeing noun phrase, nearest agreeing mention).")
    p.add_argument("--data", default=str(DEFAULT_DATA),
                   help="directory with dev.es, dev.docs and corzu.dev.jsonl (default: %(default)s)")
    p.add_argument("--split", default="dev", help="split to evaluate on (default: %(default)s)")
    p.add_argument("--model", default=default_model_path(), help="model file (default: %(default)s)")
    p.add_argument("--no-lexicon", action="store_true",
                   help="ignore the human-noun lexicon stored in the model (humanness from named entities only)")
    p.add_argument("--dev-docs", type=int, default=0,
                   help="only N documents of the split; 0 = all (default: %(default)s)")
    p.add_argument("--skip-docs", type=int, default=0,
                   help="start at this document of the split, e.g. --split train --skip-docs 3000 for "
                        "train documents that a model trained on the first 800 has not seen (default: %(default)s)")
    p.add_argument("--cased", action="store_true",
                   help="parse the text with its case (default: lowercased, as the MT pipeline gives it)")
    p.add_argument("--no-baselines", action="store_true", help="evaluate the model only")
    p.add_argument("--gender-lexicon", help="the gender of person names (python -m cad.lexicons.name_gender), "
                   "which spaCy leaves unmarked (default: none)")
    p.add_argument("--report", default=None, help="also write the figures as JSON to this file")
    p.add_argument("-q", "--quiet", action="store_true", help="only print warnings and errors")
    return p


def _run(a) -> int | None:
    t0 = time.time()
    resolver = SpanishResolver(a.model, lexicon=None if a.no_lexicon else "model", genders=a.gender_lexicon)
    docs = read_split(a.data, a.split, a.dev_docs or None, a.skip_docs)
    figs = evaluate(resolver, docs, a.cased, not a.no_baselines)
    log.info("%d documents in %.0fs", len(docs), time.time() - t0)
    print(format_report(figs))
    if a.report:
        with atomic_output(a.report) as fh:
            fh.write(json.dumps(figs, indent=1, sort_keys=True) + "\n")


def main(argv: list[str] | None = None) -> int:
    return run_module("eval_spanish", build_parser(), _run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
