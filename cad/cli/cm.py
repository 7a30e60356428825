"""`cad cm build|show|config` and `cad translate`."""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
import time
from pathlib import Path

from coref.backends import BACKENDS, DEFAULT_BACKEND
# source languages whose pronouns' antecedents state gender and number on the source side
SOURCE_FEATURE_LANGUAGES = ("es",)
from cad.cm.class_classifier import CM_MODELS
from cad.cm.class_model import OBJECTIVES


def _lexicon(path: str | None):
    from cad.lang.humanness import HumanLexicon

    return HumanLexicon.load(path) if path else None


def _genders(path: str | None):
    from cad.lang.name_gender import GenderLexicon

    return GenderLexicon.load(path) if path else None


def _add_spanish_lexicons(s: argparse.ArgumentParser, add_in) -> None:
    """The learned Spanish lexicons: give cm build, experiment-source and translate the same ones."""
    add_in(s, "--human-lexicon", help="Spanish: a human-noun lexicon (python -m cad.lang.humanness) that marks the common "
                                     "nouns it knows as human where CorZu does not; use the same for cm build, "
                                     "experiment-source and translate")
    add_in(s, "--gender-lexicon", help="Spanish: the gender of person names (python -m cad.lang.name_gender), instead of "
                                      "FreeLing's guess from the ending (corzu) or spaCy's none (spanish); use the same "
                                      "for cm build, experiment-source and translate")


def _build_source(a: argparse.Namespace) -> None:
    """Spanish→English (seed 003): the bundles carry the source antecedent's own features."""
    from pathlib import Path

    from cad.cm.source_cm import build_source_cm
    from cad.core.errors import CadError
    from cad.core.textio import count_lines
    from coref.spanish.corzu import CorzuResolver

    if a.backend not in ("corzu", "spanish") or (a.backend == "corzu" and not a.corzu):
        raise CadError(f"--src {a.src}: the CM reads the source antecedents' features: --backend corzu --corzu "
                       "RECORDS, or --backend spanish (the native resolver)")
    docs = a.docs or (f"{a.corpus}.docs" if Path(f"{a.corpus}.docs").exists() else None)
    if docs is None:
        raise CadError(f"--backend {a.backend} needs the corpus's documents (--docs or {a.corpus}.docs)")
    if a.backend == "spanish":
        from coref.spanish.resolver import SpanishResolver

        resolver = SpanishResolver(lexicon=a.human_lexicon or "model", genders=_genders(a.gender_lexicon))
    else:
        lines = f"{a.corpus}.lines" if Path(f"{a.corpus}.lines").exists() else None
        resolver = CorzuResolver(a.corzu, docs, count_lines(f"{a.corpus}.{a.src}"), lines,
                                 lexicon=_lexicon(a.human_lexicon), genders=_genders(a.gender_lexicon))
    if a.em_iterations < 0:
        raise CadError(f"--em-iterations must be >= 0, not {a.em_iterations}")
    st = build_source_cm(a.corpus, a.align, a.out, resolver, a.src, a.tgt, docs, a.em_iterations)
    print(f"{st.entries} entries from {st.triples} triples ({st.with_candidates} of {st.pronouns} pronouns "
          f"with antecedents, {st.unaligned} unaligned) -> {a.out}/cm.gz", file=sys.stderr)


def _build(a: argparse.Namespace) -> None:
    from cad.cm.build import build_cm
    from cad.core.shards import parallel_from_args

    from cad.core.errors import CadError

    if a.src in SOURCE_FEATURE_LANGUAGES:
        _build_source(a)
        return
    if a.em_iterations < 0:
        raise CadError(f"--em-iterations must be >= 0, not {a.em_iterations}")
    weights = {}
    for spec in a.domain_weight:
        prefix, sep, w = spec.partition("=")
        try:
            weights[prefix] = float(w)
        except ValueError:
            raise CadError(f"--domain-weight {spec!r}: expected PREFIX=W with a number W") from None
        if not sep or not prefix or not weights[prefix] >= 0:
            raise CadError(f"--domain-weight {spec!r}: expected PREFIX=W with W >= 0")
    st = build_cm(a.corpus, a.align, a.out, a.src, a.tgt, a.docs, a.coref, a.backend, a.humanness, a.single_best,
                  a.smoothing, a.em_iterations, weights, classifier=not a.no_classifier,
                  parallel=parallel_from_args(a))
    print(f"{st.entries} entries from {st.triples} triples ({st.with_candidates} of {st.pronouns} pronouns "
          f"with antecedents) -> {a.out}/cm.gz", file=sys.stderr)


def _show(a: argparse.Namespace) -> None:
    from cad.cm.build import show

    sys.stdout.write(show(a.table, a.top))


def _config(a: argparse.Namespace) -> None:
    from cad.cm.config import FEATURE_WEIGHT, write_cm_config, write_feature_config
    from cad.core.errors import CadError
    from cad.core.textio import is_stdio

    if a.mode == "feature":
        # the source-feature table (Spanish→English) has no APT credit matrix: it scores ln P(class)
        objective = "likelihood" if a.cm_model == "source-table" else a.objective
        write_feature_config(a.base, a.cm, a.out, FEATURE_WEIGHT if a.weight is None else a.weight, objective,
                             a.cm_model)
    elif a.cm_model != "table":
        raise CadError(f"--cm-model {a.cm_model} needs --mode feature (the back-off table is a phrase table)")
    else:
        write_cm_config(a.base, a.cm, a.out, 0.8 if a.weight is None else a.weight)
    if not is_stdio(a.out):
        print(a.out)


class MosesAdapter:
    """A real Moses binary behind the Decoder.translate interface, on the model filtered to the
    input: one persistent process serves the sentence-by-sentence passes (1-best), and
    `translate_all` runs one process over a whole pass (n-best lists)."""

    def __init__(self, binary: str, config: str, sentences: list[str], search_algorithm: int = 1):
        import tempfile
        from pathlib import Path

        from cad.moses.filter import filter_model

        self.binary = binary
        self._tmp = tempfile.TemporaryDirectory(prefix="cad-moses-model-")
        text = Path(self._tmp.name) / "input"
        text.write_text("".join(s + "\n" for s in sentences), encoding="utf-8")
        self.config = str(filter_model(config, text, Path(self._tmp.name) / "model").source)
        self.extra = ["-search-algorithm", str(search_algorithm)]   # as cad's decoder would search
        self._process = None

    def translate(self, sentence: str, nbest: int = 0, distinct: bool = False):
        if nbest:
            return self.translate_all([sentence], nbest, distinct)[0]
        from cad.decoder.moses_runner import MosesProcess

        if self._process is None:
            self._process = MosesProcess(self.binary, self.config, self.extra)
        return self._process.translate(sentence)

    def translate_all(self, sentences: list[str], nbest: int = 0, distinct: bool = False) -> list:
        from cad.decoder.moses_runner import run_moses

        return run_moses(self.binary, self.config, sentences, max(nbest, 1), distinct, self.extra) \
            if sentences else []

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
            self._process = None
        self._tmp.cleanup()


def translate_all(decoder, sentences: list[str], nbest: int = 0, distinct: bool = False) -> list:
    """One pass over independent sentences: a real Moses runs it as one process."""
    if hasattr(decoder, "translate_all"):
        return decoder.translate_all(sentences, nbest, distinct)
    return [decoder.translate(s, nbest=nbest, distinct=distinct) for s in sentences]


def feature_token_phrases(sentences: list[str]) -> list[str]:
    """The CM's feature tokens the input's pronouns may become: a model filtered to the input
    must keep their back-off entries."""
    from cad.cm.source_cm import bundle_vocabulary
    from cad.lang.en import CM_PRONOUNS
    from cad.lang.es import PRONOUNS as SPANISH_PRONOUNS

    extra = []
    for s in sentences:
        for tok in s.split():
            if tok.lower() in CM_PRONOUNS:
                for g in ("masc", "fem"):
                    for n in ("sing", "plur"):
                        extra.append(f"{tok.lower()}-{g}-{n}")
                        extra.append(f"{tok.lower()}-{g}-{n}-hum")
                        extra.append(f"{tok.lower()}-{g}-{n}-nonhum")
            elif tok.lower() in SPANISH_PRONOUNS:
                extra.extend(bundle_vocabulary([tok.lower()]))
    return extra


def model_truecaser(option: str, cfg, src: str) -> str | None:
    """The source truecasing model `--truecase-model` names: a file, "none", or "auto", the
    truecase-model.<src> that cad train --truecase writes beside the model's phrase table."""
    if option == "none":
        return None
    if option != "auto":
        return option
    from cad.corpus.truecase import model_truecase_file

    return model_truecase_file(cfg, src)


def load_decoder(config: str, sentences: list[str], decoder: str = "cad", moses_bin: str | None = None,
                 search_algorithm: int = 1, engine: str = "native"):
    wanted = sentences + [" ".join(feature_token_phrases(sentences))]
    if decoder == "moses":
        from cad.decoder.moses_runner import find_moses
        from cad.core.errors import CadError

        binary = find_moses(moses_bin)
        if binary is None:
            raise CadError("no Moses binary: give --moses-bin PATH, set $MOSES, or put moses on PATH")
        return MosesAdapter(binary, config, wanted, search_algorithm)
    import cad.cm.feature  # noqa: F401  (registers the CoreferenceModel a configuration may name)
    from cad.decoder import Decoder, DecoderModel, SearchSettings
    from cad.cli.decode import engine_is_native

    return Decoder(DecoderModel.load(config, input_sentences=wanted,
                                     settings=SearchSettings(search_algorithm=search_algorithm)),
                   native=engine_is_native(engine))


def _translate(a: argparse.Namespace) -> None:
    from cad.translate.analysis import analyse_with, onto_tokens, read_ahead, resolver_of, worker_pool
    from cad.translate.postedit import postedit_document
    from cad.core.errors import CadError
    from cad.translate.document import (TranslationMorphology, plain_traces, trace_json, translate_document,
                                  translate_document_feature)
    from cad.cm.config import CM_NAME
    from cad.moses.ini import parse_config
    from cad.corpus.prepare import Tokenizer, clean_tokens
    from cad.core.textio import atomic_output
    from coref.backends import documents, get_backend

    if a.read_ahead < 0:
        raise CadError(f"--read-ahead {a.read_ahead}: give 0 or more documents")
    docs = documents(a.input, a.docs)
    if a.raw:
        tok = Tokenizer(a.src)
        docs = [(d, [clean_tokens(tok(" ".join(s))) for s in sents]) for d, sents in docs]
    if a.no_lowercase and a.truecase_model not in ("auto", "none"):
        raise CadError(f"--no-lowercase gives the decoder the input as it is: it cannot be truecased with "
                       f"--truecase-model {a.truecase_model} too")
    cfg = parse_config(a.config)
    # coreference reads the text as written; the decoder reads it as its model was trained
    cased_docs = docs
    truecase_model = None if a.no_lowercase else model_truecaser(a.truecase_model, cfg, a.src)
    if truecase_model is not None:
        from cad.corpus.truecase import Truecaser

        truecaser = Truecaser(truecase_model)
        docs = [(d, [truecaser.truecase(s) for s in sents]) for d, sents in docs]
    elif not a.no_lowercase:
        docs = [(d, [[t.lower() for t in s] for s in sents]) for d, sents in docs]
    sentences = [" ".join(s) for _, sents in docs for s in sents]
    has_feature = any(f.type == "CoreferenceModel" for f in cfg.features)
    has_backoff = any(f.name == CM_NAME for f in cfg.features)
    mode = a.cm_mode
    if a.system == "cm":
        if mode == "auto":
            mode = "feature" if has_feature else "rerank" if a.classes else "backoff"
        if mode == "feature" and not has_feature:
            raise CadError(f"--cm-mode feature: {a.config} has no CoreferenceModel feature "
                           "(cad cm config --mode feature)")
        if mode == "backoff" and not has_backoff:
            raise CadError(f"--cm-mode backoff: {a.config} has no back-off CM table {CM_NAME} (cad cm config)")
        if mode == "rerank" and not a.classes:
            raise CadError("--cm-mode rerank needs --classes (tables/<name>/classes.gz)")
    if has_feature and a.decoder == "moses":
        raise CadError(f"{a.config} has a CoreferenceModel feature, which only cad's decoder has: "
                       "use --decoder cad, or --cm-mode rerank with the baseline moses.ini")
    source_features = a.src in SOURCE_FEATURE_LANGUAGES
    if source_features and a.system == "pe":
        raise CadError(f"--system pe post-edits French output; --src {a.src} has no post-editing rules")
    # spaCy's work runs in worker processes forked now, before the decoder's model is loaded (see
    # cad/translate/analysis.py): coreference and roles run ahead, the translations are tagged there
    make_resolver = functools.partial(get_backend, a.backend, corzu=a.corzu, docs=a.docs, n_lines=len(sentences),
                                      human_lexicon=a.human_lexicon, gender_lexicon=a.gender_lexicon) \
        if a.system != "baseline" or a.trace else None      # the baseline's trace reads coreference too
    feature_mode = a.system == "cm" and mode == "feature" and not source_features
    with contextlib.ExitStack() as workers:
        analysis_pool = tag_pool = None
        if make_resolver is not None and a.read_ahead > 0:
            analysis_pool = worker_pool()
            workers.callback(analysis_pool.shutdown, cancel_futures=True)
            if feature_mode:
                from cad.lang.fr_morph import load_tagger

                tag_pool = worker_pool()
                workers.callback(tag_pool.shutdown, cancel_futures=True)
                tag_pool.submit(load_tagger)        # loaded while the decoder's model loads
        elif make_resolver is not None:
            resolver_of(make_resolver)      # its errors (a missing file) before the model's long load
        morphology = TranslationMorphology(tag_pool)
        analysed = read_ahead(cased_docs, functools.partial(analyse_with, make_resolver, with_roles=feature_mode),
                              a.read_ahead, analysis_pool)
        decoder = load_decoder(a.config, sentences, a.decoder, a.moses_bin, a.search_algorithm, a.engine)
        if hasattr(decoder, "close"):
            workers.callback(decoder.close)
        reranker = None
        if a.system == "cm" and mode == "rerank" and source_features:
            from cad.cm.source_cm import SourceClassTable
            from cad.translate.source_rerank import SourceReranker

            reranker = SourceReranker(SourceClassTable.read(a.classes), a.cm_weight)
        elif a.system == "cm" and mode == "rerank":
            from cad.cm.class_classifier import load_pronoun_model
            from cad.translate.rerank import ClassReranker

            reranker = ClassReranker(load_pronoun_model(a.classes, a.cm_model), a.cm_weight, a.humanness,
                                     objective=a.objective)
        t = time.time()
        outputs: list[str] = []
        alignments: list[str] = []
        traces = []
        # the passes whose sentences do not wait for each other go whole to the decoder (a real
        # Moses runs each as one process): reranking's n-best lists, the baseline and PE's input
        one_pass = None
        if a.system == "cm" and mode == "rerank":
            one_pass = iter(translate_all(decoder, sentences, a.nbest, True))
        elif a.system != "cm":
            one_pass = iter(translate_all(decoder, sentences))
        for (doc_id, _, analysis), (_, sents) in zip(analysed, docs):
            recs = onto_tokens(analysis.records, sents, doc_id)
            if a.system == "cm" and mode == "rerank":
                from cad.translate.rerank import Hypothesis

                trs = [next(one_pass) for _ in sents]
                hyps = [[Hypothesis(list(d.words), d.total, d.word_alignment) for d in (tr.nbest or [tr.best])]
                        for tr in trs]
                chosen, _ = reranker.rerank_document(hyps, recs) if source_features \
                    else reranker.rerank_document(hyps, recs, sents)
                outputs.extend(" ".join(h.words) for h in chosen)
                alignments.extend(" ".join(f"{i}-{j}" for i, j in h.alignment) for h in chosen)
                continue
            if a.system == "cm" and source_features:
                from cad.cm.source_cm import translate_document_source, translate_document_source_feature

                translate_doc = translate_document_source_feature if mode == "feature" else translate_document_source
                trs, tr_records = translate_doc(decoder, doc_id, sents, recs)
                traces.extend(tr_records)
                outputs.extend(tr.text for tr in trs)
            elif a.system == "cm" and mode == "feature":
                trs, tr_records = translate_document_feature(decoder, doc_id, sents, recs, a.humanness,
                                                             roles=analysis.roles, morphology=morphology)
                traces.extend(tr_records)
                outputs.extend(tr.text for tr in trs)
            elif a.system == "cm":
                trs, tr_records = translate_document(decoder, doc_id, sents, recs, a.humanness)
                traces.extend(tr_records)
                outputs.extend(tr.text for tr in trs)
            else:
                trs = [next(one_pass) for _ in sents]
            alignments.extend(" ".join(f"{i}-{j}" for i, j in tr.best.word_alignment) for tr in trs)
            if a.system != "cm":
                words = None
                if a.system == "pe":
                    words, edits = postedit_document(trs, recs)
                    outputs.extend(" ".join(w) for w in words)
                else:
                    outputs.extend(tr.text for tr in trs)
                if a.trace and not source_features:
                    traces.extend(plain_traces(doc_id, sents, trs, recs, words))
        if truecase_model is not None and (a.raw or a.detokenize):
            from cad.corpus.truecase import detruecase

            outputs = [" ".join(detruecase(o.split())) for o in outputs]
        if a.detokenize or a.raw:
            from sacremoses import MosesDetokenizer

            md = MosesDetokenizer(lang=a.tgt)
            outputs = [md.detokenize(o.split()) for o in outputs]
        with atomic_output(a.out) as fh:
            fh.writelines(o + "\n" for o in outputs)
        if a.alignment_out:
            # source-to-translation word alignment (token positions of the input, before detokenizing)
            with atomic_output(a.alignment_out) as fh:
                fh.writelines(x + "\n" for x in alignments)
        if a.trace:
            with atomic_output(a.trace) as fh:
                fh.writelines(trace_json(tr) + "\n" for tr in traces)
        print(f"translated {len(sentences)} sentences in {time.time() - t:.1f} s", file=sys.stderr)


def _postedit(a: argparse.Namespace) -> None:
    from cad.core.alignment import parse_alignment
    from cad.translate.postedit import postedit_document
    from cad.decoder.search import Derivation, Translation
    from cad.core.errors import CadError
    from cad.core.textio import atomic_output, read_lines
    from coref.backends import documents, get_backend

    docs = documents(a.source, a.docs)
    hyp = [l.split() for l in read_lines(a.translation)]
    al = list(read_lines(a.alignment))
    n = sum(len(s) for _, s in docs)
    for path, count in ((a.translation, len(hyp)), (a.alignment, len(al))):
        if count != n:
            raise CadError(f"has {count} lines but the source {a.source} has {n} sentences", path, min(count, n) + 1)
    resolver = get_backend(a.backend)
    out, k, n_edits = [], 0, 0
    for doc_id, sents in docs:
        low = [[t.lower() for t in s] for s in sents]
        trs = []
        for s in low:
            pts = parse_alignment(al[k], len(s), len(hyp[k]), a.alignment, k + 1)
            trs.append(Translation(s, Derivation(hyp[k], 0.0, [], [], given_alignment=pts)))
            k += 1
        words, edits = postedit_document(trs, resolver.resolve(doc_id, low))
        n_edits += len(edits)
        out.extend(" ".join(w) for w in words)
    with atomic_output(a.out) as fh:
        fh.writelines(o + "\n" for o in out)
    print(f"{n_edits} pronouns post-edited", file=sys.stderr)


def _rerank(a: argparse.Namespace) -> None:
    import json

    from cad.translate.rerank import Reranker, read_cm_table, read_nbest
    from cad.core.errors import CadError
    from cad.core.textio import atomic_output
    from coref.backends import documents, get_backend
    from coref.records import read_jsonl

    docs = documents(a.input, a.docs)
    nbests = read_nbest(a.nbest)
    n_sent = sum(len(s) for _, s in docs)
    if len(nbests) != n_sent:
        raise CadError(f"the n-best list covers {len(nbests)} sentences, the input has {n_sent}", a.nbest)
    if a.coref:
        by_doc: dict = {}
        for r in read_jsonl(a.coref):
            by_doc.setdefault(r.doc, []).append(r)
        records = lambda doc_id, sents: by_doc.get(doc_id, [])          # noqa: E731
    else:
        resolver = get_backend(a.backend)
        records = resolver.resolve
    reranker = Reranker(read_cm_table(a.cm), a.weight, a.humanness)
    outputs, traces, alignments = [], [], []
    first = 0
    for doc_id, sents in docs:
        chosen, tr = reranker.rerank_document(nbests[first:first + len(sents)], records(doc_id, sents))
        outputs.extend(" ".join(h.words) for h in chosen)
        alignments.extend(" ".join(f"{i}-{j}" for i, j in h.alignment) for h in chosen)
        traces.extend({"doc": doc_id, "sentence": t.sentence, "chosen": t.chosen,
                       "cm": [round(x, 4) for x in t.cm_scores]} for t in tr)
        first += len(sents)
    with atomic_output(a.out) as fh:
        fh.writelines(o + "\n" for o in outputs)
    if a.trace:
        with atomic_output(a.trace) as fh:
            fh.writelines(json.dumps(t, sort_keys=True) + "\n" for t in traces)
    if a.alignment_out:
        with atomic_output(a.alignment_out) as fh:
            fh.writelines(x + "\n" for x in alignments)
    moved = sum(1 for t in traces if t["chosen"] != 0)
    print(f"{moved} of {len(traces)} sentences changed their 1-best", file=sys.stderr)


def _experiment_source(a: argparse.Namespace) -> None:
    import cad.cm.feature  # noqa: F401  (registers the CoreferenceModel a configuration may name)
    from cad.experiments.es_en import run_source_experiment
    from cad.core.errors import CadError
    from cad.lang import en, es
    from cad.core.textio import count_lines
    from coref.spanish.corzu import CorzuResolver

    def parse_grid(text: str, option: str) -> tuple[float, ...]:
        try:
            return tuple(float(x) for x in text.split(","))
        except ValueError:
            raise CadError(f"{option} {text!r}: expected comma-separated numbers") from None
    grid, feature_grid = parse_grid(a.grid, "--grid"), parse_grid(a.feature_grid, "--feature-grid")
    rerank_grid = parse_grid(a.rerank_grid, "--rerank-grid") if a.rerank_grid else ()
    if a.nbest < 1:
        raise CadError(f"--nbest must be at least 1, not {a.nbest}")
    if a.folds < 2:
        raise CadError("--folds must be at least 2")
    for option, value, least in (("--mert-iterations", a.mert_iterations, 0), ("--mert-nbest", a.mert_nbest, 1),
                                 ("--workers", a.workers, 1)):
        if value < least:
            raise CadError(f"{option} must be at least {least}, not {value}")
    corzu = CorzuResolver(a.corzu, a.docs, count_lines(a.source), lexicon=_lexicon(a.human_lexicon),
                          genders=_genders(a.gender_lexicon))
    if a.backend == "spanish":
        from coref.spanish.resolver import SpanishResolver

        resolver = SpanishResolver(lexicon=a.human_lexicon or "model", genders=_genders(a.gender_lexicon))
    else:
        resolver = corzu
    # the pronouns scored are CorZu's whichever resolver feeds the CM, so that runs compare
    report = run_source_experiment(a.config, a.cm, a.source, a.reference, a.align_ref, a.docs, resolver,
                                   en.apt_settings(), es.UNAMBIGUOUS, a.out, grid, a.folds, a.classes, feature_grid,
                                   scored=corzu, rerank_grid=rerank_grid, nbest=a.nbest,
                                   mert_iterations=a.mert_iterations, mert_nbest=a.mert_nbest, workers=a.workers)
    print(f"report: {a.out}.md, {a.out}.json ({report['seconds']['total (this run)']:.0f} s)", file=sys.stderr)


def _experiment(a: argparse.Namespace) -> None:
    import cad.cm.feature  # noqa: F401  (registers the CoreferenceModel a configuration may name)
    from cad.experiments.pronoun_eval import parse_systems, run_experiment
    from cad.core.errors import CadError
    from cad.eval.report import to_markdown

    try:
        grid = tuple(float(x) for x in a.grid.split(","))
    except ValueError:
        raise CadError(f"--grid: {a.grid!r} is not a comma-separated list of numbers") from None
    systems = None if a.systems is None else parse_systems(a.systems)
    report = run_experiment(a.config, a.classes, a.cm, a.source, a.reference, a.align_ref, a.docs, a.gold, a.out,
                            grid, a.workers, a.nbest, a.folds, systems=systems, objective=a.objective,
                            coref_records=a.coref, mert_iterations=a.mert_iterations, mert_nbest=a.mert_nbest,
                            mert_cm_weight=a.mert_cm_weight, classifier=a.classifier)
    sys.stdout.write(to_markdown(report))


def _score(a: argparse.Namespace) -> None:
    import cad.cm.feature  # noqa: F401  (registers the CoreferenceModel a configuration may name)
    from cad.experiments.contrastive import ContextScorer, read_suite, score_suite
    from cad.decoder import Decoder, DecoderModel, SearchSettings
    from cad.core.textio import atomic_output
    from coref.backends import get_backend

    items = read_suite(a.suite)
    sentences = [" ".join(x.lower().split()) for it in items for x in [s for s, _ in it.context] + [it.source]]
    model = DecoderModel.load(a.config, input_sentences=sentences, settings=SearchSettings(search_algorithm=0))
    scorer = ContextScorer(Decoder(model), get_backend(a.backend, gold=a.gold), a.humanness)
    results, summary = score_suite(scorer, items)
    with atomic_output(a.out) as fh:
        fh.write("id\tmethod\tbest\tcorrect\tright\tscores\tclasses\n")
        for r in results:
            fh.write(f"{r.id}\t{r.method}\t{r.best}\t{'' if r.correct is None else r.correct}\t"
                     f"{'' if r.right is None else int(r.right)}\t{','.join(f'{x:.4f}' for x in r.scores)}\t"
                     f"{'|'.join(r.classes)}\n")
    print(f"{summary['judged']} judged items: accuracy {summary['accuracy']:.3f} "
          f"({summary['forced']} forced, {summary['fallback']} by the fallback)", file=sys.stderr)


def add_cm_parsers(sub) -> None:
    from cad.core.cliargs import add_input_argument as add_in, add_output_argument as add_out

    s = sub.add_parser("postedit", help="the PE baseline: make il/elle, ils/elles agree with the antecedent")
    add_in(s, "--source", required=True, help="tokenized source")
    add_in(s, "--docs", help="document boundaries of --source (first_line<TAB>doc_id; default: one document)")
    add_in(s, "--translation", required=True, help="baseline translation (tokenized)")
    add_in(s, "--alignment", required=True, help="source-translation alignment (cad translate --alignment-out)")
    s.add_argument("--backend", default=DEFAULT_BACKEND, choices=BACKENDS,
                   help=f"coreference backend (default: {DEFAULT_BACKEND})")
    add_out(s, "--out", required=True, help="the post-edited translation")
    s.set_defaults(func=_postedit)

    p = sub.add_parser("cm", help="the Coreference Model: build, show, configure")
    cs = p.add_subparsers(dest="cm_command", metavar="ACTION", required=True)
    s = cs.add_parser("build", help="build tables/<name>/cm.gz from a word-aligned corpus with documents")
    s.add_argument("--corpus", required=True, help="prefix: PREFIX.<src>, PREFIX.<tgt>, PREFIX.docs")
    add_in(s, "--align", required=True, help="source-target alignment (Moses i-j)")
    s.add_argument("--docs", help="document boundaries of the corpus (default: PREFIX.docs if it exists)")
    s.add_argument("--src", default="en", help="source language, the corpus suffix (default: %(default)s)")
    s.add_argument("--tgt", default="fr", help="target language, the corpus suffix (default: %(default)s)")
    add_in(s, "--coref", help="pronoun records (cad coref output); default: run --backend")
    s.add_argument("--backend", default=DEFAULT_BACKEND, choices=BACKENDS,
                   help=f"coreference backend (default: {DEFAULT_BACKEND})")
    add_in(s, "--corzu", help="--src es --backend corzu: CorZu's pronoun records of the corpus (corzu.*.jsonl[.gz]); "
                              "PREFIX.lines, where cad prepare wrote it, maps them onto the kept lines")
    _add_spanish_lexicons(s, add_in)
    s.add_argument("--humanness", action="store_true", help="add source-side humanness to the bundles (seed 003)")
    s.add_argument("--single-best", action="store_true", help="only the best antecedent, score 1 (seed 004)")
    s.add_argument("--smoothing", choices=("none", "witten-bell"), default="none",
                   help="none: relative frequencies (seed 004); witten-bell: interpolate with coarser bundles "
                        "(it-fem-sing -> it-sing -> it) and write every gender/number combination "
                        "(default: none)")
    s.add_argument("--domain-weight", action="append", default=[], metavar="PREFIX=W",
                   help="class table: pronouns of documents whose id starts with PREFIX: count W times "
                        "(repeatable; e.g. sated=3 for the TED part of the shared corpus; default: all 1)")
    s.add_argument("--em-iterations", type=int, default=5,
                   help="classes.gz: EM iterations over each pronoun's latent antecedent bundle (default 5; "
                        "0: seed 003's expected counts under the coreference's weights)")
    s.add_argument("--no-classifier", action="store_true",
                   help="skip the classifier CM (classifier.json: P(class | source words, antecedent features), "
                        "a logistic regression over the same instances; default: trained, about a minute)")
    s.add_argument("--out", required=True, help="output directory, e.g. tables/baseline")
    from cad.cm.collect import DEFAULT_SHARD_LINES
    from cad.core.shards import add_parallel_arguments

    add_parallel_arguments(s, DEFAULT_SHARD_LINES, " (they collect the triples and class instances; the tables "
                           "are estimated in this process; --src es builds in this process)")
    s.set_defaults(func=_build)
    s = cs.add_parser("show", help="most likely translations per feature bundle")
    add_in(s, "table", help="a CM table: back-off (cm.gz) or class table (classes.gz)")
    s.add_argument("--top", type=int, default=5, help="translations shown per bundle (default: %(default)s)")
    s.set_defaults(func=_show)
    s = cs.add_parser("config", help="moses.ini with the CM: back-off table or decoder feature")
    s.add_argument("--base", required=True, help="the baseline moses.ini")
    s.add_argument("--cm", required=True,
                   help="backoff: the CM table (tables/<name>/cm.gz); feature: the class table (classes.gz), or "
                        "with --cm-model classifier the classifier CM (classifier.json)")
    s.add_argument("--cm-model", choices=CM_MODELS, default="table",
                   help="feature: the pronoun model the CoreferenceModel reads, the class table (default), the "
                        "classifier CM (source words and antecedent features), or source-table: the Spanish→English "
                        "class table of cad cm build --src es (bundles of the source antecedent's features)")
    s.add_argument("--mode", choices=("backoff", "feature"), default="backoff",
                   help="backoff: seed 004's second table for feature tokens; feature: a CoreferenceModel "
                        "feature scoring every option that translates it/they (default: backoff)")
    s.add_argument("--weight", type=float, help="the CM's weight (default 0.8 backoff, 3 feature)")
    s.add_argument("--objective", choices=OBJECTIVES, default="credit",
                   help="feature: score ln of the option's expected APT credit (credit, default) or ln P(class) "
                        "(likelihood)")
    add_out(s, "--out", required=True, help="the new moses.ini")
    s.set_defaults(func=_config)

    s = cs.add_parser("rerank", help="rerank a Moses n-best list (any decoder) with the Coreference Model")
    add_in(s, "--nbest", required=True,
           help="distinct n-best list with word alignments (-include-alignment-in-n-best), ids 0..N-1")
    add_in(s, "--input", required=True, help="the tokenized source the list translates")
    add_in(s, "--docs", help="document boundaries of --input")
    add_in(s, "--coref", help="pronoun records (cad coref output); default: run --backend")
    s.add_argument("--backend", default=DEFAULT_BACKEND, choices=BACKENDS,
                   help=f"coreference backend when no --coref is given (default: {DEFAULT_BACKEND})")
    s.add_argument("--cm", required=True, help="the CM table (tables/<name>/cm.gz)")
    s.add_argument("--weight", type=float, default=0.1,
                   help="lambda_CM, added to the decoder's total times the CM log-probability (default 0.1)")
    s.add_argument("--humanness", action="store_true", help="the CM's bundles carry humanness")
    add_out(s, "--out", required=True, help="the reranked 1-best translations")
    add_out(s, "--trace", help="JSON line per sentence: chosen rank and each hypothesis's CM score")
    add_out(s, "--alignment-out", help="source-translation word alignment of the chosen hypotheses")
    s.set_defaults(func=_rerank)

    s = cs.add_parser("experiment", help="every pronoun system on dev talks, tuned and reported on folds by talk")
    s.add_argument("--config", required=True, help="the baseline moses.ini (filtered to --source saves memory)")
    s.add_argument("--classes", required=True, help="the class CM (tables/<name>/classes.gz)")
    s.add_argument("--cm", required=True, help="the back-off CM table (tables/<name>/cm.gz)")
    s.add_argument("--classifier", help="the classifier CM for 'CM-feature, classifier' (default: classifier.json "
                                        "beside --classes)")
    s.add_argument("--source", required=True, help="tokenized source (lowercased here)")
    s.add_argument("--reference", required=True, help="tokenized reference translation")
    s.add_argument("--align-ref", required=True, help="source-reference word alignment")
    s.add_argument("--docs", required=True, help="document boundaries of --source")
    s.add_argument("--gold", help="gold coreference of the source (ParCorFull MMAX2 directory): adds the oracles")
    s.add_argument("--grid", default="0.1,0.3,1,3",
                   help="comma-separated CM weights tried on each tuning fold (default: %(default)s)")
    s.add_argument("--folds", type=int, default=2, help="folds by document (default 2)")
    s.add_argument("--nbest", type=int, default=30, help="distinct n-best size for CM-rerank (default 30)")
    s.add_argument("--systems", help="comma-separated subset of: BL, PE, CM-backoff, 'CM-feature, no coreference', "
                                     "CM-feature, 'CM-feature, classifier', CM-rerank, 'oracle: gold coref', 'oracle: gold coref + ref. "
                                     "features', 'BL, MERT', 'CM-feature, MERT' (default: all; the MERT ones only "
                                     "with --mert-iterations)")
    s.add_argument("--mert-iterations", type=int, default=0,
                   help="add BL and CM-feature with all weights tuned by MERT (BLEU) on the tuning folds, the CM in "
                        "document context, each with at most this many decoder runs per fold (default 0: not run)")
    s.add_argument("--mert-nbest", type=int, default=100, help="n-best size of those MERT runs (default 100)")
    s.add_argument("--mert-cm-weight", type=float, default=3.0, help="the CM weight MERT starts from (default 3)")
    s.add_argument("--workers", type=int, default=2, help="decoding processes (default: %(default)s)")
    s.add_argument("--objective", choices=OBJECTIVES, default="credit",
                   help="the class CM's score: ln of the expected APT credit (default) or ln P(class)")
    s.add_argument("--coref", help="the ranker's coreference records for --source (JSON Lines, e.g. cad coref-eval "
                                   "--cv-folds K --out): default, the shipped ranker, which trained on ParCorFull TED")
    s.add_argument("--out", required=True, help="report prefix: PREFIX.md, PREFIX.json, PREFIX.png, PREFIX.work/")
    s.set_defaults(func=_experiment)

    s = cs.add_parser("experiment-source", help="Spanish→English: BL against seed 003's back-off CM on a dev "
                                                "split with CorZu antecedents, tuned and reported on folds by document")
    s.add_argument("--config", required=True, help="the baseline es-en moses.ini")
    s.add_argument("--cm", required=True, help="the source-feature CM table (cad cm build --src es: tables/<name>/cm.gz)")
    add_in(s, "--source", required=True, help="tokenized, lowercased Spanish source")
    add_in(s, "--reference", required=True, help="tokenized, lowercased English reference")
    add_in(s, "--align-ref", required=True, help="source-reference word alignment (Moses i-j)")
    add_in(s, "--docs", required=True, help="document boundaries of the source (first_line<TAB>doc_id)")
    add_in(s, "--corzu", required=True, help="CorZu's pronoun records for the source (corzu.dev.jsonl)")
    _add_spanish_lexicons(s, add_in)
    s.add_argument("--grid", default="0.3,0.8,2",
                   help="back-off CM table weights tried, comma-separated (default: %(default)s)")
    s.add_argument("--classes", help="the class table of cad cm build --src es (tables/<name>/classes.gz): adds "
                                     "CM-feature, the CoreferenceModel decoder feature over the whole phrase table")
    s.add_argument("--feature-grid", default="0.3,1,3",
                   help="CM-feature weights tried, comma-separated (default: %(default)s)")
    s.add_argument("--rerank-grid", default="0.3,1,3,10",
                   help="CM-rerank weights tried, comma-separated; empty: no CM-rerank (default: %(default)s)")
    s.add_argument("--nbest", type=int, default=30,
                   help="CM-rerank: distinct translations per sentence in BL's n-best lists (default: %(default)s)")
    s.add_argument("--folds", type=int, default=2, help="folds by document (default: %(default)s)")
    s.add_argument("--mert-iterations", type=int, default=0,
                   help="MERT the base weights on each fold's tuning documents, at most N decoder runs, and "
                        "translate the fold with them, every system alike; 0: the base moses.ini's weights "
                        "(default: %(default)s)")
    s.add_argument("--mert-nbest", type=int, default=100,
                   help="n-best list size of the MERT runs (default: %(default)s)")
    s.add_argument("--workers", type=int, default=1,
                   help="decoding processes of the MERT runs (same result whatever the number) (default: %(default)s)")
    s.add_argument("--backend", choices=("corzu", "spanish"), default="corzu",
                   help="the antecedents the CM reads: CorZu's records, or the native resolver's (use the same "
                        "as cad cm build); the pronouns scored are CorZu's either way (default: %(default)s)")
    s.add_argument("--out", required=True, help="report prefix: OUT.json, OUT.md, OUT.<system>.txt, OUT.work/")
    s.set_defaults(func=_experiment_source)

    s = sub.add_parser("score", help="score given translations in context (contrastive suites) under the model")
    s.add_argument("--config", required=True, help="moses.ini with a CoreferenceModel feature (cad cm config --mode feature)")
    add_in(s, "--suite", required=True,
                   help="JSON lines: {\"context\": [{\"source\", \"target\"}], \"source\", \"targets\", \"correct\"} "
                        "(tokenized; e.g. cad/data/contrastive-en-fr.jsonl)")
    s.add_argument("--backend", default=DEFAULT_BACKEND, choices=BACKENDS,
                   help=f"coreference backend (default: {DEFAULT_BACKEND})")
    s.add_argument("--gold", help="gold annotation for --backend gold")
    s.add_argument("--humanness", action="store_true", help="the class CM's bundles carry humanness")
    add_out(s, "--out", default="-", help="one TSV line per item")
    s.set_defaults(func=_score)

    s = sub.add_parser("translate", help="coreference-aware document translation (and the BL/PE baselines)")
    s.add_argument("--config", required=True,
                   help="moses.ini; for --system cm with the CM as back-off table or CoreferenceModel feature "
                        "(cad cm config --mode), which decides the mode")
    add_in(s, "--input", required=True, help="source text, one sentence per line")
    add_in(s, "--docs", help="document boundaries (first_line<TAB>doc_id; default: one document)")
    s.add_argument("--raw", action="store_true",
                   help="raw text in, text to read out: the input is tokenized, the output detruecased (with "
                        "--truecase-model) and detokenized")
    s.add_argument("--no-lowercase", action="store_true",
                   help="give the decoder the input's case as it is (default: lowercased, as a model trained "
                        "with cad train's default)")
    s.add_argument("--truecase-model", default="auto",
                   help="the source side's truecasing model of a model trained on truecased text (cad train "
                        "--truecase, cad truecase train): the input is truecased instead of lowercased, and the "
                        "output detruecased with --raw or --detokenize; auto: truecase-model.<src> beside the "
                        "config's first phrase table when there is one; none: lowercase (default: %(default)s)")
    s.add_argument("--src", default="en", choices=("en", "es"),
                   help="source language (default: %(default)s); es: the CM's bundles carry the Spanish "
                        "antecedent's own gender, number and humanness (seed 003; --cm-mode backoff)")
    s.add_argument("--tgt", default="fr", help="target language, for --detokenize (default: %(default)s)")
    s.add_argument("--system", choices=["cm", "baseline", "pe"], default="cm",
                   help="cm: the Coreference Model (see --cm-mode); baseline: the decoder alone; pe: the baseline "
                        "post-edited to agree with the antecedents (default: %(default)s)")
    s.add_argument("--cm-mode", choices=["auto", "backoff", "feature", "rerank"], default="auto",
                   help="backoff: seed 004's back-off table in --config; feature: the CoreferenceModel feature "
                        "in --config; rerank: decode --config's n-best lists and rerank them with --classes "
                        "(works with --decoder moses); auto (default): feature if --config has it, rerank if "
                        "--classes is given, else backoff")
    s.add_argument("--classes", help="the class CM (tables/<name>/classes.gz) for --cm-mode rerank, or with "
                                     "--cm-model classifier the classifier CM (classifier.json)")
    s.add_argument("--cm-model", choices=CM_MODELS, default="table",
                   help="--cm-mode rerank: the pronoun model --classes holds (default: table)")
    s.add_argument("--cm-weight", type=float, default=1.0, help="lambda_CM for --cm-mode rerank (default 1)")
    s.add_argument("--objective", choices=OBJECTIVES, default="credit",
                   help="--cm-mode rerank: the class CM's score, ln expected APT credit (default) or ln P(class)")
    s.add_argument("--nbest", type=int, default=30, help="distinct n-best size for --cm-mode rerank (default 30)")
    s.add_argument("--backend", default=DEFAULT_BACKEND, choices=BACKENDS,
                   help=f"coreference backend (default: {DEFAULT_BACKEND})")
    add_in(s, "--corzu", help="--backend corzu: CorZu's pronoun records for --input (corzu.*.jsonl), "
                              "with --docs")
    _add_spanish_lexicons(s, add_in)
    s.add_argument("--humanness", action="store_true", help="the CM's bundles carry source-side humanness")
    add_out(s, "--trace", help="one JSON line per pronoun (antecedent, features or bundles, target); for "
                               "--system baseline and pe too (antecedent and target, to compare systems "
                               "pronoun by pronoun)")
    s.add_argument("--detokenize", action="store_true",
                   help="detokenize the output (sacremoses, --tgt's rules; implied by --raw)")
    add_out(s, "--alignment-out", help="write the source-translation word alignment (Moses i-j)")
    s.add_argument("--decoder", choices=["cad", "moses"], default="cad",
                   help="cad's decoder, or a real Moses binary (not with a CoreferenceModel feature) "
                        "(default: %(default)s)")
    s.add_argument("--moses-bin", help="the Moses binary (default: $MOSES or moses on PATH)")
    s.add_argument("--engine", choices=("native", "python"), default="native",
                   help="cad's search: the compiled core (native, default; needs the built extension) or the "
                        "Python reference (the same output, several times slower)")
    s.add_argument("--search-algorithm", type=int, choices=[0, 1], default=1,
                   help="0 normal stack search, 1 cube pruning (default: 1, as documents are long)")
    s.add_argument("--read-ahead", type=int, default=2, metavar="N",
                   help="resolve coreference in a background thread up to N documents ahead of the decoder "
                        "(the same output; 0: each document when it is reached) (default: %(default)s)")
    add_out(s, "--out", default="-", help="the translation")
    s.set_defaults(func=_translate)
