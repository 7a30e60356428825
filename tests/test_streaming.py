"""`cad decode` and `cad translate` write each sentence (document) as soon as it is done, in order,
with the batch run's output; blank lines come out as empty lines; long lines are split or passed
through; Ctrl-C stops cleanly (finished output kept, one line on stderr, exit 130, no traceback);
an output that is a directory is refused before any work; -q goes anywhere."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cad.cli import main
from cad.core.segments import split_points
from conftest import REPO, write
from decoder_fixtures import random_model

ENV = {**os.environ, "PYTHONPATH": str(REPO), "CAD_NO_PROGRESS": "1"}


def _cad(*args, stdin=None, **kw):
    return subprocess.run([sys.executable, "-m", "cad", *args], input=stdin, capture_output=True, text=True,
                          env=ENV, **kw)


def test_stdin_file_and_threads_give_the_same_streamed_output(tmp_path):
    ini, sentences = random_model(tmp_path, 21, n_sentences=30)
    text = "\n".join(sentences) + "\n"
    write(tmp_path / "in", text)
    runs = []
    for args, stdin in ((["-input-file", str(tmp_path / "in")], None), ([], text),
                        (["-input-file", str(tmp_path / "in"), "-threads", "2"], None), (["-threads", "2"], text)):
        nb = tmp_path / f"nb{len(runs)}"
        proc = _cad("-q", "decode", "-f", str(ini), "-n-best-list", str(nb), "5", *args, stdin=stdin)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        runs.append((proc.stdout, nb.read_text()))
    assert all(r == runs[0] for r in runs) and runs[0][0].count("\n") == 30


def test_blank_lines_round_trip(tmp_path):
    ini, sentences = random_model(tmp_path, 22, n_sentences=3)
    text = f"{sentences[0]}\n\n{sentences[1]}\n   \n{sentences[2]}\n"
    proc = _cad("decode", "-f", str(ini), "-alignment-output-file", str(tmp_path / "al"), stdin=text)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split("\n")
    assert len(lines) == 6 and lines[1] == "" and lines[3] == "" and all(lines[k] for k in (0, 2, 4))
    assert (tmp_path / "al").read_text().split("\n")[1] == ""


def test_long_lines_split_or_pass_with_a_warning(tmp_path, capsys, caplog):
    ini, sentences = random_model(tmp_path, 23, n_sentences=4)
    long = " ".join(sentences)
    n = len(long.split())
    write(tmp_path / "in", f"{sentences[0]}\n{long}\n")
    assert main(["decode", "-f", str(ini), "-input-file", str(tmp_path / "in"), "--max-sentence-length", "5",
                 "-alignment-output-file", str(tmp_path / "al")]) == 0
    out, err = capsys.readouterr()
    err = caplog.text
    split = out.split("\n")[1]
    pieces = split_points(long.split(), 5)
    assert f"line 2: {n} words, more than --max-sentence-length 5: translated in {len(pieces)} pieces" in err
    assert "line 1" not in err
    # each piece is translated as a sentence of its own; the alignment points into the whole line
    points = [tuple(map(int, p.split("-"))) for p in (tmp_path / "al").read_text().split("\n")[1].split()]
    assert max(s for s, _ in points) == n - 1 and max(t for _, t in points) == len(split.split()) - 1
    assert main(["decode", "-f", str(ini), "-input-file", str(tmp_path / "in"), "--max-sentence-length", "5",
                 "--long-sentences", "pass"]) == 0
    out, err = capsys.readouterr()
    assert out.split("\n")[1] == long and "passed through untranslated" in caplog.text


def test_split_points_prefer_punctuation():
    toks = "a b c , d e f g h i".split()
    assert split_points(toks, 6) == [(0, 4), (4, 10)]
    assert split_points(toks, 3) == [(0, 3), (3, 6), (6, 9), (9, 10)]
    assert split_points([], 3) == []


def test_quiet_anywhere_and_an_output_directory_refused_first(tmp_path):
    ini, sentences = random_model(tmp_path, 24, n_sentences=2)
    write(tmp_path / "in", "\n".join(sentences) + "\n")
    proc = _cad("decode", "-f", str(ini), "-input-file", str(tmp_path / "in"), "-v", "1", "-q")
    assert proc.returncode == 0 and proc.stderr == ""
    proc = _cad("moses-ini", "check", str(ini), "-q")
    assert proc.returncode == 0
    (tmp_path / "dir").mkdir()
    proc = _cad("decode", "-f", str(ini), "-input-file", str(tmp_path / "in"), "-n-best-list", str(tmp_path / "dir"),
                "3")
    assert proc.returncode == 1 and "is a directory" in proc.stderr and proc.stdout == ""
    proc = _cad("symmetrize", "--src", "x", "--tgt", "x", "--fwd", "x", "--rev", "x", "--out", str(tmp_path / "dir"))
    assert proc.returncode == 2 and "argument --out" in proc.stderr and "is a directory" in proc.stderr


def _interrupt(cmd: list[str], wait_lines: int, stdin_path: Path | None = None):
    """Run `cad cmd`, send SIGINT to its process group once `wait_lines` lines are out."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    proc = subprocess.Popen([sys.executable, "-m", "cad", *cmd], stdin=stdin, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=ENV, start_new_session=True)
    got = []
    try:
        while len(got) < wait_lines:
            line = proc.stdout.readline()
            assert line, proc.stderr.read().decode()
            got.append(line)
        os.killpg(proc.pid, signal.SIGINT)
        rest, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        if stdin_path:
            stdin.close()
    return proc.returncode, b"".join(got) + rest, err.decode()


@pytest.mark.parametrize("threads", ["1", "2"])
def test_ctrl_c_keeps_the_finished_lines(tmp_path, threads):
    ini, sentences = random_model(tmp_path, 25, n_sentences=40)
    many = (sentences * 400)[:12000]
    write(tmp_path / "in", "\n".join(many) + "\n")
    full = _cad("-q", "decode", "-f", str(ini), "-input-file", str(tmp_path / "in"), "-threads", threads,
                "-n-best-list", str(tmp_path / "nb.full"), "3")
    assert full.returncode == 0
    code, out, err = _interrupt(["-q", "decode", "-f", str(ini), "-input-file", str(tmp_path / "in"), "-threads",
                                 threads, "-n-best-list", str(tmp_path / "nb"), "3"], 50)
    assert code == 130 and "Traceback" not in err and err.strip() == "cad: interrupted", err
    lines = out.decode().split("\n")[:-1]
    assert 50 <= len(lines) < 12000 and lines == full.stdout.split("\n")[:len(lines)]
    nb = (tmp_path / "nb").read_text()
    assert nb.endswith("\n") and full.stdout and (tmp_path / "nb.full").read_text().startswith(nb)
    time.sleep(0.2)
