"""Byte-identical behaviour across a refactoring: the outputs of every pronoun system, recorded as
hashes before and checked after.

    python bench/behaviour.py record [--steps S,...] [--hashes bench/behaviour.sha256]
    python bench/behaviour.py check  [--steps S,...] [--hashes bench/behaviour.sha256]

Each step runs cad's own command line (so that the same script runs on the code before and after
a change of layout) into bench/out/behaviour/ and hashes what it wrote:

- `models`: what `make` trained (phrase, reordering and lexical tables, the LM, the alignment, the
  prepared corpus, coreference over it, the CM tables, the pronoun LM and classifier);
- `pronoun-eval`: `make pronoun-eval`'s experiment run afresh (no cached stage): every system's
  outputs and alignments at every grid weight, the pooled outputs, BL's n-best lists with their
  scores, and the report without its timings;
- `translate`: `cad translate` on the dev talks for BL, PE, CM back-off, CM feature, the
  classifier CM and CM rerank, each with its trace and word alignment;
- `demo`: `make demo`'s two translations of seed 004's text with their traces;
- `score`: `cad score` on the hand-written contrastive suite;
- `es-en`: the untuned Spanish-English model's dev outputs, traces and alignments (BL, back-off and
  feature CM, CorZu's antecedents) and its CM tables (`make es-en`'s model must exist).

Gzipped files are hashed decompressed (a gzip header holds a time). `check` prints every file
whose hash differs and exits 1 if any does.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out" / "behaviour"
SHARED = Path(os.environ.get("SHARED", REPO.parent / "shared" / "data"))
MODEL = REPO / "models" / "baseline"
ES = REPO / "models" / "es-en"
STEPS = ("models", "pronoun-eval", "translate", "demo", "score", "es-en")
# report fields that hold times or paths of this run, not behaviour
VOLATILE = {"seconds", "total_seconds", "coreference_seconds", "total (this run)"}


def data_file(*names: str) -> str:
    """The first of `names` (paths in the repository) that exists: the embedded data moved with
    the layout (cad/cm/demo/ then, cad/data/demo/ now)."""
    for n in names:
        if (REPO / n).exists():
            return n
    raise FileNotFoundError(" or ".join(names))


def cad(*args: str) -> None:
    cmd = [sys.executable, "-m", "cad", "-q", *args]
    print("+ cad " + " ".join(args), file=sys.stderr, flush=True)
    subprocess.run(cmd, cwd=REPO, check=True)


def digest(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return hashlib.sha256(data).hexdigest()


def json_digest(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()


def _strip(obj, root: str = str(REPO)):
    """The report without its timings, and with this checkout's path as <repo> (the same run from
    another checkout names its own files)."""
    if isinstance(obj, dict):
        return {k: _strip(v, root) for k, v in obj.items() if k not in VOLATILE}
    if isinstance(obj, list):
        return [_strip(v, root) for v in obj]
    if isinstance(obj, str) and obj.startswith(root + "/"):
        return "<repo>" + obj[len(root):]
    return obj


def step_models() -> dict[str, str]:
    names = ["corpus.en", "corpus.fr", "corpus.docs", "corpus.lines", "aligned.grow-diag-final-and", "lex.e2f",
             "lex.f2e", "phrase-table.gz", "reordering-table.wbe-msd-bidirectional-fe.gz", "lm.arpa",
             "truecase-model.en", "truecase-model.fr", "corpus.coref.jsonl", "plm/plm.arpa",
             "pronoun-classifier/pronoun_classifier.json", "dev.coref-cv.jsonl"]
    out = {f"models/{n}": digest(MODEL / n) for n in names if (MODEL / n).exists()}
    for n in ("cm.gz", "classes.gz", "classifier.json"):
        out[f"tables/{n}"] = digest(REPO / "tables" / "baseline" / n)
    return out


def step_pronoun_eval() -> dict[str, str]:
    prefix = OUT / "pronoun-eval"
    shutil.rmtree(f"{prefix}.work", ignore_errors=True)
    coref = MODEL / "dev.coref-cv.jsonl"
    if not coref.exists():
        subprocess.run(["make", str(coref.relative_to(REPO))], cwd=REPO, check=True)
    cad("cm", "experiment", "--config", str(MODEL / "moses.ini"), "--classes", "tables/baseline/classes.gz",
        "--cm", "tables/baseline/cm.gz", "--source", f"{SHARED}/en-fr/dev.en", "--reference", f"{SHARED}/en-fr/dev.fr",
        "--align-ref", f"{SHARED}/en-fr/dev.en-fr.alig", "--docs", f"{SHARED}/en-fr/dev.docs", "--coref", str(coref),
        "--objective", "credit", "--grid", "1,3", "--gold", f"{SHARED}/coref/parcorfull/corpus/TED/EN",
        "--out", str(prefix))
    work = Path(f"{prefix}.work")
    out = {}
    for f in sorted(work.iterdir()):
        if f.suffix in (".out", ".align") or f.name.startswith(("source.", "reference.")):
            out[f"pronoun-eval/{f.name}"] = digest(f)
        elif f.suffix == ".json":
            saved = json.loads(f.read_text(encoding="utf-8"))
            out[f"pronoun-eval/{f.name}"] = json_digest({"outputs": saved["outputs"], "alignments": saved["alignments"]})
        elif f.name == "bl.json.gz":
            out["pronoun-eval/bl.json.gz"] = json_digest(json.loads(gzip.decompress(f.read_bytes()))["translations"])
    report = json.loads(Path(f"{prefix}.json").read_text(encoding="utf-8"))
    out["pronoun-eval/report.json"] = json_digest(_strip(report))
    return out


def _translate(name: str, extra: list[str], source: str, docs: str) -> dict[str, str]:
    base = OUT / "translate" / name
    base.parent.mkdir(parents=True, exist_ok=True)
    cad("translate", "--input", source, "--docs", docs, "--trace", f"{base}.trace.jsonl",
        "--alignment-out", f"{base}.align", "--out", f"{base}.out", *extra)
    return {f"translate/{name}.{s}": digest(Path(f"{base}.{s}")) for s in ("out", "align", "trace.jsonl")}


def step_translate() -> dict[str, str]:
    src, docs = f"{SHARED}/en-fr/dev.en", f"{SHARED}/en-fr/dev.docs"
    ini = str(MODEL / "moses.ini")
    out = {}
    out.update(_translate("bl", ["--config", ini, "--system", "baseline"], src, docs))
    out.update(_translate("pe", ["--config", ini, "--system", "pe"], src, docs))
    out.update(_translate("backoff", ["--config", "moses_configs/baseline.ini"], src, docs))
    out.update(_translate("feature", ["--config", "moses_configs/baseline.feature.ini"], src, docs))
    out.update(_translate("classifier", ["--config", "moses_configs/baseline.classifier.ini"], src, docs))
    out.update(_translate("rerank", ["--config", ini, "--cm-mode", "rerank", "--classes",
                                     "tables/baseline/classes.gz", "--cm-weight", "3"], src, docs))
    return out


def step_demo() -> dict[str, str]:
    out = {}
    d = OUT / "demo"
    d.mkdir(parents=True, exist_ok=True)
    for name, ini in (("feature", "moses_configs/baseline.feature.ini"), ("backoff", "moses_configs/baseline.ini")):
        demo = data_file("cad/data/demo/seed004.en", "cad/cm/demo/seed004.en")
        cad("translate", "--config", ini, "--input", demo, "--raw", "--trace", str(d / f"{name}.trace.jsonl"),
            "--detokenize", "--out", str(d / f"{name}.out"))
        out[f"demo/{name}.out"] = digest(d / f"{name}.out")
        out[f"demo/{name}.trace.jsonl"] = digest(d / f"{name}.trace.jsonl")
    return out


def step_score() -> dict[str, str]:
    OUT.mkdir(parents=True, exist_ok=True)
    cad("score", "--config", "moses_configs/baseline.feature.ini", "--suite",
        data_file("cad/data/contrastive-en-fr.jsonl", "cad/cm/data/contrastive-en-fr.jsonl"),
        "--out", str(OUT / "score.tsv"))
    return {"score.tsv": digest(OUT / "score.tsv")}


def step_es_en() -> dict[str, str]:
    nc = SHARED / "es-en" / "nc11"
    src, docs = str(ES / "dev.lc.es"), str(nc / "dev.docs")
    corzu = ["--src", "es", "--tgt", "en", "--backend", "corzu", "--corzu", str(nc / "corzu.dev.jsonl"),
             "--gender-lexicon", str(ES / "genders.es.tsv")]
    out = {}
    out.update(_translate("es-en.bl", ["--config", str(ES / "moses.ini"), "--system", "baseline", *corzu], src, docs))
    out.update(_translate("es-en.backoff", ["--config", "moses_configs/es-en.ini", *corzu], src, docs))
    out.update(_translate("es-en.feature", ["--config", "moses_configs/es-en.feature.ini", *corzu], src, docs))
    for n in ("cm.gz", "classes.gz"):
        out[f"tables/es-en/{n}"] = digest(REPO / "tables" / "es-en" / n)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=("record", "check"))
    ap.add_argument("--steps", default=",".join(STEPS), help=f"comma-separated subset of {', '.join(STEPS)}")
    ap.add_argument("--hashes", default=str(REPO / "bench" / "behaviour.sha256"),
                    help="the recorded hashes, one 'sha256  name' line each")
    a = ap.parse_args()
    steps = [s for s in a.steps.split(",") if s]
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        ap.error(f"unknown step(s): {', '.join(unknown)}")
    path = Path(a.hashes)
    recorded: dict[str, str] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            h, _, name = line.partition("  ")
            recorded[name] = h
    fns = {"models": step_models, "pronoun-eval": step_pronoun_eval, "translate": step_translate,
           "demo": step_demo, "score": step_score, "es-en": step_es_en}
    now: dict[str, str] = {}
    for s in steps:
        got = fns[s]()
        now.update(got)
        print(f"{s}: {len(got)} files hashed", file=sys.stderr)
    if a.mode == "record":
        recorded.update(now)
        path.write_text("".join(f"{h}  {n}\n" for n, h in sorted(recorded.items())), encoding="utf-8")
        print(f"{len(now)} hashes recorded in {path}")
        return 0
    differ = [n for n in sorted(now) if recorded.get(n) != now[n]]
    for n in differ:
        print(f"DIFFERS: {n}" if n in recorded else f"NOT RECORDED: {n}")
    print(f"{len(now) - len(differ)} of {len(now)} files identical to the recorded hashes")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
