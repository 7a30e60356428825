"""`cad eval ...` subcommands."""

from __future__ import annotations

import argparse
import sys

from cad.cli.rank import add_rank_parser
from cad.core.cliargs import add_input_argument as add_in, add_output_argument
from cad.core.errors import CadError
from cad.core.textio import is_uint, read_lines
from cad.defaults import SOURCE_LANGUAGE, TARGET_LANGUAGE

# Each handler imports its measure when it runs, so that `cad` starts (and answers --help)
# without loading every measure and what they pull in (numpy, sacrebleu).


def _apt(a: argparse.Namespace) -> None:
    from cad.eval.apt import evaluate, format_score, write_outputs
    from cad.eval.apt_config import read_apt_config
    from cad.eval.apt_settings import settings_for
    from cad.lang.pairs import pair_named

    if a.config:
        job = read_apt_config(a.config)
        result = job.run()
        print(f"Score: {result.score:0.4f}  (details in {job.output}.score and {job.output}.detail)")
        return
    missing = [f"--{k.replace('_', '-')}" for k in ("source", "reference", "candidate", "align_ref", "align_cand")
               if getattr(a, k) is None]
    if missing:
        raise CadError("without CONFIG.ini, give " + ", ".join(missing))
    pair = pair_named(a.lang)
    cases = [int(c) for c in a.cases.split(",")]
    weights = [float(w) for w in a.weights.split(",")]
    s = settings_for(pair, weights=weights if len(weights) == len(cases) else [weights[c - 1] for c in cases],
                     cases=cases, count_other=not a.no_count_other)
    result = evaluate(a.source, a.reference, a.candidate, a.align_ref, a.align_cand, s)
    if a.out:
        write_outputs(result, a.out)
    sys.stdout.write(format_score(result))


def _pronouns(a: argparse.Namespace) -> None:
    from cad.eval.pronoun_pr import pronoun_prf

    per_doc: dict = {}
    res = pronoun_prf(a.source, a.reference, a.candidate, a.align_ref, a.align_cand,
                      pronouns=tuple(a.pronouns.split(",")), docs=a.docs, clip=a.clip,
                      per_document=per_doc if a.per_document else None)
    if a.per_document:
        names = [n for n in res if n != "all"]
        print("document\t" + "\t".join(f"{n} recall" for n in names))
        for d in sorted(per_doc):
            print(f"{d}\t" + "\t".join(f"{per_doc[d][n].clipped}/{per_doc[d][n].reference}" if n in per_doc[d]
                                        and per_doc[d][n].reference else "-/-" for n in names))
    print("pronoun\tprecision\trecall\tF\tclipped\tcandidate\treference")
    for name, v in res.items():
        print(f"{name}\t{v.precision:.4f}\t{v.recall:.4f}\t{v.f:.4f}\t{v.clipped}\t{v.candidate}\t{v.reference}")


def _bleu(a: argparse.Namespace) -> None:
    from cad.eval.bleu import bleu_chrf

    r = bleu_chrf(a.candidate, a.reference, tokenize=a.tokenize, lowercase=a.lowercase)
    print(r["bleu_line"])
    print(r["chrf_line"])


def _metric_options(a: argparse.Namespace) -> dict[str, dict[str, str]]:
    options: dict[str, dict[str, str]] = {name: {} for name in a.metric}
    for spec in a.option or []:
        target, eq, value = spec.partition("=")
        name, dot, key = target.partition(".")
        if not eq or not dot or not key:
            raise CadError(f"--option {spec!r}: expected METRIC.KEY=VALUE")
        if name not in options:
            raise CadError(f"--option {spec!r}: {name} is not a --metric of this run")
        options[name][key] = value
    return options


def _lines_like(path: str, n: int, hypotheses: str) -> list[str]:
    lines = list(read_lines(path))
    if len(lines) != n:
        raise CadError(f"has {len(lines)} lines but the candidate {hypotheses} has {n}", path, min(len(lines), n) + 1)
    return lines


def _metric(a: argparse.Namespace) -> None:
    from cad.eval.bleu import read_references
    from cad.eval.metrics import Sources, build_metric

    options = _metric_options(a)
    metrics = [build_metric(name, options[name]) for name in a.metric]
    hyp, refs = read_references(a.candidate, a.reference)
    sources = None
    if any(m.needs_sources for m in metrics):
        if not a.source or not a.align_cand or len(a.align_ref or []) != len(a.reference):
            needing = ", ".join(name for name, m in zip(a.metric, metrics) if m.needs_sources)
            raise CadError(f"{needing} read the source side: give --source, --align-cand and one --align-ref per "
                           "--reference")
        sources = Sources(_lines_like(a.source, len(hyp), a.candidate), _lines_like(a.align_cand, len(hyp), a.candidate),
                          [_lines_like(f, len(hyp), a.candidate) for f in a.align_ref])
    for m in metrics:
        print(m.corpus_score(hyp, refs, sources).format())


def _read_detail_cases(path: str) -> list[tuple[str, int]]:
    rows = []
    for lineno, line in enumerate(read_lines(path), 1):
        if lineno == 1:
            continue
        parts = line.split("\t")
        if len(parts) != 8 or not is_uint(parts[7]):
            raise CadError("not an APT .detail line (8 tab-separated columns)", path, lineno)
        rows.append((f"{parts[0]}:{parts[1]}", int(parts[7])))
    return rows


def _mcnemar(a: argparse.Namespace) -> None:
    from cad.eval.significance import mcnemar

    first, second = _read_detail_cases(a.first), _read_detail_cases(a.second)
    if [k for k, _ in first] != [k for k, _ in second]:
        raise CadError(f"{a.first} and {a.second} list different source pronouns")
    good = {int(c) for c in a.correct.split(",")}
    r = mcnemar([c in good for _, c in first], [c in good for _, c in second], exact=True if a.exact else None)
    print(f"b={r.b} c={r.c} statistic={r.statistic:.4f} p={r.p_value:.4g} ({'exact' if r.exact else 'chi-square'})")


def _correlation(a: argparse.Namespace) -> None:
    from cad.eval.correlation import correlations_from_tsv
    from cad.eval.rank.judgments import kendall_tau_from_files

    if a.judgments:
        if a.tsv is not None:
            raise CadError("give either a system-level TSV or --judgments with --scores, not both")
        if not a.scores:
            raise CadError("--judgments needs --scores (segment<TAB>system<TAB>score per line)")
        r = kendall_tau_from_files(a.judgments, a.scores, a.variant)
        print(f"tau\t{r.tau:.4f}\nconcordant\t{r.concordant}\ndiscordant\t{r.discordant}\n"
              f"metric_ties\t{r.metric_ties}\nhuman_ties\t{r.human_ties}\nvariant\t{r.variant}")
        return
    if a.tsv is None:
        raise CadError("give a system-level TSV, or --judgments and --scores")
    res = correlations_from_tsv(a.tsv, human=a.human)
    print("metric\tpearson\tspearman")
    for m, v in res.items():
        print(f"{m}\t{v['pearson']:.4f}\t{v['spearman']:.4f}")


def _report(a: argparse.Namespace) -> None:
    from cad.eval.report import System, build_report, to_markdown, write_report
    from cad.lang.pairs import pair

    p = pair(a.src, a.tgt)
    report = build_report(a.source, a.reference, a.align_ref, [System.parse(s) for s in a.system], docs=a.docs,
                          lowercase=a.lowercase, pair=p)
    write_report(report, a.out, p)
    sys.stdout.write(to_markdown(report, p))


def add_eval_parser(sub, command: str | None = None) -> None:
    p = sub.add_parser("eval", help="evaluate pronoun translation: APT, pronoun P/R/F, BLEU, significance")
    es = p.add_subparsers(dest="eval_command", metavar="MEASURE", required=True)

    s = es.add_parser("apt", help="accuracy of pronoun translation (original tool's CONFIG.ini, or flags)")
    s.add_argument("config", nargs="?", help="an APT configuration file of the original tool")
    add_in(s, "--source", help="tokenized source text")
    add_in(s, "--reference", help="tokenized reference translation")
    add_in(s, "--candidate", help="tokenized candidate translation")
    add_in(s, "--align-ref", help="source-reference alignment (Moses i-j)")
    add_in(s, "--align-cand", help="source-candidate alignment")
    s.add_argument("--lang", default=f"{SOURCE_LANGUAGE}-{TARGET_LANGUAGE}",
                   help="language pair, whose languages' pronoun lists are the settings (cad/lang; default: "
                        "%(default)s)")
    s.add_argument("--cases", default="1,2,3,4,5,6",
                   help="comma-separated cases (1 identical ... 6 both not found) counted in APT "
                        "(default: %(default)s)")
    s.add_argument("--weights", default="1,0.5,0,0,0,0",
                   help="weight of each case: per case used, or six values (default: %(default)s)")
    s.add_argument("--no-count-other", action="store_true",
                   help="OTHER (a non-pronoun translation) never matches OTHER (the original tool's default)")
    s.add_argument("--out", help="also write OUT.score and OUT.detail")
    s.set_defaults(func=_apt)

    s = es.add_parser("pronouns", help="pronoun precision/recall/F (Hardmeier & Federico 2010)")
    add_in(s, "--source", required=True, help="tokenized source text")
    add_in(s, "--reference", required=True, help="tokenized reference translation")
    add_in(s, "--candidate", required=True, help="tokenized candidate translation")
    add_in(s, "--align-ref", required=True, help="source-reference alignment (Moses i-j)")
    add_in(s, "--align-cand", required=True, help="source-candidate alignment (Moses i-j)")
    add_in(s, "--docs", help="document boundaries ('first_line<TAB>id' or one 0-based start line per line): "
                             "group the per-document report; with --clip document, the clipping unit")
    s.add_argument("--pronouns", default="it,they",
                   help="source pronouns, each matched as written and capitalized (default it,they)")
    s.add_argument("--clip", choices=("occurrence", "document"), default="occurrence",
                   help="occurrence (default): each pronoun's candidate words against its own reference words, "
                        "as the DiscoMT scorer; document: per pronoun and document, lowercased (cad's earlier count)")
    s.add_argument("--per-document", action="store_true", help="print the recall per document and pronoun first")
    s.set_defaults(func=_pronouns)

    s = es.add_parser("bleu", help="BLEU and chrF (sacrebleu): its line with the signature, the n-gram precisions "
                                   "and the brevity penalty")
    add_in(s, "--candidate", required=True, help="the candidate translation (hypothesis), one sentence per line")
    add_in(s, "--reference", required=True, action="append",
           help="a reference translation, line-parallel to --candidate; repeat it for several references")
    s.add_argument("--tokenize", default="13a",
                   help="sacrebleu's BLEU tokenizer: 13a, none, intl, char, ... (default: %(default)s)")
    s.add_argument("--lowercase", action="store_true", help="case-insensitive BLEU and chrF")
    s.set_defaults(func=_bleu)

    from cad.eval.metrics import METRICS

    s = es.add_parser("metric", help="any registered metric by name (bleu, chrf, apt, or a plug-in's): its score "
                                     "with its reproducibility signature, one line per --metric")
    s.add_argument("--metric", action="append", required=True, choices=METRICS,
                   help="the metric (repeat for several)")
    add_in(s, "--candidate", required=True, help="the candidate translation (hypothesis), one sentence per line")
    add_in(s, "--reference", required=True, action="append",
           help="a reference translation, line-parallel to --candidate; repeat it for several references")
    add_in(s, "--source", help="for a metric that reads the source side (apt): the tokenized source")
    add_in(s, "--align-cand", help="for a metric that reads the source side: source-candidate alignment (Moses i-j)")
    add_in(s, "--align-ref", action="append",
           help="for a metric that reads the source side: source-reference alignment, one per --reference")
    s.add_argument("--option", action="append", metavar="METRIC.KEY=VALUE",
                   help="an option of one metric (bleu.tokenize=none, bleu.lowercase=yes, apt.cases=1,2; a metric "
                        "refuses an option it does not have)")
    s.set_defaults(func=_metric)

    s = es.add_parser("mcnemar", help="McNemar's test between two APT .detail files")
    add_in(s, "first", help="the first system's .detail file (cad eval apt --out)")
    add_in(s, "second", help="the second system's .detail file, for the same source")
    s.add_argument("--correct", default="1", help="cases counted as correct, e.g. 1 or 1,2 (default: %(default)s)")
    s.add_argument("--exact", action="store_true", help="always use the exact binomial test")
    s.set_defaults(func=_mcnemar)

    s = es.add_parser("correlation", help="Pearson/Spearman of system-level metric scores with human scores (TSV), "
                                          "or segment-level Kendall's tau over pairwise judgments")
    add_in(s, "tsv", nargs="?", help="header 'system<TAB>metric...<TAB>human', then one row of scores per system")
    s.add_argument("--human", default="human", help="name of the human-score column (default: %(default)s)")
    add_in(s, "--judgments", help="pairwise judgments 'segment<TAB>system_a<TAB>system_b<TAB>a|b|tie' "
                                  "(the wmt-ranking layout): print Kendall's tau instead")
    add_in(s, "--scores", help="with --judgments: the metric's 'segment<TAB>system<TAB>score' lines")
    s.add_argument("--variant", choices=("wmt12", "ties-excluded"), default="wmt12",
                   help="wmt12: a metric tie is discordant (WMT12, WMT13); ties-excluded: left out "
                        "(default: %(default)s)")
    s.set_defaults(func=_correlation)

    add_rank_parser(es, add_in, add_output_argument)

    s = es.add_parser("report", help="several systems on one test set: Markdown, JSON and PNG",
                      description="Scores several systems on one test set and writes OUT.md, OUT.json and "
                                  "OUT.png. The Markdown table is also printed on stdout: it is the result, "
                                  "so -q (which quiets logs and progress on stderr) does not hide it.")
    s.add_argument("--source", required=True, help="tokenized source text")
    s.add_argument("--reference", required=True, help="tokenized reference translation")
    s.add_argument("--align-ref", required=True, help="source-reference alignment (Moses i-j)")
    s.add_argument("--system", action="append", required=True, help="NAME=CANDIDATE:ALIGNMENT (repeat)")
    s.add_argument("--docs", help="document boundaries of --source, for the pronoun P/R/F")
    s.add_argument("--lowercase", action="store_true",
                   help="case-insensitive BLEU and chrF, for systems trained lowercased (default: the texts' "
                        "case, as sacrebleu; the signature in the report says which)")
    s.add_argument("--src", default=SOURCE_LANGUAGE, help="source language (default: %(default)s)")
    s.add_argument("--tgt", default=TARGET_LANGUAGE, help="target language, whose pronoun classes the report "
                                                          "counts (default: %(default)s)")
    s.add_argument("--out", required=True, help="writes OUT.md, OUT.json, OUT.png")
    s.set_defaults(func=_report)
