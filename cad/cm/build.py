"""`cad cm build`: the Coreference Model from a word-aligned parallel corpus with documents.

For every source *it*/*they* with candidate antecedents, each candidate is projected through the
alignment; the first noun or pronoun among its aligned target words gives the gender and number
(the morphology of the pair's target, cad/lang/pairs.py), which with the source pronoun (and,
optionally, source-side humanness) form a feature bundle. The target words aligned to the pronoun,
the bundle and the candidate's probability form a triple; then P(target | bundle) = Σ score(bundle, target) / Σ score(bundle), and
entries below 1e-5 are dropped (seed 004 §3.2, seed 003 §3.1). That table, cm.gz, is the
back-off mode's second translation table.

The collection lives in cad/cm/collect.py, the back-off table's estimation in
cad/cm/backoff_table.py. Beside it, classes.gz holds the class CM of the decoder feature and the reranker
(cad/cm/class_model.py): every *it*/*they*, with its role and its anaphoricity, counted
against the class of its aligned target words, Witten-Bell smoothed, the latent bundle of each
pronoun re-weighted by EM; other-words.gz, the words of the class OTHER (cad/cm/other_words.py).
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict
from pathlib import Path

from cad.cm.backoff_table import MIN_PROB, SMOOTHING, estimate, estimate_witten_bell, table_lines, write_table
from cad.cm.class_classifier import MODEL_FILE, train_classifier
from cad.cm.class_model import ClassTable
from cad.cm.collect import CMStats, Collection, collect_in_process, collect_in_shards
from cad.cm import source_table
from cad.cm.construction import cm_parts, governors_read
from cad.cm.other_words import OTHER_WORDS_FILE, OtherWords, count_words
from cad.core.docs import DocStart, read_docs
from cad.core.errors import CadError
from cad.core.shards import Parallel, ShardStore
from cad.core.progress import progress
from cad.core.aligned_docs import aligned_documents
from cad.core.textio import atomic_output, count_lines
from cad.defaults import COREF_BACKEND
from cad.lang.pairs import Pair, pair as language_pair

log = logging.getLogger(__name__)


def build_cm(corpus: str, align: str, out_dir: str | os.PathLike, src_lang: str = "en", tgt_lang: str = "fr",
             docs: str | None = None, coref: str | None = None, backend: str = COREF_BACKEND, with_human: bool = False,
             single_best: bool = False, smoothing: str = "none", em_iterations: int = 5,
             domain_weights: dict[str, float] | None = None, classifier: bool = True,
             parallel: Parallel | None = None, resolver=None,
             factor: bool = False) -> CMStats | source_table.SourceCMStats:
    """`smoothing` (cm.gz): "none" (seed 004: relative frequencies) or "witten-bell" (back-off to
    coarser bundles). `em_iterations` (classes.gz): EM over each pronoun's latent bundle; 0 keeps
    seed 003's expected counts under the coreference's own weights. `domain_weights` (classes.gz):
    {id prefix: w}, the pronouns of a document whose id starts with `prefix:` count w times (the
    class CM's register follows its data: TED speakers say *ça* where news writes *il*).
    `factor` (classes.gz): a gendered bundle's class as its form times its gender and number
    (cad/cm/factored.py). `classifier`: also train the classifier CM on the same instances (classifier.json).
    `parallel`: collect the triples and instances in shards of documents (kept in OUT/cm.gz.shards/
    until the tables are written, so that a rerun resumes from them), the same tables again; None:
    in this process, without shards. The pair `src_lang`-`tgt_lang` (cad/lang/pairs.py) gives every
    fact of the two languages; where its source states the antecedents' features (Spanish), the
    bundles are those (cad/cm/source_table.py), read from `resolver` (a backend that gives them:
    corzu, spanish) with `docs` and `em_iterations`, the other options being the projection's."""
    pair = language_pair(src_lang, tgt_lang)
    if pair.source_features:
        return build_source_marked(corpus, align, out_dir, pair, resolver, docs, em_iterations)
    if smoothing not in SMOOTHING:
        raise CadError(f"unknown smoothing {smoothing!r} (choose from {', '.join(SMOOTHING)})")
    out_dir = Path(out_dir)
    docs = docs or (f"{corpus}.docs" if Path(f"{corpus}.docs").exists() else None)
    n_lines = count_lines(f"{corpus}.{src_lang}")
    doc_starts = read_docs(docs, n_lines) if docs else []
    domain_weights = dict(domain_weights or {})
    _check_domain_weights(domain_weights, docs, doc_starts)
    doc_ids = [(d.first_line, d.doc_id) for d in doc_starts] if docs else None
    store = None
    if parallel is None:
        acc = collect_in_process(corpus, align, src_lang, tgt_lang, docs, doc_ids, coref, backend, with_human,
                                 single_best, domain_weights, pair)
    else:
        store = ShardStore.beside(out_dir / "cm.gz")
        acc = collect_in_shards(corpus, align, src_lang, tgt_lang, doc_ids, n_lines, coref, backend, with_human,
                                single_best, domain_weights, parallel, store, pair)
    stats = acc.stats
    model = estimate(acc.triples) if smoothing == "none" else estimate_witten_bell(acc.triples, with_human)
    lines = table_lines(model, stats)
    if not lines:
        raise CadError("no coreference triple could be collected: is the corpus aligned and does it contain it/they?")
    out_dir.mkdir(parents=True, exist_ok=True)
    write_table(lines, out_dir / "cm.gz")
    provenance = {"corpus": str(corpus), "source": f"{corpus}.{src_lang}", "target": f"{corpus}.{tgt_lang}",
                  "alignment": str(align), "documents": docs, "coreference": coref or f"backend:{backend}",
                  "pair": pair.name,
                  "humanness": with_human, "single_best": single_best, "min_probability": MIN_PROB,
                  "smoothing": smoothing, "class_em_iterations": em_iterations,
                  "class_table": "factored" if factor else "joint",
                  "class_domain_weights": domain_weights, "cm_parts": sorted(cm_parts()),
                  "situation_governors": governors_read(), "counts": asdict(stats)}
    _write_class_models(acc, out_dir, em_iterations, classifier, provenance, pair, factor)
    with atomic_output(out_dir / "provenance.json") as fh:
        json.dump(provenance, fh, indent=2, sort_keys=True)
        fh.write("\n")
    if store is not None:
        store.remove()
    log.info("CM: %d entries for %d bundles from %d triples", stats.entries, len(model), stats.triples)
    return stats


def _check_domain_weights(domain_weights: dict[str, float], docs: str | None, doc_starts: list[DocStart]) -> None:
    for prefix, w in domain_weights.items():
        if not w >= 0:
            raise CadError(f"domain weight {prefix}={w} must be >= 0")
        if docs and not any(d.doc_id.startswith(prefix + ":") for d in doc_starts):
            raise CadError(f"domain weight {prefix}={w}: no document id starts with {prefix + ':'!r}", docs)


def _write_class_models(acc: Collection, out_dir: Path, em_iterations: int, classifier: bool,
                        provenance: dict, pair: Pair, factor: bool = False) -> None:
    """classes.gz and other-words.gz (cad/cm/other_words.py), and with `classifier` classifier.json
    (its settings go into `provenance`)."""
    ClassTable.estimate_em(acc.instances, em_iterations, pair, factor).write(out_dir / "classes.gz")
    words = count_words(acc.instances, acc.words)
    if words:
        OtherWords(words).write(out_dir / OTHER_WORDS_FILE)
    else:
        (out_dir / OTHER_WORDS_FILE).unlink(missing_ok=True)      # not an earlier build's
    provenance["other_words"] = sum(1 for w in acc.words if w)
    if not classifier:
        return
    clf = train_classifier([(m, c, w, toks, i) for (m, c, w), (toks, i) in zip(acc.instances, acc.positions)],
                           acc.halves, em_iterations, pair=pair, factor_table=factor)
    clf.meta["cm_parts"] = sorted(cm_parts())
    clf.meta["situation_governors"] = governors_read()
    clf.save(out_dir / MODEL_FILE)
    provenance["classifier"] = clf.meta
    log.info("classifier CM: C=%g, held-out log-loss %s (class table %s)", clf.meta["C"],
             clf.meta["heldout_log_loss"], clf.meta.get("table_heldout_log_loss"))


def build_source_marked(corpus: str, align: str, out_dir: str | os.PathLike, pair: Pair, resolver,
                        docs: str | None = None, em_iterations: int = 5) -> source_table.SourceCMStats:
    """Where the pair's source states the antecedents' features (seed 003): out_dir/cm.gz (the
    back-off table), classes.gz (the class CM of the decoder feature: P(target class | bundle),
    NONE included) and provenance.json; `resolver` gives each document's pronoun records with
    their candidates' features. `em_iterations`: EM over each pronoun's latent antecedent for
    classes.gz (0: seed 003's expected counts, as cm.gz keeps)."""
    if resolver is None:
        raise CadError(f"the {pair.name} CM reads the source antecedents' features: give a resolver that states them")
    docs = docs or (f"{corpus}.docs" if Path(f"{corpus}.docs").exists() else None)
    n_docs = len(read_docs(docs, count_lines(f"{corpus}.{pair.src}"))) if docs else 1
    stats = source_table.SourceCMStats()
    triples, class_instances = [], []
    rows = aligned_documents(f"{corpus}.{pair.src}", f"{corpus}.{pair.tgt}", align, docs)
    for doc_id, src, tgt, al in progress(rows, total=n_docs, desc="cm", unit="doc"):
        recs = resolver.resolve(doc_id, src)
        triples.extend(source_table.collect(src, tgt, al, recs, stats))
        class_instances.extend(source_table.collect_classes(src, tgt, al, recs, pair))
    if not triples:
        raise CadError("no coreference triple could be collected: do the records match the corpus?")
    model = source_table.estimate(triples, pair)
    lines = source_table.table_lines(model, stats)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with atomic_output(out_dir / "cm.gz") as fh:
        fh.writelines(line + "\n" for line in lines)
    class_model, class_counts = source_table.estimate_em(class_instances, em_iterations, pair)
    source_table.SourceClassTable(class_model, pair).write(out_dir / "classes.gz", class_counts)
    with atomic_output(out_dir / "provenance.json") as fh:
        json.dump({"corpus": str(corpus), "alignment": str(align), "documents": docs, "pair": pair.name,
                   "bundles": "pronoun-gender-number-humanness of the source antecedent (seed 003)",
                   "min_probability": source_table.MIN_PROB, "smoothing": "witten-bell",
                   "class_em_iterations": em_iterations, "counts": asdict(stats)},
                  fh, indent=2, sort_keys=True)
        fh.write("\n")
    log.info("CM: %d entries for %d bundles from %d triples", stats.entries, len(model), stats.triples)
    return stats
