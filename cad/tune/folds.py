"""MERT judged on documents it did not see: the tuning set cut into folds of whole documents, each
fold translated with the weights MERT tuned on the others, against the starting weights; then,
optionally, the weights tuned on every document (what a model ships). Both outputs are pooled over
the folds and compared by corpus BLEU with a paired bootstrap (Koehn 2004)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cad.core.docs import read_docs
from cad.core.errors import CadError
from cad.core.textio import atomic_output, read_lines
from cad.corpus.truecase import ModelCase
from cad.decoder import Decoder, DecoderModel, SearchSettings
from cad.moses.ini import parse_config
from cad.tune.mert import bleu, bleu_stats
from cad.tune.run import TuningSet, mert

log = logging.getLogger(__name__)


@dataclass
class FoldResult:
    fold: int
    documents: int
    sentences: int
    tuning_sentences: int
    config: str                      # the weights tuned on the other folds
    iterations: int
    tuning_bleu: float               # decoded BLEU on the tuning part, as MERT reports it
    heldout_bleu_start: float        # sacrebleu BLEU of the held-out fold, starting weights
    heldout_bleu_tuned: float
    seconds: float


@dataclass
class FoldsReport:
    config: str
    folds: list[FoldResult] = field(default_factory=list)
    pooled_bleu_start: float = 0.0   # every sentence translated by its fold's run, pooled
    pooled_bleu_tuned: float = 0.0
    bootstrap_p: float = 1.0         # share of resamples where tuned is not above start
    bleu_signature: str = ""
    final: dict | None = None        # the weights tuned on every document, when asked for


def fold_documents(docs_path: str, n_lines: int, folds: int) -> list[list[tuple[int, int]]]:
    """Per fold, its documents' (first line, end line): consecutive runs of the documents, as
    the pronoun experiments cut them (cad.experiments.folds)."""
    starts = [d.first_line for d in read_docs(docs_path, n_lines)]
    spans = list(zip(starts, starts[1:] + [n_lines]))
    if folds < 2 or folds > len(spans):
        raise CadError(f"--folds must be between 2 and the number of documents ({len(spans)}), not {folds}",
                       docs_path)
    per = -(-len(spans) // folds)
    return [spans[i:i + per] for i in range(0, len(spans), per)]


def _write_part(work: Path, name: str, src: list[str], ref: list[str], spans: list[tuple[int, int]]
                ) -> tuple[str, str, str]:
    lines = [k for a, b in spans for k in range(a, b)]
    paths = tuple(str(work / f"{name}.{ext}") for ext in ("src", "ref", "docs"))
    for path, rows in ((paths[0], [src[k] for k in lines]), (paths[1], [ref[k] for k in lines])):
        with atomic_output(path) as fh:
            fh.writelines(r + "\n" for r in rows)
    with atomic_output(paths[2]) as fh:
        first = 0
        for d, (a, b) in enumerate(spans):
            fh.write(f"{first}\t{name}-{d}\n")
            first += b - a
    return paths


def translate_part(config: str, src_path: str, docs_path: str, workers: int, src_lang: str, tgt_lang: str,
                   search_algorithm: int = 1) -> list[str]:
    """1-best translations (tokens in the model's case) of a part, as MERT decodes it."""
    cfg = parse_config(config)
    case = ModelCase.of(cfg, src_lang, tgt_lang)
    src = [case.source_line(s) for s in read_lines(src_path)]
    model = DecoderModel.from_config(cfg, src, SearchSettings(search_algorithm=search_algorithm))
    tuning = TuningSet(model, src, docs_path, src_path, None, workers, None, case.source)
    return [" ".join(tr.best.words) for tr in tuning.decode(Decoder(model), 1, "held-out fold")]


def paired_bootstrap(hyp_a: list[str], hyp_b: list[str], refs: list[str], samples: int = 1000, seed: int = 1
                     ) -> float:
    """Share of resampled test sets (sentences drawn with replacement) where b's BLEU is not above
    a's: the p-value of "b is better" (Koehn 2004)."""
    sa = [bleu_stats(h.split(), r.split()) for h, r in zip(hyp_a, refs)]
    sb = [bleu_stats(h.split(), r.split()) for h, r in zip(hyp_b, refs)]
    rng = random.Random(seed)
    n, worse = len(refs), 0
    for _ in range(samples):
        idx = [rng.randrange(n) for _ in range(n)]
        ta = [sum(sa[i][j] for i in idx) for j in range(10)]
        tb = [sum(sb[i][j] for i in idx) for j in range(10)]
        worse += bleu(tb) <= bleu(ta)
    return worse / samples


def _sacrebleu(hyp: list[str], ref: list[str]) -> tuple[float, str]:
    from sacrebleu.metrics import BLEU

    metric = BLEU(force=True)
    return metric.corpus_score(hyp, [ref]).score, str(metric.get_signature())


def run_key(config: str, inputs: list[str], options: dict) -> str:
    """What a MERT run's weights depend on: the configuration's text, the files it names (path, size,
    modification time, as the pronoun experiment keys its stages), the tuning set's contents and
    MERT's options. The number of workers is left out: it changes no output."""
    h = hashlib.sha256(Path(config).read_bytes())
    for path in [f.path for f in parse_config(config).features if f.path]:
        st = os.stat(path)
        h.update(f"{os.path.abspath(path)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    for path in inputs:
        h.update(Path(path).read_bytes())
    h.update(json.dumps({k: v for k, v in options.items() if k != "workers"}, sort_keys=True, default=str).encode())
    return h.hexdigest()


def _digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def resumed_mert(config: str, source: str, reference: str, out: str, docs: str, **options) -> tuple[int, float]:
    """MERT into `out`, or the result of an earlier run with the same key: (iterations, tuning-set
    BLEU). `out`.key is written once `out` is, with `out`'s digest, so that a file another command
    wrote there since is not taken. A fold of `make tune` on the large model takes a quarter of an
    hour: an interrupted run resumes after the last fold it finished."""
    key = run_key(config, [source, reference, docs], options)
    stamp = Path(f"{out}.key")
    if Path(out).exists() and stamp.exists():
        try:
            saved = json.loads(stamp.read_text(encoding="utf-8"))
        except ValueError:
            saved = {}          # a stamp cut short: tune again
        if saved.get("key") == key and saved.get("weights") == _digest(out):
            log.info("%s: MERT's weights of an earlier run with the same model, tuning set and options", out)
            return saved["iterations"], saved["tuning_bleu"]
    res = mert(config, source, reference, out, docs=docs, **options)
    with atomic_output(stamp) as fh:
        json.dump({"key": key, "weights": _digest(out), "iterations": len(res.history),
                   "tuning_bleu": 100 * res.bleu}, fh)
        fh.write("\n")
    return len(res.history), 100 * res.bleu


def mert_folds(config: str, source: str, reference: str, docs: str, folds: int, out_dir: str,
               final: str | None = None, workers: int = 1, src_lang: str = "en", tgt_lang: str = "fr",
               **mert_options) -> FoldsReport:
    """Tune on every fold but one, translate that one with the starting and the tuned weights;
    pooled BLEU of both with the bootstrap; `final`: then MERT on every document into that file,
    starting from the last fold's weights.
    Writes OUT_DIR/fold<k>.ini, OUT_DIR/{start,tuned}.out (pooled) and OUT_DIR/report.{json,md};
    a fold (or `final`) tuned by an earlier run with the same inputs is not tuned again (resumed_mert)."""
    work = Path(out_dir)
    work.mkdir(parents=True, exist_ok=True)
    src, ref_raw = list(read_lines(source)), list(read_lines(reference))
    if len(src) != len(ref_raw):
        raise CadError(f"{len(src)} source sentences but {len(ref_raw)} references", reference)
    case = ModelCase.of(parse_config(config), src_lang, tgt_lang)
    ref = [case.target_line(r) for r in ref_raw]
    parts = fold_documents(docs, len(src), folds)
    report = FoldsReport(config=config)
    start_out, tuned_out = [""] * len(src), [""] * len(src)
    for k, held in enumerate(parts):
        t = time.time()
        others = [span for j, p in enumerate(parts) if j != k for span in p]
        tune_files = _write_part(work, f"fold{k + 1}.tune", src, ref_raw, others)
        test_files = _write_part(work, f"fold{k + 1}.test", src, ref_raw, held)
        tuned = str(work / f"fold{k + 1}.ini")
        log.info("fold %d of %d: MERT on %d documents, held out %d", k + 1, len(parts), len(others), len(held))
        iterations, tuning_bleu = resumed_mert(config, tune_files[0], tune_files[1], tuned, tune_files[2],
                                               workers=workers, src_lang=src_lang, tgt_lang=tgt_lang, **mert_options)
        lines = [i for a, b in held for i in range(a, b)]
        for cfg_path, store in ((config, start_out), (tuned, tuned_out)):
            for i, hyp in zip(lines, translate_part(cfg_path, test_files[0], test_files[2], workers, src_lang,
                                                    tgt_lang, mert_options.get("search_algorithm", 1))):
                store[i] = hyp
        held_ref = [ref[i] for i in lines]
        b0, _ = _sacrebleu([start_out[i] for i in lines], held_ref)
        b1, _ = _sacrebleu([tuned_out[i] for i in lines], held_ref)
        report.folds.append(FoldResult(k + 1, len(held), len(lines), sum(b - a for a, b in others), tuned,
                                       iterations, tuning_bleu, b0, b1, round(time.time() - t, 1)))
        log.info("fold %d: held-out BLEU %.2f -> %.2f", k + 1, b0, b1)
    report.pooled_bleu_start, report.bleu_signature = _sacrebleu(start_out, ref)
    report.pooled_bleu_tuned, _ = _sacrebleu(tuned_out, ref)
    report.bootstrap_p = paired_bootstrap(start_out, tuned_out, ref)
    for name, rows in (("start.out", start_out), ("tuned.out", tuned_out), ("reference.cased", ref)):
        with atomic_output(work / name) as fh:
            fh.writelines(r + "\n" for r in rows)
    if final:
        # started from the last fold's weights, not the untuned ones: tuned on half the documents
        # already, MERT needs fewer decoder runs to settle (the held-out figures above all start
        # from the untuned weights)
        t = time.time()
        iterations, tuning_bleu = resumed_mert(report.folds[-1].config, source, reference, final, docs,
                                               workers=workers, src_lang=src_lang, tgt_lang=tgt_lang, **mert_options)
        report.final = {"config": final, "start": report.folds[-1].config, "iterations": iterations,
                        "tuning_bleu": tuning_bleu,
                        "seconds": round(time.time() - t, 1)}
    with atomic_output(work / "report.json") as fh:
        json.dump(asdict(report), fh, indent=2)
        fh.write("\n")
    with atomic_output(work / "report.md") as fh:
        fh.write(format_report(report))
    return report


def format_report(r: FoldsReport) -> str:
    rows = ["| fold | documents | sentences | MERT iterations | BLEU start | BLEU tuned | seconds |",
            "|---|---|---|---|---|---|---|"]
    for f in r.folds:
        rows.append(f"| {f.fold} | {f.documents} | {f.sentences} | {f.iterations} | {f.heldout_bleu_start:.2f} | "
                    f"{f.heldout_bleu_tuned:.2f} | {f.seconds:.0f} |")
    rows.append(f"| pooled | {sum(f.documents for f in r.folds)} | {sum(f.sentences for f in r.folds)} | | "
                f"{r.pooled_bleu_start:.2f} | {r.pooled_bleu_tuned:.2f} | |")
    out = [f"MERT by folds of documents: {r.config}", "", *rows, "",
           f"Each fold translated with the weights tuned on the other folds; paired bootstrap (1000 resamples) "
           f"p = {r.bootstrap_p:.3f} for tuned above start. {r.bleu_signature}"]
    if r.final:
        out += ["", f"Tuned on every document: {r.final['config']} ({r.final['iterations']} iterations, "
                    f"tuning-set BLEU {r.final['tuning_bleu']:.2f})"]
    return "\n".join(out) + "\n"
