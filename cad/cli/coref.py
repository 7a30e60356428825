"""`cad coref`, `cad coref-train` and `cad coref-eval`."""

from __future__ import annotations

import argparse
import logging
import sys
import time

from cad.core.errors import CadError
from coref.backends import BACKENDS, DEFAULT_BACKEND
from cad.core.textio import is_uint

log = logging.getLogger("cad.coref")


def _pronouns(a: argparse.Namespace) -> tuple[str, ...]:
    return tuple(p.strip().lower() for p in a.pronouns.split(",") if p.strip())


def _coref(a: argparse.Namespace) -> None:
    from cad.core.shards import parallel_from_args
    from cad.core.textio import is_stdio
    from coref.backends import documents, get_backend, resolve_documents
    from coref.records import write_jsonl

    parallel = parallel_from_args(a)
    if a.docs and not any(is_stdio(f) for f in (a.input, a.docs, a.out, a.corzu, a.human_lexicon,
                                                 a.gender_lexicon)):
        from coref.corpus import BackendSpec, resolve_corpus

        spec = BackendSpec(a.backend, a.gold, _pronouns(a), a.model, a.corzu, a.docs, None, a.human_lexicon,
                           a.gender_lexicon)
        resolve_corpus(a.input, a.docs, a.out, spec, parallel)
        return
    # one document, or a stream: one process, no shards
    docs = documents(a.input, a.docs)
    backend = get_backend(a.backend, a.gold, _pronouns(a), a.model, corzu=a.corzu, docs=a.docs,
                          n_lines=sum(len(sents) for _, sents in docs), human_lexicon=a.human_lexicon,
                          gender_lexicon=a.gender_lexicon)
    t = time.time()
    recs = resolve_documents(backend, docs)
    write_jsonl(recs, a.out)
    log.info("%d pronouns in %d documents, %.2f documents/s", len(recs), len(docs),
             len(docs) / max(time.time() - t, 1e-9))


def _train(a: argparse.Namespace) -> None:
    from cad.lang.models import load_spacy
    from coref.english.train import fit, instances, parse_gold, read_gold_corpora

    corpora = tuple(c.strip() for c in a.corpora.split(",") if c.strip())
    docs = read_gold_corpora(a.data, corpora)
    nlp = load_spacy()
    t = time.time()
    parsed = parse_gold(nlp, docs)
    data = [instances(c, g, p, a.window) for (c, g), p in zip(docs, parsed)]
    model = fit(data, a.l2, a.window, {"corpora": list(corpora), "documents": len(docs),
                                       "in_domain_weight": a.in_domain_weight}, a.in_domain_weight)
    model.save(a.out)
    log.info("ranker trained on %d documents in %.0fs: %s", len(docs), time.time() - t, a.out)


def _coref_eval(a: argparse.Namespace) -> None:
    from coref.evaluate import CorefScores, gold_pronouns, pair_documents, score
    from coref.records import write_jsonl
    from cad.core.cliargs import refuse_stdout

    refuse_stdout(a.out, "--out")
    pronouns = _pronouns(a)
    pairs = pair_documents(a.gold, a.input, a.docs)
    n_sentences = sum(len(sents) for _, _, _, sents in pairs)
    total = CorefScores()
    records = []
    secs = 0.0
    if a.cv_folds:
        if a.backend != "ranker":
            raise CadError("--cv-folds is for the ranker, the backend that learns")
        resolvers, protocol = _fold_resolvers(a, pairs, pronouns)
        print(f"protocol\t{protocol}")
    else:
        from coref.backends import get_backend

        backend = get_backend(a.backend, a.gold, pronouns, a.model)
        resolvers = {name: backend for name, _, _, _ in pairs}
    for name, gdoc, k, sents in pairs:
        t = time.time()
        recs = resolvers[name].resolve(str(k), [[w.lower() for w in s] for s in sents] if a.lowercase else sents)
        secs += time.time() - t
        records.extend(recs)
        sc = score(recs, gold_pronouns(gdoc, sents, str(k), pronouns))
        total.add(sc)
    if a.out:
        write_jsonl(sorted(records, key=lambda r: (int(r.doc) if is_uint(r.doc) else r.doc, r.sentence, r.index)),
                    a.out)
    f = 2 * total.precision * total.recall / (total.precision + total.recall) if total.tp else 0.0
    print(f"backend\t{a.backend}\ndocuments\t{len(pairs)}\nsentences\t{n_sentences}\npronouns\t{total.total}")
    print(f"anaphoricity precision\t{total.precision:.3f}\nanaphoricity recall\t{total.recall:.3f}\n"
          f"anaphoricity F\t{f:.3f}")
    print(f"antecedent accuracy\t{total.accuracy:.3f} ({total.correct}/{total.total})")
    for p, (ok, n) in sorted(total.per_pronoun.items()):
        print(f"accuracy {p}\t{ok / n:.3f} ({ok}/{n})")
    print(f"seconds per 1,000 sentences\t{1000 * secs / max(n_sentences, 1):.1f}")


def _fold_resolvers(a: argparse.Namespace, pairs, pronouns):
    """One ranker per fold of talks, each trained without the talks it resolves."""
    from cad.lang.models import load_spacy
    from coref.english.ranker import RankerResolver
    from coref.english.train import fit, instances, parse_gold, read_gold_corpora, talk_folds

    if not a.train_data:
        raise CadError("--cv-folds needs --train-data (../shared/data/coref)")
    corpora = tuple(c.strip() for c in a.corpora.split(",") if c.strip())
    docs = read_gold_corpora(a.train_data, corpora)
    talks = {gdoc.doc_id: name for name, gdoc, _, _ in pairs}
    folds = talk_folds(sorted(talks), a.cv_folds)
    nlp = load_spacy()
    parsed = parse_gold(nlp, docs)
    data = [instances(c, g, p, a.window) for (c, g), p in zip(docs, parsed)]
    resolvers = {}
    for i, fold in enumerate(folds, 1):
        held = set(fold)
        train = [d for d, (c, g) in zip(data, docs) if not (c == "ted" and g.doc_id in held)]
        seen = sorted({d.name for d in train if d.corpus == "ted" and d.name in held})
        if seen:
            raise AssertionError(f"fold {i} would train on its own talks {seen}")
        model = fit(train, a.l2, a.window, None, a.in_domain_weight)
        resolver = RankerResolver(model, nlp=nlp, pronouns=pronouns)
        for talk in fold:
            resolvers[talks[talk]] = resolver
        log.info("fold %d: talks %s held out, trained on %d documents", i, ",".join(fold), len(train))
    protocol = (f"{a.cv_folds} folds by talk (round-robin over sorted talk ids: "
                + "; ".join(",".join(f) for f in folds)
                + f"); each fold's talks resolved by a ranker trained on {'+'.join(corpora)} without them")
    return resolvers, protocol


def add_coref_parsers(sub) -> None:
    from cad.core.cliargs import add_input_argument as add_in, add_output_argument as add_out

    s = sub.add_parser("coref", help="resolve the antecedents of pronouns (JSON Lines)")
    s.add_argument("--backend", choices=BACKENDS, default=DEFAULT_BACKEND,
                   help=f"coreference backend (default: {DEFAULT_BACKEND})")
    add_in(s, "--input", required=True, help="tokenized text, one sentence per line")
    add_in(s, "--docs", help="document boundaries (first line<TAB>doc id)")
    s.add_argument("--gold", help="gold annotation for --backend gold (MMAX2 directory, .conll or .ann)")
    s.add_argument("--model", help="ranker model file (default: the model shipped with cad; for --backend spanish, "
                                   "coref/data/ranker-es.json.gz)")
    s.add_argument("--pronouns", default="it,they",
                   help="comma-separated pronouns to write records for (default: %(default)s; the Spanish "
                        "backends write every Spanish 3rd-person pronoun)")
    add_in(s, "--corzu", help="--backend corzu: CorZu's pronoun records for --input (corzu.*.jsonl), with --docs")
    add_in(s, "--human-lexicon", help="--backend corzu|spanish: a human-noun lexicon (python -m cad.lang.humanness)")
    add_in(s, "--gender-lexicon", help="--backend corzu|spanish: the gender of person names "
           "(python -m cad.lang.name_gender), instead of FreeLing's guess or spaCy's none")
    add_out(s, "--out", required=True, help="JSON Lines output")
    from cad.core.shards import add_parallel_arguments
    from coref.corpus import DEFAULT_SHARD_LINES

    add_parallel_arguments(s, DEFAULT_SHARD_LINES, "; a text without --docs (one document), or a file option "
                           "set to '-', is resolved in this process")
    s.set_defaults(func=_coref)

    s = sub.add_parser("coref-train", help="train the ranker backend on gold coreference")
    s.add_argument("--data", required=True, help="gold coreference folder (../shared/data/coref)")
    _training_options(s)
    s.add_argument("--out", required=True, help="model file (.json or .json.gz)")
    s.set_defaults(func=_train)

    s = sub.add_parser("coref-eval", help="evaluate a backend on gold chains (ParCorFull MMAX2)")
    s.add_argument("--backend", choices=BACKENDS, default=DEFAULT_BACKEND,
                   help=f"coreference backend (default: {DEFAULT_BACKEND})")
    s.add_argument("--gold", required=True, help="MMAX2 directory, e.g. ParCorFull TED/EN")
    add_in(s, "--input", required=True, help="the same talks as tokenized text")
    add_in(s, "--docs", required=True, help="document boundaries of --input")
    s.add_argument("--model", help="ranker model file (default: the model shipped with cad)")
    s.add_argument("--pronouns", default="it,they", help="comma-separated pronouns to evaluate (default: %(default)s)")
    s.add_argument("--cv-folds", type=int, default=0,
                   help="ranker only: cross-validate by talk, training one model per fold without its talks")
    s.add_argument("--train-data", help="with --cv-folds: gold coreference folder (../shared/data/coref)")
    s.add_argument("--lowercase", action="store_true",
                   help="resolve the lowercased text (as cad translate gave it before it kept the case; "
                        "default: the text as written)")
    _training_options(s)
    s.add_argument("--out", help="write the evaluated pronoun records (JSON Lines) here (a file: the report goes "
                                 "to stdout)")
    s.set_defaults(func=_coref_eval)


def _training_options(s) -> None:
    s.add_argument("--corpora", default="litbank,news,ted", help="gold corpora to train on (default: %(default)s)")
    s.add_argument("--l2", type=float, default=3.0, help="L2 penalty of both models (default 3)")
    s.add_argument("--window", type=int, default=3, help="previous sentences searched for antecedents (default 3)")
    s.add_argument("--in-domain-weight", type=int, default=4,
                   help="how many times ParCorFull (news, TED) counts against LitBank (default 4)")
