"""Training the Spanish resolver (coref.spanish.ranker) to imitate CorZu on News Commentary.

There is no gold Spanish coreference: CorZu's first candidate is the reference. For each pronoun
site that CorZu resolved, the ranking group is the site's candidates; the right ones are those
whose head is the head of CorZu's first candidate (same sentence, same token). While reading a
training document the pronouns are linked as CorZu linked them (teacher forcing), so that the
features a later pronoun sees through an earlier one's chain are CorZu's. The anaphoricity model
learns which clitics CorZu resolves at all (it leaves most neuter *lo* alone).

The text is lowercased before parsing, as the MT pipeline gives it (--cased keeps the case).
Data layout: ../shared/data/es-en/nc11/README.md.
"""

from __future__ import annotations

import argparse
import logging
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from cad.core.cliargs import run_module
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import read_lines
from cad.lang.es import spanish_nlp
from cad.lexicons.humanness import HumanLexicon
from coref.softmax import SoftmaxRanker
from coref.spanish.corzu import DEFAULT_DATA, SplitDoc, corzu_first, read_split, text_path
from coref.spanish.evaluate import main as eval_main
from coref.spanish.mentions import CLITICS
from coref.spanish.ranker import Decision, SpanishModel, default_model_path, walk
from coref.spanish.tokens import Truecaser, lowered, parse

log = logging.getLogger("coref.spanish.train")

DEFAULT_LEXICON = Path(__file__).resolve().parents[2] / "models" / "es-en" / "humans.es.tsv"


# -- instances -----------------------------------------------------------------------------------

@dataclass
class Instances:
    rank_groups: list = field(default_factory=list)
    rank_gold: list = field(default_factory=list)
    ana_groups: list = field(default_factory=list)
    ana_gold: list = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)


def document_instances(doc: SplitDoc, parsed, window: int, max_candidates: int, lexicon,
                       inst: Instances) -> None:
    """Add one document's ranking groups and anaphoricity examples to `inst`."""
    def choose(dec: Decision):
        site = dec.site
        rec = doc.corzu.get((site.sentence, site.index))
        first = corzu_first(rec) if rec else None
        if site.word in CLITICS:
            inst.ana_groups.append([dec.ana_feats, []])
            inst.ana_gold.append([rec is not None, rec is None])
        inst.counts["sites"] += 1
        if first is None:
            inst.counts["not_resolved_by_corzu" if rec is None else "corzu_first_lost"] += 1
            return None, None, None
        right = [c.sentence == first["sentence"] and c.head == first["head"] for c in dec.candidates]
        if not any(right):
            inst.counts["corzu_first_not_a_candidate"] += 1
            return None, None, None
        inst.counts["groups"] += 1
        inst.rank_groups.append(dec.pair_feats)
        inst.rank_gold.append(right)
        return right.index(True), None, None

    walk(parsed, choose, window, max_candidates, lexicon)
    inst.counts["corzu_records"] += len(doc.corzu)


def collect(docs: list[SplitDoc], nlp, truecaser: Truecaser | None, window: int, max_candidates: int,
            lexicon, cased: bool = False) -> Instances:
    """The ranking groups and anaphoricity examples of `docs`, parsed as the resolver parses them."""
    inst = Instances()
    for d in progress(docs, total=len(docs), desc="instances", unit="doc"):
        sents = d.sentences if cased else lowered(d.sentences)
        document_instances(d, parse(nlp, sents, truecaser), window, max_candidates, lexicon, inst)
    return inst


def load_lexicon(path: str | None) -> HumanLexicon | None:
    """The human-noun lexicon, or None for 'none' (or a default path that does not exist)."""
    if path is None or path.lower() == "none":
        return None
    return HumanLexicon.load(path)


def train(docs: list[SplitDoc], nlp, truecaser: Truecaser | None, lexicon=None, window: int = 2,
          max_candidates: int = 40, l2: float = 3.0, min_count: int = 3, cased: bool = False,
          info: dict | None = None) -> SpanishModel:
    t0 = time.time()
    inst = collect(docs, nlp, truecaser, window, max_candidates, lexicon, cased)
    t1 = time.time()
    log.info("%d documents: %s (%.0fs)", len(docs), dict(sorted(inst.counts.items())), t1 - t0)
    if not inst.rank_groups:
        raise CadError("no training group: CorZu's choices are never among the candidates")
    ranker = SoftmaxRanker.fit(inst.rank_groups, inst.rank_gold, l2=l2, min_count=min_count)
    # without clitics to learn from, every clitic is resolved
    ana = SoftmaxRanker.fit(inst.ana_groups, inst.ana_gold, l2=l2, min_count=min_count) if inst.ana_groups else None
    t2 = time.time()
    log.info("fitted %d ranker and %d anaphoricity weights (%.0fs)", len(ranker.vocab),
             len(ana.vocab) if ana else 0, t2 - t1)
    info = dict(info or {})
    info.update({"documents": len(docs), "ranking_groups": len(inst.rank_groups),
                 "anaphoricity_examples": len(inst.ana_groups), "l2": l2, "min_count": min_count,
                 "counts": dict(sorted(inst.counts.items())), "cased": cased})
    lex = {w: e.probability for w, e in sorted(lexicon.entries.items())} if lexicon is not None else {}
    return SpanishModel(ranker, ana, window, max_candidates, 0.5, truecaser, lex, info)


# -- command line --------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m coref.spanish.train",
        description="Train the native Spanish pronoun resolver (coref.spanish.ranker) to imitate CorZu's first "
                    "candidate on News Commentary's train split, or with --evaluate measure a model "
                    "against CorZu on the dev split (see coref.spanish.evaluate).")
    p.add_argument("--data", default=str(DEFAULT_DATA),
                   help="directory with train.es.gz, train.docs, corzu.train.jsonl.gz and the dev files "
                        "(default: %(default)s)")
    p.add_argument("--docs", type=int, default=800,
                   help="train on the first N documents of the train split, in file order; 0 = all 3,298 "
                        "(default: %(default)s)")
    p.add_argument("--out", default=default_model_path(),
                   help="model file to write, JSON (.gz compresses) (default: %(default)s)")
    p.add_argument("--lexicon", default=str(DEFAULT_LEXICON) if DEFAULT_LEXICON.exists() else "none",
                   help="human-noun lexicon TSV (cad.lexicons.humanness), stored in the model; 'none' for "
                        "humanness from named entities only (default: %(default)s)")
    p.add_argument("--window", type=int, default=2,
                   help="previous sentences searched for antecedents (default: %(default)s)")
    p.add_argument("--max-candidates", type=int, default=40,
                   help="candidates per pronoun at most, the most recent (default: %(default)s)")
    p.add_argument("--l2", type=float, default=3.0, help="L2 penalty of both models (default: %(default)s)")
    p.add_argument("--min-count", type=int, default=3,
                   help="features seen in fewer candidates get no weight (default: %(default)s)")
    p.add_argument("--truecase-min-count", type=int, default=3,
                   help="words seen fewer times in the train text get no truecase form (default: %(default)s)")
    p.add_argument("--no-truecase", action="store_true",
                   help="parse the lowercased tokens as they are, without restoring names' case")
    p.add_argument("--cased", action="store_true",
                   help="parse the text with its case (default: lowercased, as the MT pipeline gives it)")
    p.add_argument("--evaluate", action="store_true",
                   help="do not train: evaluate --model on the dev split against CorZu, with baselines")
    p.add_argument("--model", default=default_model_path(),
                   help="with --evaluate: the model to evaluate (default: %(default)s)")
    p.add_argument("--dev-docs", type=int, default=0,
                   help="with --evaluate: only the first N dev documents; 0 = all (default: %(default)s)")
    p.add_argument("--report", default=None, help="with --evaluate: also write the figures as JSON here")
    p.add_argument("-q", "--quiet", action="store_true", help="only print warnings and errors")
    return p


def _run(a) -> int | None:
    if a.evaluate:
        args = ["--data", a.data, "--model", a.model, "--dev-docs", str(a.dev_docs)]
        args += ["--cased"] if a.cased else []
        args += ["--report", a.report] if a.report else []
        args += ["-q"] if a.quiet else []
        return eval_main(args)
    if a.window < 0 or a.max_candidates < 1 or a.docs < 0 or a.l2 <= 0:
        raise CadError("--window and --docs must be >= 0, --max-candidates >= 1, --l2 > 0")
    t0 = time.time()
    data = Path(a.data)
    truecaser = None
    if not a.no_truecase:
        truecaser = Truecaser.learn((line.split() for line in read_lines(text_path(data, "train"))),
                                    a.truecase_min_count)
        log.info("truecaser: %d word forms", len(truecaser.forms))
    docs = read_split(data, "train", a.docs or None)
    log.info("%d documents, %d lines, %d CorZu records", len(docs), sum(len(d.sentences) for d in docs),
             sum(len(d.corzu) for d in docs))
    model = train(docs, spanish_nlp(), truecaser, load_lexicon(a.lexicon), a.window, a.max_candidates,
                  a.l2, a.min_count, a.cased, {"data": data.name, "lexicon": Path(a.lexicon).name,
                                                                "truecase": not a.no_truecase})
    model.save(a.out)       # no timings inside: the same data gives the same bytes
    log.info("wrote %s (%d bytes) in %.0fs", a.out, os.path.getsize(a.out), time.time() - t0)


def main(argv: list[str] | None = None) -> int:
    return run_module("train_spanish", build_parser(), _run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
