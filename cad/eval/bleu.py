"""Corpus BLEU and chrF through sacrebleu, with its reproducibility signatures."""

from __future__ import annotations

import os

from sacrebleu.metrics import BLEU, CHRF

from cad.core.errors import CadError
from cad.core.textio import read_lines


def read_pair(candidate: str | os.PathLike, reference: str | os.PathLike) -> tuple[list[str], list[str]]:
    hyp = list(read_lines(candidate))
    ref = list(read_lines(reference))
    if len(hyp) != len(ref):
        raise CadError(f"has {len(hyp)} lines but the reference {reference} has {len(ref)}", str(candidate),
                       min(len(hyp), len(ref)) + 1)
    return hyp, ref


def bleu_chrf(candidate, reference, tokenize: str = "13a", lowercase: bool = False) -> dict:
    hyp, ref = read_pair(candidate, reference)
    # force: cad's texts are tokenized on purpose, no "forgot to detokenize" warning
    bleu = BLEU(tokenize=tokenize, lowercase=lowercase, force=True)
    chrf = CHRF(lowercase=lowercase)
    b = bleu.corpus_score(hyp, [ref])
    c = chrf.corpus_score(hyp, [ref])
    return {"bleu": b.score, "bleu_signature": str(bleu.get_signature()), "bleu_detail": str(b),
            "chrf": c.score, "chrf_signature": str(chrf.get_signature())}
