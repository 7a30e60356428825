"""MERT's driver: the decoder's n-best lists on the tuning set (sentence by sentence, or document
by document when a feature reads the document's context), pooled over iterations and optimized
by cad/tune/mert.py. The CM-weight grid search is cad/tune/cm_weight.py."""

from __future__ import annotations

import logging
import multiprocessing
import tempfile
from dataclasses import dataclass
from pathlib import Path

# registers the CoreferenceModel feature, which a configuration tuned by documents names
from cad.cm.construction import cm_roles
import cad.cm.feature  # noqa: F401
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import read_lines
from cad.corpus.truecase import ModelCase
from cad.decoder import Decoder, DecoderModel, SearchSettings
from cad.moses.ini import parse_config, write_config
from cad.translate.translator import DocumentTranslator
from cad.tune.mert import Candidate, Pool, bleu, bleu_stats, optimize
from coref.backends import documents, get_backend, records_by_doc

log = logging.getLogger(__name__)


def _set_weights(model: DecoderModel, w: list[float]) -> None:
    k = 0
    for slot in model.slots:
        slot.weights = list(w[k:k + slot.size])
        k += slot.size


@dataclass
class MertResult:
    weights: list[float]          # the returned weights (best decoded BLEU over the iterations)
    bleu: float                   # corpus BLEU of their 1-best translations on the tuning set
    history: list[tuple[list[float], float]]   # (weights, decoded BLEU) per iteration


class TuningSet:
    """Decodes the tuning sentences with n-best lists: one by one, or, when a feature reads the
    document's context (the CoreferenceModel), document by document as `cad translate` does
    (antecedents read from earlier translations, two passes for antecedents in the same sentence),
    so that the tuned weights are those of the system that will run. Documents or sentences go to
    `workers` processes; the result does not depend on their number."""

    def __init__(self, model: DecoderModel, sentences: list[str], docs: str | None = None,
                 source: str | None = None, coref: str | None = None, workers: int = 1,
                 records: list | None = None, case=None):
        """`coref`: a records file (documents by index); `records`: the records per document,
        given directly; neither: the shipped ranker resolves the documents. `case`: the source
        tokens as the model reads them (ModelCase.source; default: lowercased)."""
        self.model = model
        self.sentences = sentences
        self.workers = max(1, workers)
        self.in_context = any(f.reads_context for f in model.stateless)
        # the language pair of the feature that reads the context (its CoreferenceModel line's)
        self.pair = next((getattr(f, "pair", None) for f in model.stateless if f.reads_context), None)
        self.docs_list: list = []
        if not self.in_context:
            return
        if docs is None:
            raise CadError("the configuration has a feature that reads document context (CoreferenceModel): "
                           "give the documents (--docs)")
        case = case or (lambda toks: [t.lower() for t in toks])
        self.docs_list = [(d, [case(s) for s in sents]) for d, sents in documents(source, docs)]
        n = sum(len(s) for _, s in self.docs_list)
        if n != len(sentences):
            raise CadError(f"the documents hold {n} sentences but the source has {len(sentences)}", docs)
        if records is not None:
            if len(records) != len(self.docs_list):
                raise CadError(f"{len(records)} documents of coreference records for {len(self.docs_list)} documents")
            self.records = records
        elif coref:
            self.records = records_by_doc(coref, self.docs_list)
        else:
            resolver = get_backend("ranker")
            self.records = [resolver.resolve(d, s) for d, s in self.docs_list]
        studied = self.pair.source.cm_pronouns if self.pair is not None else ()
        self.roles = [cm_roles(s, {(r.sentence, r.index) for r in recs if r.token.lower() in studied})
                      for (_, s), recs in zip(self.docs_list, self.records)]

    def decode(self, decoder: Decoder, nbest: int, desc: str) -> list:
        """One Translation (with its distinct n-best list) per sentence, in order."""
        _TUNE.update(decoder=decoder, nbest=nbest, set=self)
        try:
            jobs = list(range(len(self.docs_list))) if self.in_context else list(range(len(self.sentences)))
            fn = _tune_doc if self.in_context else _tune_sentence
            out: dict[int, list] = {}
            pool = multiprocessing.get_context("fork").Pool(self.workers) if self.workers > 1 else None
            try:
                it = pool.imap(fn, jobs, chunksize=1) if pool is not None else map(fn, jobs)
                unit = "doc" if self.in_context else "sent"
                for k, trs in progress(it, total=len(jobs), desc=desc, unit=unit):
                    out[k] = trs
            finally:
                if pool is not None:
                    pool.close()
                    pool.join()
            return [tr for k in range(len(jobs)) for tr in out[k]]
        finally:
            _TUNE.clear()


_TUNE: dict = {}     # what forked tuning workers read


def _tune_sentence(k: int):
    return k, [_TUNE["decoder"].translate(_TUNE["set"].sentences[k], nbest=_TUNE["nbest"], distinct=True)]


def _tune_doc(d: int):
    ts = _TUNE["set"]
    doc_id, sents = ts.docs_list[d]
    translator = DocumentTranslator(_TUNE["decoder"], "cm", "feature", nbest_lists=_TUNE["nbest"], pair=ts.pair)
    return d, translator.translate_document(doc_id, sents, ts.records[d], roles=ts.roles[d]).translations


def mert(config: str, source: str, reference: str, out: str, nbest: int = 100, iterations: int = 25,
         search_algorithm: int = 1, random_dirs: int = 0, restarts: int = 20, seed: int = 1,
         historic_bests: bool = True, docs: str | None = None, coref: str | None = None,
         workers: int = 1, records: list | None = None, src_lang: str = "en", tgt_lang: str = "fr") -> MertResult:
    """Moses-style MERT loop: decode, add the n-best lists to the pool, optimize from the current
    weights (plus earlier iterations' weights and random restarts), until the weights stop
    changing (max change < 1e-5, as mert-moses.pl), no new candidates appear, or `iterations`
    decoder runs. Returns the weights whose decoded 1-best had the best BLEU (mert-moses.pl's
    --return-best-dev), so the result is never worse on the tuning set than the start.
    A configuration with the CoreferenceModel feature is decoded by documents (`docs`, with the
    coreference records `coref`, or the shipped ranker), so its weight is tuned with the others.
    The source and the reference are put in the model's case (ModelCase: truecased by the models
    beside its phrase table, as Moses tunes on the truecased dev set, or lowercased)."""
    cfg = parse_config(config)
    case = ModelCase.of(cfg, src_lang, tgt_lang)
    src = [case.source_line(s) for s in read_lines(source)]
    ref = [case.target(r.split()) for r in read_lines(reference)]
    if len(src) != len(ref):
        raise CadError(f"{len(src)} source sentences but {len(ref)} references", reference)
    model = DecoderModel.from_config(cfg, src, SearchSettings(search_algorithm=search_algorithm))
    tuning = TuningSet(model, src, docs, source, coref, workers, records, case.source)
    w = model.weights()
    # Moses does not tune UnknownWordPenalty (it is missing from its n-best lists): it keeps its
    # weight while the tuned weights are L1-normalized, so the pool is scored without it
    fixed = {s.offset for s in model.slots if s.type == "UnknownWordPenalty"}
    kept = {k: w[k] for k in fixed}
    seen: list[set[str]] = [set() for _ in src]
    pool: list[list[Candidate]] = [[] for _ in src]
    history: list[tuple[list[float], float]] = []
    for it in range(iterations):
        _set_weights(model, w)
        dec = Decoder(model)
        new = 0
        total = [0] * 10
        for k, tr in enumerate(tuning.decode(dec, nbest, f"MERT decode {it + 1}")):
            for j, v in enumerate(bleu_stats(tr.best.words, ref[k])):
                total[j] += v
            for d in tr.nbest:
                if d.text not in seen[k]:
                    seen[k].add(d.text)
                    feats = [0.0 if j in fixed else v for j, v in enumerate(d.features)]
                    pool[k].append(Candidate(feats, bleu_stats(d.words, ref[k])))
                    new += 1
        history.append((list(w), bleu(total)))
        log.info("MERT iteration %d: decoded BLEU %.2f, %d new candidates, weights %s",
                 it + 1, 100 * history[-1][1], new, " ".join(f"{x:.4f}" for x in w))
        if new == 0 or it + 1 == iterations:
            break
        starts = [h[0] for h in history[:-1]] if historic_bests else []
        arrays = Pool(pool)
        nw, score = optimize(arrays, w, fixed, random_dirs=random_dirs, restarts=restarts,
                             seed=seed + it, starts=starts)
        for j, v in kept.items():
            nw[j] = v
        log.info("MERT iteration %d: pool BLEU %.2f -> %.2f", it + 1, 100 * arrays.bleu_at(w),
                 100 * score)
        scale = sum(abs(x) for j, x in enumerate(w) if j not in fixed) or 1.0
        converged = max(abs(a - (b if j in fixed else b / scale)) for j, (a, b) in enumerate(zip(nw, w))) < 1e-5
        w = nw
        if converged:
            break
    best_w, best_b = max(history, key=lambda h: h[1])
    k = 0
    for f in cfg.features:
        n = f.num_features
        if f.name in cfg.weights:
            cfg.weights[f.name] = [round(x, 6) for x in best_w[k:k + n]]
        k += n
    write_config(cfg, out)
    return MertResult(best_w, best_b, history)
