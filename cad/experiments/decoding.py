"""Decoding an experiment's systems in worker processes: documents (or sentences) as jobs for a
forked pool whose workers read the loaded models from `STATE`, set before the pool forks, so
that no model is pickled. Each job's result depends on its document alone, so the outputs are
the same for any number of workers."""

from __future__ import annotations

import multiprocessing

from cad.translate.translator import DocumentTranslator

STATE: dict = {}


class CachedBaseline:
    """BL's translation for a sentence decoded without context (the CM feature scores nothing)."""

    def __init__(self, decoder, bl_translations):
        self.decoder = decoder
        self.bl = {" ".join(tr.source): tr for tr in bl_translations}

    def translate(self, sentence: str, nbest: int = 0, distinct: bool = False, context=None):
        if not context or not context.get("pronouns"):
            tr = self.bl.get(sentence)
            if tr is not None:
                return tr
        return self.decoder.translate(sentence, nbest=nbest, distinct=distinct, context=context)


def decode_feature_doc(job):
    """One document with the CM feature at `weight` (context per pronoun sentence). The sentences
    without an it/they are BL's, which the CM feature would not change; with the agreement
    feature (kinds "agreement", "classifier-agreement"), which reads every il/elle the decoder
    writes, every sentence is decoded."""
    doc_index, weight, records_key, kind = job
    st = STATE
    doc_id, sents = st["docs"][doc_index]
    projector = st["projectors"].get(records_key)
    decoder = st["decoders"][(kind, weight)]
    every = kind.endswith("agreement")
    translator = DocumentTranslator(decoder if every else CachedBaseline(decoder, st["bl"][doc_index]),
                                    "cm", "feature", pair=st.get("pair"),
                                    projector=None if projector is None else lambda c: projector(doc_index, c))
    result = translator.translate_document(doc_id, sents, st["records"][records_key][doc_index],
                                           roles=st["roles"][doc_index])
    return doc_index, result.outputs, result.alignments


def decode_bl_sentence(k_sent):
    k, sent = k_sent
    return k, STATE["bl_decoder"].translate(sent, nbest=STATE["nbest"], distinct=True)


def decode_backoff_doc(doc_index):
    st = STATE
    doc_id, sents = st["docs"][doc_index]
    result = DocumentTranslator(st["backoff_decoder"], "cm", "backoff", pair=st.get("pair")).translate_document(
        doc_id, sents, st["records"]["ranker"][doc_index])
    return doc_index, result.outputs, result.alignments


def worker_pool(workers: int):
    return multiprocessing.get_context("fork").Pool(workers) if workers > 1 else None


def map_jobs(pool, fn, items):
    return pool.imap(fn, items, chunksize=1) if pool is not None else map(fn, items)


class NoPool:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False
