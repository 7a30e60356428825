"""`cad view`: one self-contained HTML page of a translated document set and its pronouns."""

from __future__ import annotations

import argparse
import logging
import time

from cad.core.cliargs import add_input_argument as add_in, add_output_argument as add_out
from cad.core.registry import Names
from cad.defaults import SOURCE_LANGUAGE, TARGET_LANGUAGE
from cad.lang.pairs import PAIRS

PAIR_CHOICES = Names(lambda: PAIRS)

log = logging.getLogger("cad.view")


def _view(a: argparse.Namespace) -> None:
    from cad.core.errors import CadError
    from cad.view.build import ViewInputs, build_view
    from cad.view.inputs import SystemSpec
    from cad.view.page import write_page

    t = time.time()
    systems = []
    if a.translation or a.alignment or a.trace:
        if not (a.translation and a.alignment):
            raise CadError("--translation and --alignment go together (--trace with them)")
        systems.append(SystemSpec(a.name, a.translation, a.alignment, a.trace))
    systems += [SystemSpec.parse(s) for s in a.system or ()]
    data = build_view(ViewInputs(a.source, systems, docs=a.docs, raw=a.raw, lang=a.lang, reference=a.reference,
                                 align_ref=a.align_ref, coref=a.coref, report=a.report, classes=a.classes,
                                 title=a.title))
    size = write_page(data, a.out)
    n = sum(len(d["prons"]) for d in data["docs"])
    log.info("%s: %d documents, %d pronouns, %.0f KiB in %.1f s", a.out, len(data["docs"]), n, size / 1024,
             time.time() - t)


def add_view_parser(sub, command: str | None = None) -> None:
    s = sub.add_parser(
        "view", help="an HTML page of a translation: source and translation side by side, every pronoun's "
                     "antecedent, translation and APT category",
        description="Writes one self-contained HTML file (style, script and data inline; no request at view "
                    "time) showing each document's source and translation sentence by sentence, every it/they "
                    "(or Spanish source pronoun) marked in both through the word alignment, its antecedent "
                    "joined to it by an arrow, and on hover the candidates, the CM's bundle mixture and class "
                    "distribution, the antecedent's translation and the pass; with a reference, the reference's "
                    "words, APT's category and filters; with --report, the report's table and chart on top. "
                    "Give one system with --translation/--alignment[/--trace], or several with --system.")
    add_in(s, "--source", required=True, help="the source text, tokenized, one sentence a line (see --raw)")
    add_in(s, "--docs", help="document boundaries of --source (first_line<TAB>doc_id; default: one document)")
    s.add_argument("--raw", action="store_true",
                   help="--source is raw text: tokenize it as cad translate --raw does (the tokens its "
                        "--trace and --alignment-out index)")
    s.add_argument("--lang", choices=PAIR_CHOICES, default=f"{SOURCE_LANGUAGE}-{TARGET_LANGUAGE}",
                   help="language pair: APT's pronoun lists, the pronoun classes and the --raw tokenizer "
                        "(default: %(default)s)")
    add_in(s, "--translation", help="one system's translation, as tokens (cad translate --out, or --tokens-out "
                                    "with --raw), one sentence a line")
    add_in(s, "--alignment", help="the source-translation word alignment of --translation (Moses i-j; cad "
                                  "translate --alignment-out)")
    add_in(s, "--trace", help="the pronoun trace of --translation (cad translate --trace)")
    s.add_argument("--name", default="system", help="the name of the --translation system (default: %(default)s)")
    s.add_argument("--system", action="append", metavar="NAME=TRANSLATION:ALIGNMENT[:TRACE]",
                   help="one more system (repeat): its translation, alignment and optionally trace")
    add_in(s, "--reference", help="the reference translation, tokenized (with --align-ref): APT categories, "
                                  "the reference's words and the filters")
    add_in(s, "--align-ref", help="the source-reference word alignment (Moses i-j)")
    add_in(s, "--coref", help="coreference records of --source (cad coref, JSON lines): the antecedents' "
                              "exact spans, and the antecedents of a system given without a trace")
    add_in(s, "--report", help="a cad eval report (or cad cm experiment) JSON report: its APT table and "
                               "category chart on top (default: APT computed over the systems shown)")
    add_in(s, "--classes", help="the class CM (tables/<name>/classes.gz): each traced pronoun's distribution "
                                "over target classes, from its bundle mixture")
    s.add_argument("--title", help="the page's title (default: the source file's name)")
    add_out(s, "--out", required=True, help="the HTML page")
    s.set_defaults(func=_view)
