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
    # SIGINT as a terminal's foreground job has it: a runner that started the tests in the
    # background (`cmd &` in a script) leaves it ignored, and an ignored signal is inherited
    # unbuffered: communicate() reads the pipe's descriptor itself, so lines a buffered readline()
    # had read ahead would be lost from the output (a CI run under load saw lines 51-59 missing)
    proc = subprocess.Popen([sys.executable, "-m", "cad", *cmd], stdin=stdin, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=ENV, start_new_session=True, bufsize=0,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
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


def _docs(tmp_path, n_docs: int, sentences: list[str]):
    lines, starts = [], []
    for k in range(n_docs):
        starts.append(f"{len(lines)}\tdoc-{k}")
        lines += [sentences[(k + i) % len(sentences)] for i in range(3)]
    return write(tmp_path / "docs.en", "\n".join(lines) + "\n"), write(tmp_path / "docs.docs", "\n".join(starts) + "\n")


def test_translate_streams_the_batch_output(tmp_path):
    """cad translate's output, alignment and trace, to files or standard output, with the spaCy work
    ahead in a worker or in the process, are the batch run's: the decoder's translation of each line."""
    ini, sentences = random_model(tmp_path, 26, n_sentences=12)
    text, docs = _docs(tmp_path, 5, sentences)
    base = ["-q", "translate", "--config", str(ini), "--system", "baseline", "--input", str(text), "--docs", str(docs),
            "--no-lowercase"]
    to_files = _cad(*base, "--out", str(tmp_path / "out"), "--alignment-out", str(tmp_path / "al"))
    to_stdout = _cad(*base, "--alignment-out", str(tmp_path / "al2"))
    assert to_files.returncode == to_stdout.returncode == 0, to_files.stderr
    assert (tmp_path / "out").read_text() == to_stdout.stdout and (tmp_path / "al").read_text() == \
        (tmp_path / "al2").read_text()
    decoded = _cad("-q", "decode", "-f", str(ini), "-input-file", str(text), "-alignment-output-file",
                   str(tmp_path / "al3"))
    assert decoded.stdout == to_stdout.stdout and (tmp_path / "al3").read_text() == (tmp_path / "al").read_text()
    assert "translated 15 sentences" in to_stdout.stderr
    one = _cad("-q", "translate", "--config", str(ini), "--system", "baseline", "--input",
               write(tmp_path / "one.en", sentences[0] + "\n"))
    assert "translated 1 sentence in" in one.stderr


def test_translate_blank_lines_and_an_output_directory(tmp_path):
    ini, sentences = random_model(tmp_path, 27, n_sentences=3)
    src = write(tmp_path / "in", f"{sentences[0]}\n\n{sentences[1]}\n")
    proc = _cad("-q", "translate", "--config", str(ini), "--system", "baseline", "--input", str(src),
                "--alignment-out", str(tmp_path / "al"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[1] == "" and len(proc.stdout.split("\n")) == 4
    assert (tmp_path / "al").read_text().split("\n")[1] == ""
    (tmp_path / "dir").mkdir()
    start = time.time()
    proc = _cad("translate", "--config", str(ini), "--input", str(src), "--out", str(tmp_path / "dir"))
    assert proc.returncode == 2 and "argument --out: " in proc.stderr and "is a directory" in proc.stderr
    assert "Traceback" not in proc.stderr and time.time() - start < 30


def test_trace_names_documents_by_their_ids(tmp_path):
    """Two two-sentence documents, each with a pronoun whose antecedent is in its first sentence:
    the records carry the --docs id and the document's number, and the sentences of the input."""
    ini, _ = random_model(tmp_path, 28)
    src = write(tmp_path / "in", "My cat caught a mouse .\nIt was not dead .\nThe dog barked .\nThey were loud .\n")
    docs = write(tmp_path / "docs", "0\ttalk-7\n2\ttalk-9\n")
    proc = _cad("-q", "translate", "--config", str(ini), "--system", "baseline", "--input", str(src), "--docs",
                str(docs), "--trace", str(tmp_path / "trace"))
    assert proc.returncode == 0, proc.stderr
    import json

    recs = [json.loads(line) for line in (tmp_path / "trace").read_text().splitlines()]
    assert [(r["doc"], r["doc_index"], r["pronoun"].lower(), r["sentence"], r["index"], r["antecedent_sentence"])
            for r in recs] == [("talk-7", 0, "it", 1, 0, 0), ("talk-9", 1, "they", 1, 0, 0)]
    assert recs[0]["antecedent"] in ("My cat", "a mouse")


def test_translate_ctrl_c_keeps_the_finished_documents(tmp_path):
    """SIGINT to the process group while the analysis worker and the decoder run: the documents
    written stay (the batch run's first lines), one line on stderr, exit 130, no traceback."""
    ini, sentences = random_model(tmp_path, 29, n_sentences=12)
    text, docs = _docs(tmp_path, 1500, sentences)
    base = ["-q", "translate", "--config", str(ini), "--system", "baseline", "--input", str(text), "--docs",
            str(docs), "--no-lowercase"]
    full = _cad(*base)
    assert full.returncode == 0
    code, out, err = _interrupt([*base, "--trace", str(tmp_path / "trace")], 30)
    assert code == 130 and "Traceback" not in err and err.strip() == "cad: interrupted", err
    lines = out.decode().split("\n")[:-1]
    assert 30 <= len(lines) < 4500 and len(lines) % 3 == 0 and lines == full.stdout.split("\n")[:len(lines)]
    assert (tmp_path / "trace").exists()
