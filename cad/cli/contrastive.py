"""`cad score` and `cad contrastive` (make, score): contrastive anaphora suites, built from a
word-aligned corpus with coreference and scored in context under a model."""

from __future__ import annotations

import argparse
import json
import os
import sys

from cad.core.cliargs import add_input_argument as add_in, add_output_argument as add_out
from cad.cli.coref_model import add_coref_model_argument, coref_model
from cad.defaults import CONTRASTIVE_BACKEND, COREF_BACKEND, PROBES_PER_GENDER as DEFAULT_PER_GENDER
from coref.backends import BACKENDS

# Each command imports its implementation when it runs: `cad` then starts without loading spaCy,
# the lexicons or a model it will not use.


def _score(a: argparse.Namespace) -> None:
    from cad.core.errors import CadError
    from cad.core.textio import atomic_output
    from cad.decoder import Decoder, DecoderModel, SearchSettings
    from cad.experiments.contrastive import ContextScorer, format_summary, read_suite, score_suite
    from coref.backends import get_backend

    coref = coref_model(a)
    items = read_suite(a.suite)
    twins = None         # the lexicon before the model: a missing one fails at once
    if not a.no_gender_twins:
        from cad.cm.config import config_pair
        from cad.experiments.contrastive import GenderTwins

        target = config_pair(a.config).target
        try:
            lexicon = target.inflection_lexicon()
        except CadError as exc:
            raise CadError(f"{exc} ({target.name}'s inflection lexicon, for French hunspell-fr-comprehensive: "
                           "`make resources` installs it; --no-gender-twins scores without it)") from None
        twins = None if lexicon is None else GenderTwins(lexicon)
    sentences = [" ".join(x.lower().split()) for it in items for x in [s for s, _ in it.context] + [it.source]]
    model = DecoderModel.load(a.config, input_sentences=sentences, settings=SearchSettings(search_algorithm=0))
    scorer = ContextScorer(Decoder(model), get_backend(a.backend, gold=a.gold, model=coref), a.humanness, twins)
    if a.cm_weight is not None:
        if a.cm_weight < 0:
            raise CadError(f"--cm-weight must not be negative, not {a.cm_weight}")
        model = model.with_weights(scorer.cm.slot.name, [a.cm_weight])
        scorer = ContextScorer(Decoder(model), scorer.resolver, a.humanness, twins)
    results, summary = score_suite(scorer, items)
    with atomic_output(a.out) as fh:
        fh.write("id\tmethod\tbest\tcorrect\tright\tscores\tclasses\tpenalized\ttwins\tfeatures\n")
        for r in results:
            fh.write(f"{r.id}\t{r.method}\t{r.best}\t{'' if r.correct is None else r.correct}\t"
                     f"{'' if r.right is None else int(r.right)}\t{','.join(f'{x:.4f}' for x in r.scores)}\t"
                     f"{'|'.join(r.classes)}\t{','.join(map(str, r.penalized))}\t{','.join(map(str, r.twins))}\t"
                     f"{'|'.join(r.features)}\n")
    if a.report:
        with atomic_output(a.report) as fh:
            json.dump(summary, fh, indent=1, ensure_ascii=False)
            fh.write("\n")
    print(f"{summary['judged']} judged items: accuracy {summary['accuracy']:.3f} "
          f"({summary['forced']} forced, {summary['fallback']} by the fallback)", file=sys.stderr)
    if not a.quiet:
        print(format_summary(summary), file=sys.stderr)


def _make(a: argparse.Namespace) -> None:
    from cad.core.errors import CadError
    from cad.core.textio import atomic_output
    from cad.experiments.contrastive_make import MakeSettings, make_suite, summary, write_items

    if a.pairs < 1:
        raise CadError(f"--pairs must be at least 1, not {a.pairs}")
    if a.max_distance < (0 if a.same_sentence else 1):
        raise CadError(f"--max-distance {a.max_distance}: at least 1 (0 with --same-sentence: only antecedents in "
                       "the pronoun's sentence)")
    corpus = _corpus_paths(a)
    settings = MakeSettings(max_distance=a.max_distance, same_sentence=a.same_sentence, pairs=a.pairs, seed=a.seed)
    from cad.lang.pairs import pair

    made = make_suite(corpus, _coreference(a, corpus), settings, nouns_from=a.nouns_from, pair=pair(a.src, a.tgt))
    if not made.items:
        raise CadError("no item could be made (see the reasons with --report)")
    with atomic_output(a.out) as fh:
        write_items(made.items, fh)
    report = summary(made)
    if a.report:
        report["examples"] = made.examples
        with atomic_output(a.report) as fh:
            json.dump(report, fh, indent=1, ensure_ascii=False)
            fh.write("\n")
    print(f"{report['items']} items ({report['pairs']} pairs) from {report['kept']} of {report['pronouns']} "
          f"it/they; skipped: " + ", ".join(f"{why} {n}" for why, n in report["skipped"].items()), file=sys.stderr)


def _probes(a: argparse.Namespace) -> None:
    from cad.cm.projection import dictionary_gender
    from cad.core.errors import CadError
    from cad.core.textio import atomic_output, read_lines
    from cad.experiments.probes import blocks, probe_nouns, summary, vocabulary_of
    from cad.resources import fr_inflection, wordnet

    if a.per_gender < 1:
        raise CadError(f"--per-gender must be at least 1, not {a.per_gender}")
    nouns = probe_nouns(vocabulary_of(read_lines(a.vocabulary)), wordnet.load(), dictionary_gender,
                        fr_inflection.load(), a.per_gender)
    made = blocks(nouns)
    if not made:
        raise CadError("no noun of the vocabulary fits the suite (concrete nouns with a French translation of one "
                       "gender)", a.vocabulary)
    with atomic_output(a.out) as fh:
        for b in made:
            fh.write(json.dumps(b, ensure_ascii=False, sort_keys=True) + "\n")
    report = summary(nouns, made)
    if a.report:
        with atomic_output(a.report) as fh:
            json.dump(report, fh, indent=1, ensure_ascii=False)
            fh.write("\n")
    print(f"{report['blocks']} blocks of {len(nouns)} nouns ({report['by_gender']}): "
          + ", ".join(f"{k} {v}" for k, v in report["by_frame"].items()), file=sys.stderr)


def _read_blocks(path: str) -> list[dict]:
    from cad.core.errors import CadError
    from cad.core.textio import read_lines

    out = []
    for k, line in enumerate(read_lines(path), 1):
        if not line.strip():
            continue
        try:
            b = json.loads(line)
            missing = [key for key in ("id", "frame", "requires", "predicate", "antecedent", "pronoun") if key not in b]
            if missing or len(b["sentences"]) != 2 or not all(b["sentences"]):
                raise ValueError(f"a block is two sentences with {', '.join(missing) or 'its fields'}")
        except (ValueError, KeyError, TypeError) as exc:
            raise CadError(f"not a block of cad contrastive probes: {exc}", path, k) from None
        out.append(b)
    if not out:
        raise CadError("no block in the suite", path)
    return out


def _translate_suite(a: argparse.Namespace) -> None:
    from pathlib import Path

    from cad.cli import build_parser
    from cad.core.alignment import parse_alignment
    from cad.core.textio import atomic_output, read_lines
    from cad.experiments.probe_report import format_report, judge, report
    from cad.lang.pairs import default_pair

    blocks = _read_blocks(a.suite)
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    src, docs = work / "source.txt", work / "source.docs"
    with atomic_output(src) as fh:
        fh.writelines(" ".join(s) + "\n" for b in blocks for s in b["sentences"])
    with atomic_output(docs) as fh:
        fh.writelines(f"{2 * k}\t{b['id']}\n" for k, b in enumerate(blocks))
    tok, al = work / "translation.tok", work / "translation.align"
    # the blocks translated by cad translate itself, as a user would run it on the same files
    argv = ["translate", "--config", a.config, "--input", str(src), "--docs", str(docs), "--system", a.system,
            "--backend", a.backend, "--tokens-out", str(tok), "--alignment-out", str(al),
            "--trace", str(work / "trace.jsonl"), "--out", str(work / "translation.txt")]
    targs = build_parser("translate").parse_args(argv)
    targs.quiet = a.quiet
    targs.func(targs)
    words = [line.split() for line in read_lines(tok)]
    sources = [s for b in blocks for s in b["sentences"]]
    aligns = [parse_alignment(line, len(sources[k]), len(words[k]), str(al), k + 1)
              for k, line in enumerate(read_lines(al))]
    # the suite is English→French's (cad contrastive probes writes French frames)
    target = default_pair().target
    morph = target.morphology().tag([words[2 * k] for k in range(len(blocks))])
    agreement = target.agreement()
    results = [judge(b, words[2 * k:2 * k + 2], aligns[2 * k:2 * k + 2], morph[k], agreement)
               for k, b in enumerate(blocks)]
    rep = report(results)
    rep.update(config=a.config, system=a.system, suite=a.suite)
    fields = ["id", "frame", "antecedent", "gender", "number", "pronoun", "class", "expected", "right", "predicate",
              "agrees", "translation"]
    with atomic_output(a.out) as fh:
        fh.write("\t".join(fields) + "\n")
        for r in results:
            fh.write("\t".join("" if r[f] is None else str(r[f]) for f in fields) + "\n")
    if a.report:
        with atomic_output(a.report) as fh:
            json.dump(rep, fh, indent=1, ensure_ascii=False)
            fh.write("\n")
    if not a.quiet:
        print(format_report(rep), file=sys.stderr, end="")


def _corpus_paths(a: argparse.Namespace) -> tuple[str, str, str, str | None]:
    from cad.core.errors import CadError

    prefix = a.corpus
    src = a.source or (prefix and f"{prefix}.{a.src}")
    tgt = a.target or (prefix and f"{prefix}.{a.tgt}")
    align = a.align or (prefix and f"{prefix}.{a.src}-{a.tgt}.alig")
    docs = a.docs or (f"{prefix}.docs" if prefix and os.path.exists(f"{prefix}.docs") else None)
    if not (src and tgt and align):
        raise CadError("give --corpus PREFIX, or --source, --target and --align")
    return src, tgt, align, docs


def _coreference(a: argparse.Namespace, corpus):
    """A backend, or the records of --coref per document."""
    model = coref_model(a)
    if not a.coref:
        from coref.backends import get_backend

        return get_backend(a.backend, gold=a.gold, model=model)
    from cad.core.aligned_docs import aligned_documents
    from coref.backends import records_by_doc

    docs = [(doc_id, src) for doc_id, src, _, _ in aligned_documents(*corpus)]
    return records_by_doc(a.coref, docs)


def add_score_arguments(s) -> None:
    s.add_argument("--config", required=True, help="moses.ini with a CoreferenceModel feature (cad cm config --mode feature)")
    add_in(s, "--suite", required=True,
           help="JSON lines: {\"context\": [{\"source\", \"target\"}], \"source\", \"targets\", \"correct\"} "
                "(tokenized; e.g. cad/data/contrastive-en-fr.jsonl, or cad contrastive make's); other fields "
                "(pronoun, gender, distance, variant, pair) group the report")
    s.add_argument("--backend", default=COREF_BACKEND, choices=BACKENDS,
                   help=f"coreference backend run on each item's sentences (default: {COREF_BACKEND})")
    s.add_argument("--gold", help="gold annotation for --backend gold")
    add_coref_model_argument(s)
    s.add_argument("--humanness", action="store_true", help="the class CM's bundles carry humanness")
    s.add_argument("--cm-weight", type=float,
                   help="the CoreferenceModel's weight instead of the configuration's (0: the context-blind control)")
    s.add_argument("--no-gender-twins", action="store_true",
                   help="no back-off to other-gender twins in forced decoding: by default a real phrase pair also "
                        "stands for the target piece that differs from its words only by a subject pronoun's or an "
                        "adjective's or participle's gender (French inflection lexicon), before any penalized option")
    add_out(s, "--out", default="-", help="one TSV line per item: id, method (forced|fallback), best, correct, right, "
                                         "scores, pronoun classes, unknown-word penalties paid, options backed off to a "
                                         "gender twin and CM features (each pronoun's heaviest bundle) of each "
                                         "candidate")
    s.add_argument("--report", help="JSON file for the summary: accuracy overall and by pronoun, gender, "
                                    "distance and variant, forced/fallback/penalized counts, ties, pairs")
    s.set_defaults(func=_score)


def add_score_parser(sub, command: str | None = None) -> None:
    s = sub.add_parser("score", help="score given translations in context (contrastive suites) under the model")
    add_score_arguments(s)


def add_contrastive_parsers(sub, command: str | None = None) -> None:
    p = sub.add_parser("contrastive", help="contrastive anaphora suites: build one from a corpus, score one")
    cs = p.add_subparsers(dest="contrastive_command", required=True)
    s = cs.add_parser("make", help="ContraPro-style items in balanced pairs from a word-aligned corpus with coreference",
                      description="For each it/they whose antecedent is a noun and whose reference translation is il, "
                                  "elle, ils or elles: the true context and sentence against the pronoun's gender "
                                  "flipped with its agreement, and a twin whose context has a noun of the other gender "
                                  "(cad/experiments/contrastive_make.py).")
    s.add_argument("--corpus", help="corpus prefix: PREFIX.<src>, PREFIX.<tgt>, PREFIX.<src>-<tgt>.alig, PREFIX.docs "
                                    "(tokenized, one sentence a line; e.g. ../shared/data/en-fr/dev)")
    s.add_argument("--src", default="en", help="source language suffix (default: %(default)s)")
    s.add_argument("--tgt", default="fr", help="target language suffix (default: %(default)s)")
    s.add_argument("--source", help="tokenized source text (instead of PREFIX.<src>)")
    s.add_argument("--target", help="tokenized reference translation (instead of PREFIX.<tgt>)")
    s.add_argument("--align", help="source-target word alignment, Moses i-j (instead of PREFIX.<src>-<tgt>.alig)")
    s.add_argument("--docs", help="document boundaries, first_line<TAB>doc_id (instead of PREFIX.docs; none: one document)")
    s.add_argument("--coref", help="coreference records of the source (cad coref's JSON lines, documents by index); "
                                   "default: run --backend")
    s.add_argument("--backend", default=CONTRASTIVE_BACKEND, choices=BACKENDS,
                   help="coreference backend when no --coref is given (default: %(default)s, with --gold)")
    s.add_argument("--gold", help="gold annotation for --backend gold (ParCorFull's MMAX2 folder, CoNLL or brat files); "
                                  "a document it does not hold is skipped")
    add_coref_model_argument(s)
    s.add_argument("--max-distance", type=int, default=3,
                   help="the farthest antecedent, in sentences before the pronoun's; the context runs from the "
                        "antecedent's sentence to the one before the pronoun's; 0 with --same-sentence: only antecedents "
                        "in the pronoun's sentence (default: %(default)s)")
    s.add_argument("--same-sentence", action="store_true",
                   help="also antecedents in the pronoun's sentence (context: the sentence before; the twin's noun "
                        "is replaced in both candidates, so a sentence-level system may tell the twins apart)")
    s.add_argument("--pairs", type=int, default=1,
                   help="balanced pairs per pronoun: the first true context against a noun of the other gender, each "
                        "further one a noun of the antecedent's gender against one of the other (default: %(default)s)")
    s.add_argument("--seed", type=int, default=1, help="the draw of replacement nouns (default: %(default)s)")
    s.add_argument("--nouns-from", help="tokenized French text whose noun frequencies rank the replacement nouns "
                                        "(default: the corpus's target side)")
    add_out(s, "--out", required=True, help="the suite, JSON lines as cad score reads them")
    s.add_argument("--report", help="JSON file: pronouns read and kept, items by variant, pronoun, gender and "
                                    "distance, skipped pronouns by reason with examples (doc:line:token)")
    s.set_defaults(func=_make)
    s = cs.add_parser("score", help="score a suite in context under the model (the same as cad score)")
    add_score_arguments(s)
    add_probe_parsers(cs)


def add_probe_parsers(cs) -> None:
    s = cs.add_parser("probes", help="a generated agreement suite: nouns of a vocabulary in frames that require il/elle, "
                                     "le/la, ce or ça",
                      description="Concrete nouns of the vocabulary (WordNet artifacts one can buy, of both genders "
                                  "by the English-French dictionary and the French lexicon, in both numbers), each in "
                                  "a few two-sentence blocks: a subject, a copula with an adjective, a copula with a "
                                  "participle, an object, a copula with a noun phrase, an event "
                                  "(cad/experiments/probes.py). cad contrastive translate translates and counts them.")
    add_in(s, "--vocabulary", required=True,
           help="tokenized English text whose nouns the suite takes, the most frequent first (e.g. "
                "../shared/data/en-fr/dev.en)")
    s.add_argument("--per-gender", type=int, default=DEFAULT_PER_GENDER,
                   help="nouns of each French gender (default: %(default)s)")
    add_out(s, "--out", required=True, help="the suite: one block a line, JSON (sentences, antecedent, pronoun, frame)")
    s.add_argument("--report", help="JSON file: the nouns chosen (English forms, French translation, gender) and the "
                                    "blocks by frame")
    s.set_defaults(func=_probes)
    s = cs.add_parser("translate", help="translate a probes suite with cad translate and count what the pronoun and "
                                        "its predicate became, by frame",
                      description="Each block (two sentences, one document) is translated by cad translate with "
                                  "--config; the report counts, by frame, the pronoun's class against what the frame "
                                  "requires of the antecedent's translation (il/elle/ils/elles, le/la, ce, ça) and "
                                  "whether the adjective or participle after être agrees with the pronoun written "
                                  "(cad/experiments/probe_report.py).")
    add_in(s, "--suite", required=True, help="the blocks of cad contrastive probes")
    s.add_argument("--config", required=True, help="the moses.ini cad translate decodes with")
    s.add_argument("--system", default="cm", choices=("cm", "baseline", "pe"),
                   help="cad translate's --system: cm (the mode --config decides), baseline, pe (default: %(default)s)")
    s.add_argument("--backend", default=COREF_BACKEND, choices=BACKENDS,
                   help="coreference backend of cad translate (default: %(default)s)")
    s.add_argument("--work", required=True,
                   help="folder for the source, its documents, the translation, its tokens, alignment and trace")
    add_out(s, "--out", default="-", help="one TSV line per block: id, frame, antecedent's translation, its gender "
                                         "and number, the pronoun written, its class, the class required, right, "
                                         "the predicate, whether it agrees, the translation")
    s.add_argument("--report", help="JSON file: counts by frame and by what the frame requires, and the targets")
    s.set_defaults(func=_translate_suite)
