"""Command-line conventions (issue 16): every option documented with its default, and '-' for
standard input and output, as Moses, sacrebleu and Unix tools."""

import argparse
import io
import sys

import pytest
from conftest import write

from cad import cli
from cad.core import textio
from cad.cli import main
from cad.core.errors import CadError


def _walk(parser, path=()):
    yield path, parser, None
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, sp in a.choices.items():
                yield from _walk(sp, path + (name,))
        elif not isinstance(a, argparse._HelpAction):
            yield path, parser, a


def _actions():
    return [(path, a) for path, _, a in _walk(cli.build_parser()) if a is not None]


def _stdin(monkeypatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8"))


# -- every option documented ---------------------------------------------------------------------

def test_every_option_has_help_and_states_its_default():
    undocumented, unstated = [], []
    for path, a in _actions():
        name = " ".join(("cad",) + path) + " " + ("/".join(a.option_strings) or a.dest)
        h = a.help or ""
        if not h.strip() or h == argparse.SUPPRESS:
            undocumented.append(name)
        elif (a.default not in (None, False, argparse.SUPPRESS) and "default" not in h.lower()
              and "%(default)" not in h):
            unstated.append(f"{name} (default {a.default!r})")
    assert len(_actions()) > 150         # the walker sees the nested subcommands (cad eval bleu, ...)
    assert not undocumented, "options without help: " + ", ".join(undocumented)
    assert not unstated, "defaults not stated in the help: " + ", ".join(unstated)


def test_the_walker_catches_an_option_without_help():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    s = sub.add_parser("x").add_subparsers().add_parser("y")
    s.add_argument("--undocumented", type=int, default=3)
    assert [a.dest for path, _, a in _walk(p) if a is not None and not a.help] == ["undocumented"]


def test_every_help_renders():
    for path, parser, a in _walk(cli.build_parser()):
        if a is None and path != ("decode",):       # cad decode has its own Moses-style usage text
            text = parser.format_help()
            assert "%(" not in text, path


def test_stdio_options_say_so_in_their_help():
    n_in = n_out = 0
    for path, parser, a in _walk(cli.build_parser()):
        if a is None:
            continue
        if (a.dest, (a.option_strings or [a.dest])[0]) in (parser.get_default("_stdin_options") or ()):
            assert "'-' = stdin" in a.help, (path, a.dest)
            n_in += 1
        if (a.dest, (a.option_strings or [a.dest])[0]) in (parser.get_default("_stdout_options") or ()):
            assert "stdout" in a.help, (path, a.dest)
            n_out += 1
    assert n_in > 30 and n_out > 10


# -- '-' in textio -------------------------------------------------------------------------------

def test_read_lines_reads_standard_input_once(monkeypatch):
    _stdin(monkeypatch, "a\nb\n")
    assert list(textio.read_lines("-")) == ["a", "b"]
    with pytest.raises(CadError, match="standard input was already read"):
        list(textio.read_lines("-"))
    monkeypatch.setattr(sys, "stdin", io.StringIO("text stream\n"))     # no .buffer underneath
    assert list(textio.read_lines("-")) == ["text stream"]
    with pytest.raises(CadError, match="reads its input twice"):
        textio.count_lines("-")


def test_atomic_output_to_stdout_only_on_success(capsys):
    with textio.atomic_output("-") as fh:
        fh.write("one\n")
    assert capsys.readouterr().out == "one\n"
    with pytest.raises(RuntimeError):
        with textio.atomic_output("-") as fh:
            fh.write("half\n")
            raise RuntimeError("failed")
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("binary,compress", [(False, False), (True, False), (False, True)])
def test_atomic_output_writes_a_pipe_in_place(tmp_path, binary, compress):
    # as /dev/null or a FIFO: a temporary file renamed over it would replace the device itself
    import gzip
    import os
    import stat
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    with textio.atomic_output(fifo, binary=binary, compress=compress) as fh:
        fh.write(b"one\n" if binary else "un \u00e9t\u00e9\n")
    reader.join(10)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]
    data = gzip.decompress(got[0]) if compress else got[0]
    assert data == ("one\n" if binary else "un \u00e9t\u00e9\n").encode("utf-8")


# -- commands: '-' gives the same as the file ----------------------------------------------------

HYP = "le chat est noir .\nil dort .\n"
REF = "le chat est noir .\nelle dort bien .\n"


def test_eval_bleu_candidate_and_reference_from_stdin(tmp_path, monkeypatch, capsys):
    h, r = write(tmp_path / "h", HYP), write(tmp_path / "r", REF)
    assert main(["eval", "bleu", "--candidate", str(h), "--reference", str(r)]) == 0
    from_files = capsys.readouterr().out
    assert from_files.startswith("BLEU|nrefs:1|case:mixed|") and " (BP = " in from_files
    _stdin(monkeypatch, HYP)
    assert main(["eval", "bleu", "--candidate", "-", "--reference", str(r)]) == 0
    assert capsys.readouterr().out == from_files
    _stdin(monkeypatch, REF)
    assert main(["eval", "bleu", "--candidate", str(h), "--reference", "-"]) == 0
    assert capsys.readouterr().out == from_files


def test_two_inputs_from_stdin_are_refused(tmp_path, monkeypatch, capsys):
    _stdin(monkeypatch, HYP)
    assert main(["eval", "bleu", "--candidate", "-", "--reference", "-"]) == 1
    captured = capsys.readouterr()
    assert "--candidate and --reference are both '-'" in captured.err and captured.out == ""
    assert main(["eval", "mcnemar", "-", "-"]) == 1
    assert "first and second are both '-'" in capsys.readouterr().err


def test_a_command_reading_an_input_twice_refuses_stdin(tmp_path, monkeypatch, capsys):
    src = write(tmp_path / "src", "it is here .\n")
    ref = write(tmp_path / "ref", "il est ici .\n")
    al = write(tmp_path / "al", "0-0 1-1 2-2 3-3\n")
    _stdin(monkeypatch, src.read_text())
    assert main(["-q", "eval", "report", "--source", "-", "--reference", str(ref), "--align-ref", str(al),
                 "--system", f"x={ref}:{al}", "--out", str(tmp_path / "rep")]) == 1
    assert "standard input was already read" in capsys.readouterr().err
    assert not list(tmp_path.glob("rep*"))
    assert main(["prepare", "--src", "-", "--tgt", str(ref), "--out", str(tmp_path / "c")]) == 1
    assert "reads its input twice" in capsys.readouterr().err


def test_symmetrize_stdin_stdout_and_nothing_half_written(tmp_path, monkeypatch, capsys):
    s, t = write(tmp_path / "s", "a b\nc\n"), write(tmp_path / "t", "x y\nz\n")
    fwd, rev = write(tmp_path / "f", "0-0 1-1\n0-0\n"), write(tmp_path / "r", "0-0\n0-0\n")
    args = ["symmetrize", "--src", str(s), "--tgt", str(t), "--rev", str(rev)]
    assert main(args + ["--fwd", str(fwd), "--out", str(tmp_path / "o")]) == 0
    _stdin(monkeypatch, fwd.read_text())
    assert main(args + ["--fwd", "-", "--out", "-"]) == 0
    assert capsys.readouterr().out == (tmp_path / "o").read_text() == "0-0 1-1\n0-0\n"
    assert main(args + ["--fwd", str(fwd)]) == 0            # no --out: standard output
    assert capsys.readouterr().out == "0-0 1-1\n0-0\n"
    bad = write(tmp_path / "bad", "0-0\n5-5\n")      # line 2 is out of range: the command fails there
    assert main(args + ["--fwd", str(bad), "--out", str(tmp_path / "o2")]) == 1
    assert not (tmp_path / "o2").exists()
    assert main(args + ["--fwd", str(bad), "--out", "-"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "bad:2" in captured.err


def test_translate_reads_stdin_and_writes_stdout(tmp_path, monkeypatch, capsys):
    from decoder_fixtures import random_model

    ini, sents = random_model(tmp_path, 3)
    src = write(tmp_path / "src", "\n".join(sents[:4]) + "\n")
    base = ["-q", "translate", "--config", str(ini), "--system", "baseline"]
    assert main(base + ["--input", str(src), "--out", str(tmp_path / "out"),
                        "--alignment-out", str(tmp_path / "al")]) == 0
    expected = (tmp_path / "out").read_text()
    assert len(expected.splitlines()) == 4
    capsys.readouterr()
    _stdin(monkeypatch, src.read_text())
    assert main(base + ["--input", "-"]) == 0                    # --out defaults to stdout
    captured = capsys.readouterr()
    assert captured.out == expected and "translated 4 sentences" in captured.err
    _stdin(monkeypatch, src.read_text())
    assert main(base + ["--input", "-", "--out", str(tmp_path / "out2"), "--alignment-out", "-"]) == 0
    assert capsys.readouterr().out == (tmp_path / "al").read_text()
    assert (tmp_path / "out2").read_text() == expected
    assert main(base + ["--input", str(src), "--out", "-", "--alignment-out", "-"]) == 1
    assert "--alignment-out and --out are both '-'" in capsys.readouterr().err


def test_reports_on_stdout_refuse_another_output_there(capsys):
    assert main(["coref-eval", "--gold", "g", "--input", "i", "--docs", "d", "--out", "-"]) == 1
    assert "prints its report on standard output" in capsys.readouterr().err


def test_broken_pipe_stops_quietly(tmp_path, monkeypatch):
    class Closed(io.StringIO):
        def write(self, s):
            raise BrokenPipeError(32, "Broken pipe")

    h, r = write(tmp_path / "h", HYP), write(tmp_path / "r", REF)
    monkeypatch.setattr(sys, "stdout", Closed())
    assert main(["eval", "bleu", "--candidate", str(h), "--reference", str(r)]) == 141


def test_coref_sieve_stdin_and_stdout(tmp_path, monkeypatch, capsys):
    pytest.importorskip("spacy")
    text = "The machine broke .\nIt is old .\nThe farmers came .\nThey were right .\n"
    write(tmp_path / "in.txt", text)
    write(tmp_path / "docs", "0\tone\n2\ttwo\n")
    base = ["-q", "coref", "--backend", "sieve"]
    assert main(base + ["--input", str(tmp_path / "in.txt"), "--docs", str(tmp_path / "docs"),
                        "--out", str(tmp_path / "o.jsonl")]) == 0
    _stdin(monkeypatch, text)
    assert main(base + ["--input", "-", "--docs", str(tmp_path / "docs"), "--out", "-"]) == 0
    out = capsys.readouterr().out
    assert out == (tmp_path / "o.jsonl").read_text() and len(out.splitlines()) == 2
    _stdin(monkeypatch, "0\tone\n2\ttwo\n")
    assert main(base + ["--input", str(tmp_path / "in.txt"), "--docs", "-", "--out", "-"]) == 0
    assert capsys.readouterr().out == out
    # no --out: standard output
    assert main(base + ["--input", str(tmp_path / "in.txt"), "--docs", str(tmp_path / "docs")]) == 0
    assert capsys.readouterr().out == out


def test_postedit_writes_stdout_without_out_and_names_a_short_alignment(tmp_path, monkeypatch, capsys):
    pytest.importorskip("spacy")
    src = write(tmp_path / "src", "I saw the mouse .\nIt is old .\n")
    hyp = write(tmp_path / "hyp", "j' ai vu la souris .\nil est vieux .\n")
    al = write(tmp_path / "al", "0-0 1-1 1-2 2-3 3-4 4-5\n0-0 1-1 2-2 3-3\n")
    base = ["-q", "postedit", "--backend", "sieve", "--source", str(src), "--translation", str(hyp)]
    assert main(base + ["--alignment", str(al)]) == 0           # no --out: standard output
    out = capsys.readouterr().out
    assert out == "j' ai vu la souris .\nelle est vieux .\n"      # il → elle for *souris*
    assert main(base + ["--alignment", str(al), "--out", str(tmp_path / "pe")]) == 0
    assert (tmp_path / "pe").read_text() == out
    _stdin(monkeypatch, al.read_text())
    assert main(base + ["--alignment", "-", "--out", "-"]) == 0
    assert capsys.readouterr().out == out
    short = write(tmp_path / "short", "0-0 1-1 1-2 2-3 3-4 4-5\n")
    assert main(base + ["--alignment", str(short), "--out", str(tmp_path / "pe2")]) == 1
    captured = capsys.readouterr()
    assert "short:2" in captured.err and captured.out == "" and not (tmp_path / "pe2").exists()


def test_plm_predict_and_score_stdin_and_stdout(tmp_path, monkeypatch, capsys, caplog):
    pytest.importorskip("spacy")
    from cad.plm.model import train_plm
    from cad.sample import SAMPLE_PREFIX

    lines = SAMPLE_PREFIX.with_suffix(".fr").read_text(encoding="utf-8").splitlines()
    train_plm([[l.split() for l in lines[i:i + 2]] for i in range(0, len(lines), 2)], tmp_path / "plm")
    tsv = ("elle\t\ti saw the mouse yesterday . it is old .\tj' ai vu la souris hier . REPLACE_6 est vieille .\t"
           "0-0 1-1 1-2 2-3 3-4 4-5 5-6 6-7 7-8 8-9 9-10\n")
    gold = write(tmp_path / "gold.tsv", tsv)
    base = ["-q", "plm", "predict", "--model", str(tmp_path / "plm")]
    assert main(base + ["--input", str(gold), "--out", str(tmp_path / "pred.tsv")]) == 0
    pred = (tmp_path / "pred.tsv").read_text()
    assert pred.count("\t") == 4 and pred.endswith("0-0 1-1 1-2 2-3 3-4 4-5 5-6 6-7 7-8 8-9 9-10\n")
    _stdin(monkeypatch, tsv)
    assert main(base + ["--input", "-", "--out", "-"]) == 0
    assert capsys.readouterr().out == pred
    assert main(["plm", "score", str(gold), str(tmp_path / "pred.tsv")]) == 0
    scores = capsys.readouterr().out
    _stdin(monkeypatch, pred)
    assert main(["plm", "score", str(gold), "-"]) == 0
    assert capsys.readouterr().out == scores
    # unlabeled input: --classes auto cannot see whether ça is a class of its own, and says so
    unlabeled = write(tmp_path / "unlabeled.tsv", "\t" + tsv.split("\t", 1)[1])
    caplog.clear()
    assert main(base + ["--input", str(unlabeled), "--out", str(tmp_path / "u.tsv")]) == 0
    assert "no gold classes, so the 2016 classes" in caplog.text
    caplog.clear()
    assert main(base + ["--input", str(gold), "--out", str(tmp_path / "u.tsv")]) == 0
    assert "no gold classes" not in caplog.text


def test_a_training_command_parses_without_the_other_groups():
    """`cad lm` (and the other training commands, the first group of cad/cli/groups.py) builds only
    their parsers, so as not to import every command group; their options are the full parser's."""
    import argparse
    import subprocess
    import sys

    from cad.cli.training import TRAINING_COMMANDS

    def subparsers(p):
        return next(a for a in p._actions if isinstance(a, argparse._SubParsersAction)).choices

    full, light = subparsers(cli.build_parser()), subparsers(cli.build_parser("lm"))
    assert "lm" in light and "train" in light and "translate" not in light and "translate" in full
    assert set(light) == set(TRAINING_COMMANDS)
    for name in light:
        # each training command's parser, built for that command, is the full parser's
        assert subparsers(cli.build_parser(name))[name].format_help() == full[name].format_help(), name
    assert "--shard-lines" in full["extract"].format_help() and "--shard-lines" not in light["extract"].format_help()
    assert set(subparsers(cli.build_parser("no-such-command"))) == set(full)     # the error lists every command
    for command in ("lm", "decode"):
        code = (f"import sys; from cad.cli import build_parser; build_parser('{command}'); "
                "print(sorted(m for m in sys.modules if m.startswith(('cad.cli.', 'cad.core.shards'))))")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        # the groups' table and the training commands' own module only
        assert out.strip() == "['cad.cli.groups', 'cad.cli.training']", command
