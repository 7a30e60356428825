"""`cad train`: the whole baseline training pipeline, stage by stage, skipping up-to-date stages.

Output layout (as train-model.perl's model/ directory, plus the LM and the prepared corpus):
  corpus.<src> corpus.<tgt> corpus.docs corpus.lines   prepared training corpus
  aligned.grow-diag-final-and                           symmetrized word alignment
  lex.f2e lex.e2f                                       word translation tables
  phrase-table.gz reordering-table.wbe-msd-bidirectional-fe.gz
  lm.arpa                                               target language model (LM0)
  lm1.arpa lm2.arpa ... lm.extra.json                   the LMs of --extra-lm texts (LM1, ...), their settings
  moses.ini
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cad.core.shards.options import Parallel
from cad.core.textio import count_lines
from cad.corpus.align import align_corpus
from cad.corpus.prepare import CleanConfig, prepare_corpus, prepare_text
from cad.corpus.truecase import Truecaser, recase_file, text_documents, train_truecaser
from cad.lm.train import train_lm
from cad.moses.ini import add_lm, baseline_config, write_config
from cad.train.lexical import write_lexical_tables
from cad.train.phrase_scoring import build_phrase_tables
from cad.train.stages import STAGES

log = logging.getLogger(__name__)


@dataclass
class TrainConfig:
    corpus: str                 # prefix: <corpus>.<src>, <corpus>.<tgt>, optional <corpus>.docs
    src: str = "en"
    tgt: str = "fr"
    out: str = "models/baseline"
    pretokenized: bool = False
    lowercase: bool = True
    truecase: bool = False      # Moses's truecasing instead of lowercasing (models OUT/truecase-model.<lang>)
    max_phrase_length: int = 7
    lm_order: int = 5
    lm_text: str | None = None
    # more LMs, each from its text (OUT/lm1.arpa, ...; LM1, ... in moses.ini). Kept out of train.json,
    # which every stage reads, in OUT/lm.extra.json, which only the extra LMs and moses.ini read:
    # an in-domain LM added to a trained model reruns those, not the alignment and the tables
    extra_lm_texts: list[str] = field(default_factory=list)
    alignment: str = "grow-diag-final-and"
    seed: int = 1
    allow_empty: bool = False
    test_corpus: str | None = None   # prefix of a test set to align together with the training data


def corpus_file(prefix: str, lang: str) -> Path:
    """<prefix>.<lang>, or <prefix>.<lang>.gz when only the gzipped file exists (as Moses's tools take)."""
    plain = Path(f"{prefix}.{lang}")
    gz = Path(f"{prefix}.{lang}.gz")
    return gz if not plain.exists() and gz.exists() else plain


def _up_to_date(outputs: list[Path], inputs: list[Path]) -> bool:
    if not all(o.exists() for o in outputs):
        return False
    newest_in = max((os.path.getmtime(i) for i in inputs if i.exists()), default=0)
    return min(os.path.getmtime(o) for o in outputs) >= newest_in


class _Done(Exception):
    """Raised after the stage the caller asked to stop at."""


def _stage(name: str, outputs: list[Path], inputs: list[Path], force: bool, fn, until: str | None = None) -> None:
    _run_stage(name, outputs, inputs, force, fn)
    if name == until:
        raise _Done


def _run_stage(name: str, outputs: list[Path], inputs: list[Path], force: bool, fn) -> None:
    if not force and _up_to_date(outputs, inputs):
        log.info("[%s] up to date, skipped", name)
        return
    t = time.time()
    log.info("[%s] running", name)
    fn()
    log.info("[%s] done in %.1fs", name, time.time() - t)


def train(cfg: TrainConfig, force: bool = False, until: str | None = None, parallel: Parallel | None = None) -> Path:
    """Run the stages in order (up to and including `until`); return the moses.ini path.
    `parallel`: tokenizing (of a raw corpus) and phrase extraction in shards (cad/corpus/prepare.py,
    cad/train/extract_shards.py), the same corpus and tables; it is not part of the settings (OUT/train.json), since the output does not depend on it.

    Everything the stages log also goes to OUT/train.log.
    """
    Path(cfg.out).mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(Path(cfg.out) / "train.log", encoding="utf-8")
    handler.setLevel(logging.INFO)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s: %(message)s", "%Y-%m-%d %H:%M:%S"))
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    if root.level > logging.INFO or root.level == logging.NOTSET:
        root.setLevel(logging.INFO)
        for h in root.handlers:
            if h is not handler and h.level == logging.NOTSET:
                h.setLevel(old_level or logging.WARNING)
    try:
        return _train(cfg, force, until, parallel)
    except _Done:
        return Path(cfg.out) / "moses.ini"
    finally:
        root.removeHandler(handler)
        handler.close()
        root.setLevel(old_level)


def _train(cfg: TrainConfig, force: bool, until: str | None, parallel: Parallel | None = None) -> Path:
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    src_in, tgt_in = corpus_file(cfg.corpus, cfg.src), corpus_file(cfg.corpus, cfg.tgt)
    docs_in = Path(f"{cfg.corpus}.docs")
    corpus = out / "corpus"
    src, tgt = Path(f"{corpus}.{cfg.src}"), Path(f"{corpus}.{cfg.tgt}")
    align = out / f"aligned.{cfg.alignment}"
    pt = out / "phrase-table.gz"
    ro = out / "reordering-table.wbe-msd-bidirectional-fe.gz"
    lm = out / "lm.arpa"
    ini = out / "moses.ini"
    settings = out / "train.json"
    fields = asdict(cfg)
    extra_texts = fields.pop("extra_lm_texts")
    _write_changed(settings, fields)      # changed settings make every stage stale
    extra_settings = out / "lm.extra.json"
    # extra LMs given before and none now: the moses.ini naming them is written again (the file goes
    # once it is, so that an interrupted run still knows)
    dropped = not extra_texts and extra_settings.exists()
    if extra_texts:
        _write_changed(extra_settings, {"extra_lm_texts": extra_texts, "lm_order": cfg.lm_order})
    extra_lms = [out / f"lm{k}.arpa" for k in range(1, len(extra_texts) + 1)]

    truecase_models = [truecase_model(out, cfg.src), truecase_model(out, cfg.tgt)] if cfg.truecase else []

    def prepare() -> None:
        prepare_corpus(src_in, tgt_in, corpus, cfg.src, cfg.tgt, docs_in if docs_in.exists() else None,
                       pretokenized=cfg.pretokenized, lowercase=cfg.lowercase and not cfg.truecase,
                       clean=CleanConfig(), allow_empty=cfg.allow_empty, parallel=parallel)
        if cfg.truecase:
            truecase_corpus(corpus, [cfg.src, cfg.tgt], out)
        else:
            # a model retrained lowercased must not be read as truecased (cad.corpus.truecase.ModelCase)
            for lang in (cfg.src, cfg.tgt):
                truecase_model(out, lang).unlink(missing_ok=True)

    _stage("prepare", [src, tgt, *truecase_models], [src_in, tgt_in, settings], force, prepare, until=until)
    extra_inputs: list[Path] = []
    extra = None
    if cfg.test_corpus:
        test_src, test_tgt = corpus_file(cfg.test_corpus, cfg.src), corpus_file(cfg.test_corpus, cfg.tgt)
        extra = (test_src, test_tgt, out / f"test.aligned.{cfg.alignment}")
        extra_inputs = [test_src, test_tgt]
    _stage("align", [align] + ([extra[2]] if extra else []), [src, tgt, *extra_inputs], force,
           lambda: align_corpus(src, tgt, align, extra=extra, method=cfg.alignment, seed=cfg.seed), until=until)
    n = count_lines(src)
    _stage("lex", [out / "lex.f2e", out / "lex.e2f"], [align], force,
           lambda: write_lexical_tables(src, tgt, align, str(out / "lex"), total=n), until=until)
    _stage("phrases", [pt, ro], [out / "lex.f2e", align], force,
           lambda: build_phrase_tables(src, tgt, align, str(out / "lex"), str(pt), str(ro),
                                       max_len=cfg.max_phrase_length, total=n, tmpdir=str(out), parallel=parallel),
           until=until)
    lm_text = Path(cfg.lm_text) if cfg.lm_text else tgt
    _run_stage("lm", [lm], [lm_text, settings], force, lambda: train_lm(lm_text, lm, cfg.lm_order))
    def extra_lm(k: int, text: Path, path: Path) -> None:
        # the text tokenized and cased as the corpus was, with the corpus's truecasing model
        prepared = out / f"lm{k}.{cfg.tgt}"
        case = Truecaser(truecase_model(out, cfg.tgt)).truecase if cfg.truecase else None
        n = prepare_text(text, prepared, cfg.tgt, cfg.pretokenized, cfg.lowercase and not cfg.truecase, case)
        log.info("LM%d: %d lines of %s, as the corpus was prepared (%s)", k, n, text, prepared)
        train_lm(prepared, path, cfg.lm_order)

    for k, (text, path) in enumerate(zip(extra_texts, extra_lms), 1):
        _run_stage(f"lm{k}", [path], [Path(text), extra_settings, *truecase_models[1:]], force,
                   lambda k=k, text=text, path=path: extra_lm(k, Path(text), path))
    if until == "lm":
        raise _Done

    def moses_ini() -> None:
        config = baseline_config(str(pt.resolve()), str(ro.resolve()), str(lm.resolve()), cfg.lm_order)
        for path in extra_lms:
            add_lm(config, str(path.resolve()), cfg.lm_order)
        write_config(config, ini)

    lm_inputs = [lm, *extra_lms, extra_settings] if extra_texts else [lm]
    _run_stage("moses.ini", [ini], [pt, ro, settings, *lm_inputs], force or dropped, moses_ini)
    if dropped:
        extra_settings.unlink()
    return ini


def _write_changed(path: Path, settings: dict) -> None:
    """Write the settings as JSON unless the file holds them already (its time says when they changed)."""
    text = json.dumps(settings, indent=2, sort_keys=True) + "\n"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def truecase_model(out: Path, lang: str) -> Path:
    return out / f"truecase-model.{lang}"


def truecase_corpus(corpus: Path, langs: list[str], out: Path) -> None:
    """Moses's pipeline between tokenizing and cleaning: learn a truecasing model of each side
    (OUT/truecase-model.<lang>, from the documents written with case) and truecase the prepared
    corpus with it."""
    docs = Path(f"{corpus}.docs")
    for lang in langs:
        text = Path(f"{corpus}.{lang}")
        used, skipped = train_truecaser(text_documents(text, docs), truecase_model(out, lang))
        log.info("truecasing model %s from %d documents (%d without case skipped)", truecase_model(out, lang),
                 used, skipped)
        if not used:
            log.warning("the %s side has no case: its truecasing model is empty and lowercases the text", lang)
        recase_file(Truecaser(truecase_model(out, lang)).truecase, text, text)
