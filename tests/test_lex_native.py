"""`cad lex --engine native` (cad/train/_lex.cpp) writes the lex.f2e and lex.e2f of the Python
counter (cad/train/lexical.py, the reference) byte for byte, and fails where it fails with the same
error: the same message, file and line."""

import gzip
import random
from fractions import Fraction
from pathlib import Path

import pytest

from cad.cli import main
from cad.core.errors import CadError
from cad.train import lexical_native as native
from cad.train.lexical import write_lexical_tables
from conftest import REPO, write

pytestmark = pytest.mark.skipif(not native.available(), reason="cad.train._lex is not built")

LARGE = REPO / "models" / "large"


def run(engine: str, src, tgt, align, prefix: Path):
    try:
        write_lexical_tables(src, tgt, align, str(prefix), engine=engine)
    except CadError as exc:
        return ("error", exc.message, exc.path, exc.line)
    return prefix.with_name(prefix.name + ".f2e").read_bytes(), prefix.with_name(prefix.name + ".e2f").read_bytes()


def same(tmp: Path, src, tgt, align, ok: bool = True):
    """Both engines on the corpus: the same two files, or the same error and no file at all."""
    py, nat = run("python", src, tgt, align, tmp / "py"), run("native", src, tgt, align, tmp / "nat")
    assert nat == py
    if ok:
        assert py[0] != "error", py
    else:
        assert py[0] == "error"
        assert not list(tmp.glob("py.*")) and not list(tmp.glob("nat.*"))
    return py


def corpus(tmp: Path, src: str | bytes, tgt: str | bytes, align: str | bytes, suffix: str = ""):
    return write(tmp / f"c.src{suffix}", src), write(tmp / f"c.tgt{suffix}", tgt), write(tmp / f"c.al{suffix}", align)


# ---------------------------------------------------------------- small fixtures

def test_by_hand(tmp_path):
    f2e, e2f = same(tmp_path, *corpus(tmp_path, "a b\na c\na\n", "x y\nx z\ny\n", "0-0 1-1\n0-0 1-1\n0-0\n"))
    assert b"x a 0.6666667\n" in f2e and b"a x 1.0000000\n" in e2f


def test_null_repeated_points_and_a_word_null(tmp_path):
    # unaligned words on either side count against NULL; a repeated point counts twice; the word
    # "NULL" in the text is counted as the empty word is, as the Python counter does
    f2e, _ = same(tmp_path, *corpus(tmp_path, "a b NULL\nNULL c\nd\n", "x NULL y\nz\nw v\n",
                                    "0-0 0-0 2-1\n1-0\n0-1\n"))
    assert b"NULL b " in f2e


def test_sorted_by_code_point(tmp_path):
    # bytes order is code point order: é (U+00E9) after z, 𝒜 (U+1D49C) after 가 (U+AC00), É before é
    same(tmp_path, *corpus(tmp_path, "z é É a 가 𝒜 Z\n", "é z 𝒜 가 e\n", "0-1 1-0 2-0 3-4 4-3 5-2\n"))


def test_whitespace_line_ends_and_last_line(tmp_path):
    # str.split()'s whitespace (tab, vertical tab, \x1c, NBSP, U+3000), CRLF, a last line without newline
    src = "a\tb\x0bc\r\nd\x1ce\u00a0f\r\ng\u3000h"
    tgt = "x  y\r\n\u2028z w v\r\nu"
    align = "0-0  2-1\r\n0-0\t2-2\x0c1-1\r\n1-0"
    same(tmp_path, *corpus(tmp_path, src, tgt, align))


def test_gzipped_inputs(tmp_path):
    s, t, a = corpus(tmp_path, "a b\nc\n", "x\ny z\n", "0-0\n0-1\n")
    gz = []
    for p in (s, t, a):
        g = p.with_name(p.name + ".gz")
        g.write_bytes(gzip.compress(p.read_bytes()))
        gz.append(g)
    assert same(tmp_path, *gz) == same(tmp_path / "plain", s, t, a)


def test_empty_corpus(tmp_path):
    assert same(tmp_path, *corpus(tmp_path, "", "", "")) == (b"", b"")


def test_leading_zeros_and_no_points(tmp_path):
    same(tmp_path, *corpus(tmp_path, "a b\nc d\n", "x y\nz\n", "00-01 1-0\n\n"))


def test_a_line_longer_than_a_chunk(tmp_path):
    words = [f"w{k}" for k in range(700_000)]       # ~5.4 MB: more than the reader's 4 MB chunks
    same(tmp_path, *corpus(tmp_path, "a\n" + " ".join(words) + "\nb\n", "x\n" + " ".join(words[:1000]) + "\ny\n",
                           "0-0\n" + " ".join(f"{k}-{k}" for k in range(1000)) + "\n0-0\n"))


# ---------------------------------------------------------------- random corpora

@pytest.mark.parametrize("seed", range(6))
def test_random_corpora(tmp_path, seed):
    rng = random.Random(seed)
    vocab = ["a", "b", "NULL", "é", "É", "ça", "日本", "x-y", "1", "2", "Ab", "ab", "ß", "🙂"] + \
        [f"w{k}" for k in range(rng.choice([5, 50, 500]))]
    src, tgt, align = [], [], []
    for _ in range(rng.randint(1, 400)):
        s = [rng.choice(vocab) for _ in range(rng.randint(1, 12))]
        t = [rng.choice(vocab) for _ in range(rng.randint(1, 12))]
        points = [f"{rng.randrange(len(s))}-{rng.randrange(len(t))}" for _ in range(rng.randint(0, 15))]
        src.append(rng.choice([" ", "  ", "\t"]).join(s))
        tgt.append(" ".join(t))
        align.append(" ".join(points))
    same(tmp_path, *corpus(tmp_path, "\n".join(src) + "\n", "\n".join(tgt) + "\n", "\n".join(align) + "\n"))


def test_first_lines_of_the_large_corpus(tmp_path):
    names = [LARGE / "corpus.en", LARGE / "corpus.fr", LARGE / "aligned.grow-diag-final-and"]
    if not all(p.is_file() for p in names):
        pytest.skip(f"the large model's corpus and alignment are not in {LARGE} (make large)")
    cut = []
    for p in names:
        with open(p, "rb") as fh:
            cut.append(write(tmp_path / p.name, b"".join(fh.readline() for _ in range(20_000))))
    same(tmp_path, *cut)


# ---------------------------------------------------------------- the probabilities' digits

def test_seven_decimals_as_python_formats_them():
    pairs = [(c, t) for t in range(1, 300) for c in range(1, t + 1)]
    # ties at the eighth decimal (odd multiples of 1/256, exact in binary) round half to even
    pairs += [(k, 256) for k in range(1, 256, 2)] + [(k, 2 ** 20) for k in range(1, 5000, 7)]
    rng = random.Random(7)
    pairs += [(rng.randint(1, t), t) for t in (rng.randint(1, 10 ** 9) for _ in range(20_000))]
    for c, t in pairs:
        assert native._lex.ratio_text(c, t) == f"{c / t:.7f}", (c, t)
    assert Fraction(1, 256) == Fraction(0.00390625) and native._lex.ratio_text(1, 256) == "0.0039062"


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("lines", [(2, 3, 3), (3, 2, 3), (3, 3, 2), (3, 3, 4), (2, 2, 3), (3, 2, 2)])
def test_files_of_different_lengths(tmp_path, lines):
    n_src, n_tgt, n_al = lines
    same(tmp_path, *corpus(tmp_path, "a b\n" * n_src, "x y\n" * n_tgt, "0-0\n" * n_al), ok=False)


@pytest.mark.parametrize("point", ["2-0", "0-2", "99999999999999999999999-0", "0-18446744073709551616",
                                   "1-", "-1", "a-b", "1-2-3", "1_0-0", "\u0661-0", "\u00b2-0", "0-\uff11", "0:1",
                                   "+1-0", "1 - 0"])
def test_bad_alignment_points(tmp_path, point):
    assert same(tmp_path, *corpus(tmp_path, "a b\na b\n", "x y\nx y\n", f"0-0\n1-1 {point} 0-0\n"), ok=False)[3] == 2


@pytest.mark.parametrize("which", ["src", "tgt", "both"])
def test_empty_sentences(tmp_path, which):
    src = "a\n \n" if which in ("src", "both") else "a\nb\n"
    tgt = "x\n\t\n" if which in ("tgt", "both") else "x\ny\n"
    same(tmp_path, *corpus(tmp_path, src, tgt, "0-0\n\n"), ok=False)


@pytest.mark.parametrize("bad", [0, 1, 2])
def test_invalid_utf8_in_each_file_and_the_first_met_wins(tmp_path, bad):
    texts = [b"a\nb\nc\n", b"x\ny\nz\n", b"0-0\n0-0\n0-0\n"]
    texts[bad] = texts[bad].replace(b"\n", b"\n\xff", 1)            # line 2 of that file
    texts[(bad + 1) % 3] = texts[(bad + 1) % 3][:-1] + b"\xc3\n"    # line 3 of another
    assert same(tmp_path, *corpus(tmp_path, *texts), ok=False)[3] == 2


def test_bad_utf8_after_a_file_ended(tmp_path):
    # the source ended, but the target's next line is still read (and refused) first
    same(tmp_path, *corpus(tmp_path, b"a\n", b"x\n\xfe\n", b"0-0\n0-0\n"), ok=False)


def test_the_line_order_of_errors(tmp_path):
    # a bad point on line 2 is met before the files' lengths differ at line 4
    same(tmp_path, *corpus(tmp_path, "a\na\na\n", "x\nx\nx\nx\n", "0-0\n0-9\n0-0\n"), ok=False)


def test_truncated_gzip(tmp_path):
    s, t, a = corpus(tmp_path, "a b\n" * 5000, "x\n" * 5000, "0-0\n" * 5000)
    g = tmp_path / "c.src.gz"
    g.write_bytes(gzip.compress(s.read_bytes())[:-30])
    same(tmp_path, g, t, a, ok=False)


def test_missing_files_and_directories(tmp_path):
    s, t, a = corpus(tmp_path, "a\n", "x\n", "0-0\n")
    same(tmp_path, s, tmp_path / "nowhere", a, ok=False)
    same(tmp_path, tmp_path, t, a, ok=False)


def test_an_input_error_before_an_output_error(tmp_path):
    s, t, a = corpus(tmp_path, "a\n", "x\n", "0-5\n")
    (tmp_path / "out.f2e").mkdir()
    for engine in ("python", "native"):
        with pytest.raises(CadError, match="out of range"):
            write_lexical_tables(s, t, a, str(tmp_path / "out"), engine=engine)


def test_cli_engines(tmp_path):
    s, t, a = corpus(tmp_path, "a b\nc\n", "x\ny z\n", "0-0\n0-1\n")
    for engine in ("python", "native"):
        assert main(["lex", "--src", str(s), "--tgt", str(t), "--align", str(a), "--out", str(tmp_path / engine),
                     "--engine", engine]) == 0
    for table in ("f2e", "e2f"):
        assert (tmp_path / f"native.{table}").read_bytes() == (tmp_path / f"python.{table}").read_bytes()


def test_standard_input_goes_through_the_python_reader(tmp_path, monkeypatch):
    import io

    s, t, a = corpus(tmp_path, "a b\nc\n", "x\ny z\n", "0-0\n0-1\n")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(s.read_bytes()), encoding="utf-8"))
    write_lexical_tables("-", t, a, str(tmp_path / "stdin"), engine="native")
    write_lexical_tables(s, t, a, str(tmp_path / "file"), engine="native")
    for table in ("f2e", "e2f"):
        assert (tmp_path / f"stdin.{table}").read_bytes() == (tmp_path / f"file.{table}").read_bytes()
