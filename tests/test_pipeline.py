"""End to end: the `cad` command on the embedded sample corpus, with real eflomal alignment."""

import gzip
import subprocess
import sys

import pytest

from cad.cli import main
from cad.moses.check import check_config
from cad.moses.filter import filter_model
from cad.moses.ini import parse_config
from cad.sample import SAMPLE_PREFIX
from cad.sample.generate import write_sample

from conftest import write


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("model")
    assert main(["-q", "train", "--corpus", str(SAMPLE_PREFIX), "--out", str(out)]) == 0
    return out


def test_train_produces_a_checkable_moses_model(trained):
    for name in ("moses.ini", "phrase-table.gz", "reordering-table.wbe-msd-bidirectional-fe.gz", "lm.arpa",
                 "aligned.grow-diag-final-and", "lex.f2e", "lex.e2f", "corpus.docs", "train.log"):
        assert (trained / name).exists(), name
    report = check_config(str(trained / "moses.ini"))
    assert len(report) == 7
    table = gzip.open(trained / "phrase-table.gz", "rt").read().splitlines()
    assert table == sorted(table)
    # the sample's pronouns: "it" is translated by both il and elle
    its = {line.split(" ||| ")[1] for line in table if line.startswith("it ||| ")}
    assert {"il", "elle"} <= its
    assert len(gzip.open(trained / "reordering-table.wbe-msd-bidirectional-fe.gz", "rt").read().splitlines()) == len(table)


def test_train_is_incremental_and_deterministic(trained, tmp_path, caplog):
    before = {p.name: p.read_bytes() for p in trained.iterdir() if p.is_file()}
    caplog.set_level("INFO")
    assert main(["train", "--corpus", str(SAMPLE_PREFIX), "--out", str(trained)]) == 0
    assert "[phrases] up to date, skipped" in caplog.text
    again = tmp_path / "again"
    assert main(["-q", "train", "--corpus", str(SAMPLE_PREFIX), "--out", str(again)]) == 0
    for name in ("aligned.grow-diag-final-and", "phrase-table.gz", "lm.arpa"):
        assert (again / name).read_bytes() == before[name], f"{name} differs between two runs"


def test_filter_keeps_only_input_phrases(trained, tmp_path):
    inp = write(tmp_path / "in.txt", "the cat is big .\n")
    cfg = filter_model(trained / "moses.ini", inp, tmp_path / "filtered")
    pt = cfg.feature("TranslationModel0").path
    sources = {line.split(" ||| ")[0] for line in gzip.open(pt, "rt")}
    assert sources and sources <= {"the", "cat", "is", "big", ".", "the cat", "cat is", "is big", "big .",
                                    "the cat is", "cat is big", "is big .", "the cat is big", "cat is big .",
                                    "the cat is big ."}
    assert "it" not in sources
    assert check_config(str(tmp_path / "filtered" / "moses.ini"))
    assert parse_config(tmp_path / "filtered" / "moses.ini").feature("LM0").path == str((trained / "lm.arpa").resolve())


def test_cli_errors_exit_nonzero(tmp_path, capsys):
    write(tmp_path / "c.en", "a\nb\n")
    write(tmp_path / "c.fr", "x\n")
    assert main(["train", "--corpus", str(tmp_path / "c"), "--out", str(tmp_path / "m")]) == 1
    err = capsys.readouterr().err
    assert "c.fr:2" in err and "same number of lines" in err
    assert not (tmp_path / "m" / "corpus.en").exists()
    bad = write(tmp_path / "bad.ini", "[feature]\nWordPenalty\n[weight]\nWordPenalty0= 1 2\n")
    proc = subprocess.run([sys.executable, "-m", "cad", "moses-ini", "check", str(bad)], capture_output=True, text=True)
    assert proc.returncode == 1 and "bad.ini:4" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "cad", "train", "--no-such-option"], capture_output=True, text=True)
    assert proc.returncode == 2


def test_sample_corpus_is_generated_by_the_project(tmp_path):
    write_sample(tmp_path / "s")
    for ext in ("en", "fr", "docs"):
        assert (tmp_path / f"s.{ext}").read_bytes() == SAMPLE_PREFIX.with_suffix(f".{ext}").read_bytes()
    assert len((tmp_path / "s.en").read_text().splitlines()) >= 200


def test_train_log_records_the_stages(trained):
    log = (trained / "train.log").read_text()
    for stage in ("prepare", "align", "lex", "phrases", "lm", "moses.ini"):
        assert f"[{stage}]" in log


def test_train_reads_gzipped_corpora(trained, tmp_path):
    # Moses's tools take corpus.<lang>.gz; the same corpus gzipped gives the same tables
    for lang in ("en", "fr"):
        data = open(f"{SAMPLE_PREFIX}.{lang}", "rb").read()
        with gzip.open(tmp_path / f"c.{lang}.gz", "wb") as fh:
            fh.write(data)
    (tmp_path / "c.docs").write_bytes(open(f"{SAMPLE_PREFIX}.docs", "rb").read())
    assert main(["-q", "train", "--corpus", str(tmp_path / "c"), "--out", str(tmp_path / "m")]) == 0
    for name in ("corpus.en", "phrase-table.gz", "lm.arpa"):
        assert (tmp_path / "m" / name).read_bytes() == (trained / name).read_bytes(), name


def test_train_truecases_the_corpus_as_moses_does(tmp_path):
    # the second document was released lowercased: the truecasers skip it, and truecase it too
    write(tmp_path / "c.en", "The cat saw Paris .\nParis saw the cat .\nthe mouse saw paris .\n")
    write(tmp_path / "c.fr", "Le chat a vu Paris .\nParis a vu le chat .\nla souris a vu paris .\n")
    write(tmp_path / "c.docs", "0\ta\n2\tb\n")
    out = tmp_path / "m"
    # truecasing is the default (--truecase says so explicitly)
    assert main(["-q", "train", "--corpus", str(tmp_path / "c"), "--tokenized", "--out", str(out),
                 "--until", "prepare"]) == 0
    assert (out / "corpus.en").read_text(encoding="utf-8") == \
        "the cat saw Paris .\nParis saw the cat .\nthe mouse saw Paris .\n"
    assert (out / "corpus.fr").read_text(encoding="utf-8") == \
        "le chat a vu Paris .\nParis a vu le chat .\nla souris a vu Paris .\n"
    assert "Paris (1/1)" in (out / "truecase-model.fr").read_text(encoding="utf-8").splitlines()
    assert "paris" not in (out / "truecase-model.en").read_text(encoding="utf-8")
    # --truecase and --no-lowercase or --lowercase contradict each other
    for other in ("--no-lowercase", "--lowercase"):
        with pytest.raises(SystemExit):
            main(["train", "--corpus", str(tmp_path / "c"), "--truecase", other, "--out", str(out)])
    # retrained lowercased: the corpus lowercased, and no truecasing model left to be read as the model's
    assert main(["-q", "train", "--corpus", str(tmp_path / "c"), "--tokenized", "--lowercase", "--out", str(out),
                 "--until", "prepare"]) == 0
    assert (out / "corpus.en").read_text(encoding="utf-8") == \
        "the cat saw paris .\nparis saw the cat .\nthe mouse saw paris .\n"
    assert not list(out.glob("truecase-model.*"))


def test_a_full_disk_stops_a_stage_naming_its_file_and_the_rerun_resumes(tmp_path, monkeypatch, capsys, caplog):
    """The LM stage's output fails to flush (ENOSPC, as on a full disk): `cad train` exits 1 naming
    the file, with no traceback and no lm.arpa; the next run skips the finished stages (prepare to
    phrases) and redoes only the LM and moses.ini."""
    import errno

    from cad.core import textio

    real_open = open

    class Full:
        """A file whose every flush fails as a full disk does."""

        def __init__(self, fh):
            self.fh = fh

        def write(self, text):
            return len(text)

        def close(self):
            self.fh.close()
            raise OSError(errno.ENOSPC, "No space left on device")

        def __getattr__(self, name):
            return getattr(self.fh, name)

    def full_for_lm(path, *args, **kwargs):
        fh = real_open(path, *args, **kwargs)
        return Full(fh) if ".lm.arpa." in str(path) else fh

    out = tmp_path / "m"
    monkeypatch.setattr(textio, "open", full_for_lm, raising=False)
    assert main(["-q", "train", "--corpus", str(SAMPLE_PREFIX), "--out", str(out), "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert f"{out / 'lm.arpa'}: cannot write: No space left on device" in err and "Traceback" not in err
    assert not (out / "lm.arpa").exists() and not list(out.glob(".lm.arpa.*"))
    assert (out / "phrase-table.gz").exists() and not (out / "moses.ini").exists()
    monkeypatch.undo()
    caplog.set_level("INFO")
    assert main(["train", "--corpus", str(SAMPLE_PREFIX), "--out", str(out), "--workers", "1"]) == 0
    for stage in ("prepare", "align", "lex", "phrases"):
        assert f"[{stage}] up to date, skipped" in caplog.text
    assert "[lm] running" in caplog.text and (out / "moses.ini").exists()
