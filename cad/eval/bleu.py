"""Corpus BLEU and chrF through sacrebleu, with its reproducibility signatures."""

from __future__ import annotations

import os

from sacrebleu.metrics import BLEU, CHRF

from cad.core.errors import CadError
from cad.core.textio import read_lines


def read_pair(candidate: str | os.PathLike, reference: str | os.PathLike) -> tuple[list[str], list[str]]:
    hyp, refs = read_references(candidate, [reference])
    return hyp, refs[0]


def read_references(candidate: str | os.PathLike, references: list[str | os.PathLike]
                    ) -> tuple[list[str], list[list[str]]]:
    """The candidate's lines and each reference's, every reference line-parallel to the candidate."""
    hyp = list(read_lines(candidate))
    refs = []
    for reference in references:
        ref = list(read_lines(reference))
        if len(hyp) != len(ref):
            raise CadError(f"has {len(hyp)} lines but the reference {reference} has {len(ref)}", str(candidate),
                           min(len(hyp), len(ref)) + 1)
        refs.append(ref)
    return hyp, refs


def bleu_chrf(candidate, reference, tokenize: str = "13a", lowercase: bool = False) -> dict:
    """BLEU and chrF of `candidate` against one reference or a list of them (sacrebleu's multi-
    reference scores); `*_line`: sacrebleu's text line with the signature (BLEU: the n-gram
    precisions, brevity penalty, ratio and lengths), at two decimals."""
    references = list(reference) if isinstance(reference, (list, tuple)) else [reference]
    hyp, refs = read_references(candidate, references)
    # force: cad's texts are tokenized on purpose, no "forgot to detokenize" warning
    bleu = BLEU(tokenize=tokenize, lowercase=lowercase, force=True)
    chrf = CHRF(lowercase=lowercase)
    b = bleu.corpus_score(hyp, refs)
    c = chrf.corpus_score(hyp, refs)
    b_sig, c_sig = str(bleu.get_signature()), str(chrf.get_signature())
    return {"bleu": b.score, "bleu_signature": b_sig, "bleu_detail": str(b),
            "bleu_line": b.format(width=2, signature=b_sig),
            "bleu_precisions": list(b.precisions), "bleu_bp": b.bp, "bleu_ratio": b.ratio,
            "hyp_len": b.sys_len, "ref_len": b.ref_len,
            "chrf": c.score, "chrf_signature": c_sig, "chrf_line": c.format(width=2, signature=c_sig)}
