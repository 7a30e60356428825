"""Corpus BLEU and chrF through sacrebleu, with its reproducibility signatures: the metrics `bleu`
and `chrf` (cad/eval/metrics.py), and both of a candidate file at once (`bleu_chrf`)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from sacrebleu.metrics import BLEU, CHRF

from cad.core.errors import CadError
from cad.core.textio import read_lines
from cad.eval.metrics import Metric, MetricResult, Signature, Sources


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


class SacreMetric(Metric):
    """One of sacrebleu's metrics: its score, its own signature and its own line."""

    def sacre(self):
        raise NotImplementedError

    def corpus_score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                     sources: Sources | None = None) -> MetricResult:
        self.check(hypotheses, references, sources)
        metric = self.sacre()
        score = metric.corpus_score(list(hypotheses), [list(r) for r in references])
        sig = str(metric.get_signature())
        # sacrebleu's line is the score's own (its width and its verbose part)
        verbose = score.format(width=2, signature=sig).split(" = ", 1)[1].partition(" ")[2]
        return MetricResult(score.name, score.score, Signature.parse(sig), verbose, score)


class BleuMetric(SacreMetric):
    """`bleu`: sacrebleu's corpus BLEU. Options: `tokenize` (13a, none, intl, char, ...), `lowercase`."""

    name = "BLEU"
    options = {"tokenize": "13a", "lowercase": "no"}

    def sacre(self) -> BLEU:
        # force: cad's texts are tokenized on purpose, no "forgot to detokenize" warning
        return BLEU(tokenize=self.settings["tokenize"], lowercase=self.flag("lowercase"), force=True)


class ChrfMetric(SacreMetric):
    """`chrf`: sacrebleu's chrF. Option: `lowercase`."""

    name = "chrF2"
    options = {"lowercase": "no"}

    def sacre(self) -> CHRF:
        return CHRF(lowercase=self.flag("lowercase"))


def bleu_chrf(candidate, reference, tokenize: str = "13a", lowercase: bool = False) -> dict:
    """BLEU and chrF of the file `candidate` against one reference file or a list of them
    (sacrebleu's multi-reference scores); `*_line`: sacrebleu's text line with the signature (BLEU:
    the n-gram precisions, brevity penalty, ratio and lengths), at two decimals."""
    references = list(reference) if isinstance(reference, (list, tuple)) else [reference]
    hyp, refs = read_references(candidate, references)
    yes = "yes" if lowercase else "no"
    bleu = BleuMetric(tokenize=tokenize, lowercase=yes).corpus_score(hyp, refs)
    chrf = ChrfMetric(lowercase=yes).corpus_score(hyp, refs)
    b, c = bleu.detail, chrf.detail
    return {"bleu": b.score, "bleu_signature": str(bleu.signature), "bleu_detail": str(b),
            "bleu_line": bleu.format(),
            "bleu_precisions": list(b.precisions), "bleu_bp": b.bp, "bleu_ratio": b.ratio,
            "hyp_len": b.sys_len, "ref_len": b.ref_len,
            "chrf": c.score, "chrf_signature": str(chrf.signature), "chrf_line": chrf.format()}
