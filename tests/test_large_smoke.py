"""`make large` end to end on a slice: 2,000 raw Hansard pairs and 1,000 lines of the 33k corpus go
through every stage the million-pair model goes through (the Hansard tokenized in shards, the two
corpora joined with their documents, truecasing, alignment, phrase and reordering tables, the LM,
binary tables, coreference over the corpus, the three CMs, the pronoun LM and classifier, the demo),
with every output outside the repository. CI trains the 33k model; the large one never runs there."""

import gzip
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, SHARED

HANSARD = SHARED / "en-fr" / "hansard" / "train"
SMALL = SHARED / "en-fr" / "train"


def _slice(tmp: Path, hansard_lines: int, small_lines: int) -> tuple[Path, Path]:
    (tmp / "h").mkdir()
    (tmp / "s").mkdir()
    for lang in ("en", "fr"):
        with gzip.open(f"{HANSARD}.{lang}.gz", "rt", encoding="utf-8") as src, \
                gzip.open(tmp / "h" / f"train.{lang}.gz", "wt", encoding="utf-8") as out:
            for _, line in zip(range(hansard_lines), src):
                out.write(line)
        with open(f"{SMALL}.{lang}", encoding="utf-8") as src, \
                open(tmp / "s" / f"train.{lang}", "w", encoding="utf-8") as out:
            for _, line in zip(range(small_lines), src):
                out.write(line)
    for source, out, n in ((f"{HANSARD}.docs", tmp / "h" / "train.docs", hansard_lines),
                           (f"{SMALL}.docs", tmp / "s" / "train.docs", small_lines)):
        rows = [r for r in Path(source).read_text(encoding="utf-8").splitlines() if int(r.split("\t")[0]) < n]
        out.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return tmp / "h" / "train", tmp / "s" / "train"


def test_make_large_runs_every_stage_on_a_hansard_slice(tmp_path):
    if not Path(f"{HANSARD}.en.gz").exists() or not Path(f"{SMALL}.en").exists():
        pytest.skip(f"the Hansard or the 33k corpus not found under {SHARED} (set CAD_SHARED_DATA)")
    if shutil.which("make") is None or not (REPO / ".venv" / ".installed").exists():
        pytest.skip("needs make and the installed .venv (run `make` first)")
    hansard, small = _slice(tmp_path, 2000, 1000)
    out, tables, configs = tmp_path / "out", tmp_path / "tables", tmp_path / "configs"
    mine = [REPO / "tables" / "large", REPO / "moses_configs" / "large.ini", REPO / "models" / "large" / "moses.ini"]
    before = [p.stat().st_mtime_ns if p.exists() else None for p in mine]
    run = subprocess.run(["make", "-s", "MODEL=large", f"OUT={out}", f"TABLES={tables}", f"CONFIGS={configs}",
                          f"HANSARD={hansard}", f"SMALL_CORPUS={small}", f"SHARED={SHARED}", "WORKERS=2"],
                         cwd=REPO, capture_output=True, text=True, env={**os.environ, "MAKEFLAGS": ""})
    assert run.returncode == 0, run.stderr[-3000:]
    # the two corpora as one, documents and all: the Hansard's documents after the 33k corpus's
    docs = (out / "mixed.docs").read_text(encoding="utf-8").splitlines()
    assert docs[0].startswith("0\t") and docs[-1].split("\t")[1].startswith("hansard:36.1.house.debates.")
    n_hansard = sum(1 for _ in open(out / "hansard.en", encoding="utf-8"))
    assert 1900 <= n_hansard <= 2000      # cleaning drops the pairs whose side is empty
    assert sum(1 for _ in open(out / "mixed.en", encoding="utf-8")) == 1000 + n_hansard
    # the Hansard was tokenized by the pipeline (raw text in, Moses tokens out)
    assert " ," in (out / "hansard.en").read_text(encoding="utf-8") or " ." in (out / "hansard.en").read_text(encoding="utf-8")
    for name in ("moses.ini", "phrase-table.gz", "phrase-table.cadphr", "lm.arpa", "truecase-model.en",
                 "corpus.coref.jsonl", "plm/plm.arpa", "pronoun-classifier/pronoun_classifier.json",
                 "demo.feature.trace.jsonl", "demo.view.html"):
        assert (out / name).stat().st_size > 0, name
    # the in-domain LM (LM1) on the 33k slice's French, made as the corpus was, beside the whole corpus's
    assert sum(1 for _ in open(out / "lm1.fr", encoding="utf-8")) == 1000
    assert "name=LM1" in (out / "moses.ini").read_text(encoding="utf-8")
    for name in ("cm.gz", "classes.gz", "classifier.json"):
        assert (tables / "large" / name).stat().st_size > 0, name
    for name in ("large.ini", "large.feature.ini", "large.classifier.ini"):
        assert str(tables / "large") in (configs / name).read_text(encoding="utf-8"), name
    # nothing was written into the repository's own large model, tables and configurations
    assert [p.stat().st_mtime_ns if p.exists() else None for p in mine] == before
    # the configurations translate: the demo's CM trace names a pronoun and its antecedent
    trace = (out / "demo.feature.trace.jsonl").read_text(encoding="utf-8")
    assert '"antecedent' in trace
