"""The CM-weight grid search of seed 004's back-off table: each weight's translation of the
documents scored by APT, then BLEU."""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

from cad.core.textio import read_lines
from cad.corpus.truecase import ModelCase
from cad.decoder import Decoder
from cad.eval.apt import evaluate
from cad.eval.apt_settings import french_settings
from cad.eval.bleu import bleu_chrf
from cad.translate.decoders import load_decoder
from cad.translate.translator import DocumentTranslator
from cad.defaults import COREF_BACKEND
from coref.backends import documents, get_backend

log = logging.getLogger(__name__)


def cm_weight_grid(config: str, source: str, docs: str | None, reference: str, align_ref: str,
                   grid: list[float], backend: str = COREF_BACKEND) -> list[tuple[float, float, float]]:
    """(weight, APT, BLEU) for each CM weight; the best is the highest APT, then BLEU."""
    case = ModelCase.of(config, "en", "fr")     # APT's French settings: English to French
    docs_ = [(d, [case.source(s) for s in sents]) for d, sents in documents(source, docs)]
    sentences = [" ".join(s) for _, sents in docs_ for s in sents]
    resolver = get_backend(backend)
    recs = {d: resolver.resolve(d, sents) for d, sents in docs_}
    decoder = load_decoder(config, sentences)
    results = []
    with tempfile.TemporaryDirectory(prefix="cad-cmgrid-") as tmp:
        ref_low = Path(tmp) / "ref"
        ref_low.write_text("".join(case.target_line(l) + "\n" for l in read_lines(reference)), encoding="utf-8")
        src_low = Path(tmp) / "src"
        src_low.write_text("".join(s + "\n" for s in sentences), encoding="utf-8")
        for weight in grid:
            slot = next(s for s in decoder.model.slots if s.name == "TranslationModel1")
            slot.weights = [weight]
            translator = DocumentTranslator(Decoder(decoder.model), "cm", "backoff")
            outs, aligns = [], []
            for d, sents in docs_:
                result = translator.translate_document(d, sents, recs[d])
                outs.extend(result.outputs)
                aligns.extend(result.alignments)
            hyp, al = Path(tmp) / "hyp", Path(tmp) / "al"
            hyp.write_text("".join(o + "\n" for o in outs), encoding="utf-8")
            al.write_text("".join(a + "\n" for a in aligns), encoding="utf-8")
            apt = evaluate(src_low, ref_low, hyp, align_ref, al, french_settings()).score
            b = bleu_chrf(hyp, ref_low)["bleu"]
            log.info("CM weight %.2f: APT %.4f BLEU %.2f", weight, apt, b)
            results.append((weight, apt, b))
    return results
