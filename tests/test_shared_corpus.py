"""Training on the shared English-French data (skipped where ../shared/data is absent)."""

import gzip
import itertools

import pytest

from cad.cli import main
from cad.moses.check import check_config

from conftest import write


def head(src, dst, n):
    with open(src, encoding="utf-8") as fh:
        write(dst, "".join(itertools.islice(fh, n)))


def test_train_on_shared_excerpt_with_test_set_alignment(shared_data, tmp_path):
    for ext in ("en", "fr"):
        head(shared_data / "en-fr" / f"train.{ext}", tmp_path / f"c.{ext}", 1500)
        head(shared_data / "en-fr" / f"dev.{ext}", tmp_path / f"t.{ext}", 40)
    out = tmp_path / "m"
    assert main(["-q", "train", "--corpus", str(tmp_path / "c"), "--tokenized", "--out", str(out),
                 "--test", str(tmp_path / "t")]) == 0
    check_config(str(out / "moses.ini"))
    test_al = (out / "test.aligned.grow-diag-final-and").read_text().splitlines()
    assert len(test_al) == 40 and all(test_al)
    src = (tmp_path / "t.en").read_text().splitlines()
    tgt = (tmp_path / "t.fr").read_text().splitlines()
    for line, s, t in zip(test_al, src, tgt):
        for pt in line.split():
            i, j = map(int, pt.split("-"))
            assert i < len(s.split()) and j < len(t.split())
    # the projected alignment of "it" in the training corpus mostly lands on French pronouns
    table = gzip.open(out / "phrase-table.gz", "rt", encoding="utf-8").read().splitlines()
    best_it = max((l for l in table if l.startswith("it ||| ")), key=lambda l: float(l.split(" ||| ")[2].split()[2]))
    assert best_it.split(" ||| ")[1] in {"il", "elle", "ce", "c'", "cela", "ça", "le", "l'"}


@pytest.mark.slow
def test_train_on_full_shared_corpus(shared_data, tmp_path):
    out = tmp_path / "m"
    assert main(["-q", "train", "--corpus", str(shared_data / "en-fr" / "train"), "--tokenized", "--out", str(out)]) == 0
    report = check_config(str(out / "moses.ini"))
    assert any("phrase pairs" in r for r in report)
