"""`cad plm train|show|predict|score`."""

from __future__ import annotations

import argparse
import sys


def _docs_of(lines_count: int, docs: str | None) -> list[tuple[int, int]]:
    from cad.core.docs import read_docs

    if not docs:
        return [(0, lines_count)]
    starts = read_docs(docs, lines_count)
    bounds = [d.first_line for d in starts] + [lines_count]
    return [(bounds[k], bounds[k + 1]) for k in range(len(starts))]


def _train(a: argparse.Namespace) -> None:
    from cad.plm.model import train_plm
    from cad.core.textio import read_lines

    lines = [l.split() for l in read_lines(a.text)]
    docs = [lines[s:e] for s, e in _docs_of(len(lines), a.docs)]
    info = train_plm(docs, a.out, a.order, a.order - 1)
    print(f"{info['sequences']} pronoun sequences -> {a.out}/plm.arpa", file=sys.stderr)


def _show(a: argparse.Namespace) -> None:
    from cad.plm.model import figure2

    for feat in ("masc.sing", "fem.sing"):
        print(f"average log10 P(pronoun | n preceding {feat} (pro)nouns), n = 1..4")
        for p, vals in figure2(a.model, feat).items():
            print(f"  {p:<6}" + "".join(f"{v:>9.3f}" if v is not None else f"{'-':>9}" for v in vals))


def _classes(a, gold_items):
    from cad.plm.score import detect_classes
    from cad.plm.tsv import CLASSES_2015, CLASSES_2016

    if a.classes == "2015":
        return CLASSES_2015
    if a.classes == "2016":
        return CLASSES_2016
    if not gold_items:
        # nothing to decide from: say which classes, since the 2016 ones never predict ça
        import logging

        logging.getLogger(__name__).warning(
            "--classes auto: the input has no gold classes, so the 2016 classes are used (ça counted with "
            "cela, never predicted); give --classes 2015 to predict ça apart")
    return detect_classes(gold_items)


def _predict(a: argparse.Namespace) -> None:
    from cad.plm.model import PLM
    from cad.plm.predict import predict_document
    from cad.plm.tsv import read_tsv, write_predictions

    from cad.core.errors import CadError

    items = read_tsv(a.input)
    classes = _classes(a, [it for it in items if it.classes])
    if a.system == "lm-baseline":
        from cad.plm.lm_baseline import LMBaseline

        if not a.lm:
            raise CadError("--system lm-baseline needs --lm (the target-side n-gram LM, e.g. models/baseline/lm.arpa)")
        write_predictions(items, LMBaseline(a.lm, a.none_penalty).predict(items), a.out)
        return
    if a.system == "classifier":
        from cad.plm.pronoun_classifier import PronounClassifier

        if not (a.classifier and a.lm):
            raise CadError("--system classifier needs --classifier (cad plm train-classifier --out) and --lm")
        antecedents = None
        if a.coref:
            from coref.backends import records_by_doc
            from cad.core.docs import read_docs
            from cad.plm.pronoun_classifier import document_antecedents

            if not a.docs:
                raise CadError("--coref needs --docs (the records name documents by index)")
            starts = [d.first_line for d in read_docs(a.docs, len(items))]
            bounds = starts + [len(items)]
            docs_list = [(str(d), [it.source for it in items[bounds[d]:bounds[d + 1]]]) for d in range(len(starts))]
            antecedents = document_antecedents(items, starts, records_by_doc(a.coref, docs_list))
        doc_starts = None
        if a.docs:
            from cad.core.docs import read_docs

            doc_starts = [d.first_line for d in read_docs(a.docs, len(items))]
        clf = PronounClassifier(a.classifier, a.lm, without=_groups(a.without), plm_dir=a.model)
        write_predictions(items, clf.predict(items, antecedents, doc_starts), a.out)
        return
    if not a.model:
        raise CadError("--system plm needs --model (cad plm train --out)")
    plm = PLM(a.model)
    preds = []
    if a.source_aware:
        from cad.plm.classifier import SourceAware

        model = SourceAware.load(a.source_aware)
        for s, e in _docs_of(len(items), a.docs):
            preds.extend(model.predict_document(plm, items[s:e], classes))
    else:
        for s, e in _docs_of(len(items), a.docs):
            p, _ = predict_document(plm, items[s:e], classes, rules=not a.no_rules)
            preds.extend(p)
    write_predictions(items, preds, a.out)


def _score(a: argparse.Namespace) -> None:
    from cad.plm.score import format_scores, score
    from cad.plm.tsv import read_tsv

    gold = read_tsv(a.gold, gold=True)
    pred = read_tsv(a.pred)
    sys.stdout.write(format_scores(score(gold, [it.classes for it in pred], _classes(a, gold), a.pred)))


def _lm_baseline_cv(a: argparse.Namespace) -> None:
    from cad.core.docs import read_docs
    from cad.core.errors import CadError
    from cad.plm.lm_baseline import LMBaseline, cross_validate, folds_by_document
    from cad.plm.score import format_scores, score
    from cad.plm.tsv import read_tsv, write_predictions

    items = read_tsv(a.input, gold=True)
    classes = _classes(a, items)
    try:
        grid = [float(x) for x in a.grid.split(",")]
    except ValueError:
        raise CadError(f"--grid: {a.grid!r} is not a comma-separated list of numbers") from None
    starts = [d.first_line for d in read_docs(a.docs, len(items))]
    folds = folds_by_document(len(items), starts, a.folds)
    if len(folds) < 2:
        raise CadError(f"{len(starts)} documents cannot make {a.folds} folds", a.docs)
    pooled, report = cross_validate(LMBaseline(a.lm), items, folds, grid, classes)
    for r in report:
        print(f"fold {r['fold']}: none-penalty {r['none_penalty']:g}, chosen on the other folds", file=sys.stderr)
    if a.out:
        write_predictions(items, pooled, a.out)
    sys.stdout.write(format_scores(score(items, pooled, classes, a.input)))


def _groups(text: str | None) -> tuple[str, ...]:
    from cad.core.errors import CadError
    from cad.plm.pronoun_classifier import FEATURE_GROUPS

    groups = tuple(g.strip() for g in (text or "").split(",") if g.strip())
    bad = [g for g in groups if g not in FEATURE_GROUPS]
    if bad:
        raise CadError(f"unknown feature group(s) {', '.join(bad)} (groups: {', '.join(FEATURE_GROUPS)})")
    return groups


def _train_classifier(a: argparse.Namespace) -> None:
    import json

    from cad.core.errors import CadError
    from cad.plm.pronoun_classifier import train

    if a.workers < 1:
        raise CadError(f"--workers must be at least 1, not {a.workers}")
    docs = a.docs or f"{a.corpus}.docs"
    info = train(f"{a.corpus}.{a.src}", f"{a.corpus}.{a.tgt}", a.align, docs, a.out, without=_groups(a.without),
                 coref=a.coref, select_groups=a.select_groups, plm=not a.no_plm, workers=a.workers)
    print(json.dumps(info), file=sys.stderr)


def _ablation(a: argparse.Namespace) -> None:
    import json

    from coref.backends import records_by_doc
    from cad.core.docs import read_docs
    from cad.plm.ablation import run_ablation, to_markdown
    from cad.plm.pronoun_classifier import document_antecedents
    from cad.plm.tsv import read_tsv
    from cad.core.textio import atomic_output

    items = read_tsv(a.input, gold=True)
    starts = [d.first_line for d in read_docs(a.docs, len(items))]
    antecedents = None
    if a.test_coref:
        bounds = starts + [len(items)]
        docs_list = [(str(d), [it.source for it in items[bounds[d]:bounds[d + 1]]]) for d in range(len(starts))]
        antecedents = document_antecedents(items, starts, records_by_doc(a.test_coref, docs_list))
    rows = run_ablation(f"{a.corpus}.{a.src}", f"{a.corpus}.{a.tgt}", a.align, a.corpus_docs or f"{a.corpus}.docs",
                        a.coref, items, antecedents, starts, a.lm, a.model)
    sys.stdout.write(to_markdown(rows))
    if a.json:
        with atomic_output(a.json) as fh:
            json.dump(rows, fh, indent=1, ensure_ascii=False)


def _make_data(a: argparse.Namespace) -> None:
    from cad.plm.make_data import make_data

    counts = make_data(a.src, a.tgt, a.align, a.out, wmt2016=a.format == "2016")
    classes = " ".join(f"{c} {n}" for c, n in sorted(counts.items()) if c not in ("lines", "instances"))
    print(f"{counts['lines']} lines, {counts['instances']} instances ({classes}) -> {a.out}", file=sys.stderr)


def _train_source_aware(a: argparse.Namespace) -> None:
    from cad.plm.classifier import train_source_aware

    acc = train_source_aware(a.model, a.corpus, a.align, a.coref, a.out, a.docs)
    print(f"trained on the aligned corpus (training accuracy {acc:.3f}) -> {a.out}", file=sys.stderr)


def add_plm_parsers(sub, command: str | None = None) -> None:
    from cad.core.cliargs import add_input_argument as add_in, add_output_argument as add_out

    classes_help = ("pronoun classes: 2015 (DiscoMT, ça apart), 2016 (WMT, ça with cela), or auto: 2015 if the "
                    "gold classes include ça, else 2016, with a warning when the input has no gold classes "
                    "(default: %(default)s)")
    p = sub.add_parser("plm", help="the Pronoun Language Model: train, show, predict, score")
    ps = p.add_subparsers(dest="plm_command", metavar="ACTION", required=True)
    s = ps.add_parser("train", help="train a PLM on French text")
    add_in(s, "--text", required=True, help="tokenized French text, one sentence per line")
    add_in(s, "--docs", help="document boundaries (the history restarts at each document)")
    s.add_argument("--order", type=int, default=5,
                   help="n-gram order of the PLM; the history is ORDER-1 (pro)nouns (default: %(default)s)")
    s.add_argument("--out", required=True, help="model directory: plm.arpa, plm.json, sequences.txt")
    s.set_defaults(func=_train)
    s = ps.add_parser("show", help="seed 001's Figure 2: log-probabilities after 1-4 nouns of one gender/number")
    s.add_argument("model", help="the PLM directory (cad plm train --out)")
    s.set_defaults(func=_show)
    s = ps.add_parser("predict", help="predict the pronouns of a DiscoMT/WMT TSV file")
    s.add_argument("--system", choices=["plm", "lm-baseline", "classifier"], default="plm",
                   help="plm: the PLM (with rules unless --no-rules, or the --source-aware classifier); "
                        "lm-baseline: the shared task's baseline, each filler scored by --lm; classifier: the "
                        "pronoun classifier of --classifier, its LM features from --lm (default: %(default)s)")
    s.add_argument("--classifier", help="--system classifier: its directory (cad plm train-classifier --out)")
    add_in(s, "--coref", help="--system classifier: coreference records of --input's documents (by index, with "
                              "--docs), for a classifier trained with antecedent features; a document without "
                              "records is resolved by the shipped ranker")
    s.add_argument("--without", help="--system classifier: feature groups left out, as the model was trained "
                                     "(comma-separated: source, pleonastic, target, lm, antecedent, syntax, plm)")
    s.add_argument("--model", help="the PLM directory (cad plm train --out); needed by --system plm, and by "
                                   "--system classifier for a classifier trained with PLM features")
    s.add_argument("--lm", help="--system lm-baseline: the target-side n-gram LM (ARPA or kenlm binary)")
    s.add_argument("--none-penalty", type=float, default=0.0,
                   help="--system lm-baseline: log10 score added per empty placeholder; negative makes NONE "
                        "rarer (default: %(default)s; -1.5 to -3 on the dev folds)")
    add_in(s, "--input", required=True, help="DiscoMT/WMT pronoun-prediction TSV (REPLACE_n placeholders)")
    add_in(s, "--docs", help="document boundaries of --input's lines (the history restarts at each document)")
    s.add_argument("--no-rules", action="store_true", help="the PLM alone")
    s.add_argument("--source-aware", help="a trained source-aware classifier (cad plm train-source-aware)")
    s.add_argument("--classes", choices=["auto", "2015", "2016"], default="auto", help=classes_help)
    add_out(s, "--out", required=True, help="the TSV with the predicted classes in its first column")
    s.set_defaults(func=_predict)
    s = ps.add_parser("score", help="macro-averaged recall, accuracy, per-class P/R/F, confusion matrix")
    add_in(s, "gold", help="TSV with the gold classes")
    add_in(s, "pred", help="TSV with the predicted classes (cad plm predict --out)")
    s.add_argument("--classes", choices=["auto", "2015", "2016"], default="auto", help=classes_help)
    s.set_defaults(func=_score)
    s = ps.add_parser("lm-baseline-cv", help="the LM baseline with its NONE penalty chosen on folds by document, "
                                             "pooled scores of the held-out folds")
    add_in(s, "--input", required=True, help="TSV with gold classes")
    add_in(s, "--docs", required=True, help="document boundaries of --input's lines (folds are whole documents)")
    s.add_argument("--lm", required=True, help="the target-side n-gram LM (ARPA or kenlm binary)")
    s.add_argument("--folds", type=int, default=2, help="folds by document (default: %(default)s)")
    s.add_argument("--grid", default="-4,-3.5,-3,-2.5,-2,-1.5,-1,-0.5,0,0.5,1",
                   help="NONE penalties tried (log10) (default: %(default)s)")
    s.add_argument("--classes", choices=["auto", "2015", "2016"], default="auto", help=classes_help)
    add_out(s, "--out", help="the pooled predictions as TSV (optional)")
    s.set_defaults(func=_lm_baseline_cv)
    s = ps.add_parser("train-classifier", help="train the pronoun classifier (source, target and LM features) on "
                                               "an aligned corpus")
    s.add_argument("--corpus", required=True, help="prefix of the prepared corpus (PREFIX.en, PREFIX.fr)")
    s.add_argument("--src", default="en", help="source suffix (default: %(default)s)")
    s.add_argument("--tgt", default="fr", help="target suffix (default: %(default)s)")
    s.add_argument("--align", required=True, help="source-target word alignment of the corpus (Moses i-j)")
    s.add_argument("--docs", help="document boundaries of the corpus (default: PREFIX.docs)")
    s.add_argument("--without", help="feature groups to leave out (comma-separated: source, pleonastic, target, lm, "
                                     "antecedent, syntax, plm)")
    s.add_argument("--no-plm", action="store_true",
                   help="leave out the PLM feature group (half-corpus Pronoun LMs; a few minutes of French tagging)")
    s.add_argument("--select-groups", action="store_true",
                   help="drop feature groups by backward elimination on the two halves of the corpus that also "
                        "choose C (macro-averaged recall; a few minutes more)")
    add_in(s, "--coref", help="coreference records of the corpus (cad coref, documents by index): adds the antecedent "
                              "features (role, every candidate's projected gender and number by its probability)")
    s.add_argument("--out", required=True, help="output directory (pronoun_classifier.json, weights as data)")
    s.add_argument("--workers", type=int, default=2,
                   help="processes for the features: 2 computes the corpus's two halves side by side, 1 one after "
                        "the other (the same model either way; default: %(default)s)")
    s.set_defaults(func=_train_classifier)
    s = ps.add_parser("ablation", help="the pronoun classifier with the feature groups chosen on the training halves "
                                       "and without each group, scored on a test TSV (features computed once)")
    s.add_argument("--corpus", required=True, help="prefix of the prepared training corpus (PREFIX.en, PREFIX.fr)")
    s.add_argument("--src", default="en", help="source suffix (default: %(default)s)")
    s.add_argument("--tgt", default="fr", help="target suffix (default: %(default)s)")
    add_in(s, "--align", required=True, help="source-target word alignment of the corpus (Moses i-j)")
    add_in(s, "--corpus-docs", help="document boundaries of the corpus (default: PREFIX.docs)")
    add_in(s, "--coref", help="coreference records of the corpus (adds the antecedent group)")
    add_in(s, "--input", required=True, help="the test TSV with gold classes (e.g. dev.pronoun-prediction.tsv)")
    add_in(s, "--docs", required=True, help="document boundaries of --input's lines")
    add_in(s, "--test-coref", help="coreference records of --input's documents (by index)")
    s.add_argument("--lm", required=True, help="the target LM of the whole corpus (models/<name>/lm.arpa)")
    s.add_argument("--model", help="the PLM of the whole corpus (cad plm train --out; adds the plm group)")
    add_out(s, "--json", help="the rows as JSON, with per-class recall")
    s.set_defaults(func=_ablation)
    s = ps.add_parser("make-data", help="pronoun-prediction instances (DiscoMT 2015 / WMT 2016 TSV) from an "
                                        "aligned parallel corpus")
    add_in(s, "--src", required=True, help="tokenized English text, one sentence per line")
    add_in(s, "--tgt", required=True, help="tokenized French text, as written (case kept in the tokens column)")
    add_in(s, "--align", required=True, help="source-target word alignment (Moses i-j)")
    s.add_argument("--format", choices=["2015", "2016"], default="2015",
                   help="2015: DiscoMT (target words, ça apart); 2016: WMT (target lemma|POS by spaCy, ça with "
                        "cela) (default: %(default)s)")
    add_out(s, "--out", required=True, help="the TSV, one line per sentence pair")
    s.set_defaults(func=_make_data)
    s = ps.add_parser("train-source-aware", help="train the source-aware predictor on an aligned corpus")
    s.add_argument("--model", required=True, help="the PLM directory")
    s.add_argument("--corpus", required=True, help="prefix of the prepared corpus (PREFIX.en, PREFIX.fr)")
    add_in(s, "--align", required=True, help="source-target word alignment of the corpus (Moses i-j)")
    add_in(s, "--coref", required=True, help="cad coref records of the corpus")
    add_in(s, "--docs", help="document boundaries of the corpus (default: PREFIX.docs if it exists)")
    s.add_argument("--out", required=True, help="output directory (source_aware.json: the weights as data, no pickle)")
    s.set_defaults(func=_train_source_aware)
