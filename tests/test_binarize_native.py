"""`cad binarize --engine native` (cad/moses/_binarize.cpp) writes the files of the Python writer
(cad/moses/binarized.py, the reference) byte for byte, pruned or not, and fails where it fails with
the same error: the same message, file and line."""

import gzip
import os
import random
import struct
from pathlib import Path

import pytest

from cad.cli import main
from cad.core.errors import CadError
from cad.moses import binarize
from cad.moses import binarize_native as native
from cad.moses.binarize import binarize_model
from cad.moses.binarized import (BinaryPhraseTable, BinaryReorderingTable, KeptPairs, Pruner,
                                 binarize_phrase_table, binarize_reordering_table)
from conftest import write
from decoder_fixtures import random_model

pytestmark = pytest.mark.skipif(not native.available(), reason="cad.moses._binarize is not built")


def _python_pt(text, out, num, prune=0, kept=None):
    if not prune:
        return binarize_phrase_table(text, out, num, "TM0"), 0
    pruner = Pruner(prune, kept)
    try:
        lines = binarize_phrase_table(text, out, num, "TM0", pruner)
    finally:
        pruner.close()
    return lines, pruner.pruned


def _error(fn):
    try:
        fn()
    except CadError as exc:
        return exc.message, exc.path, exc.line
    return None


def same_phrase_table(tmp: Path, text: Path, num: int = 4, prune: int = 0, ok: bool = False) -> Path:
    """Both engines on `text`: the same binary table (and kept pairs) or the same error (`ok`:
    not an error). The Python engine's kept pairs, for a reordering table."""
    py_out, nat_out = tmp / "py.cadphr", tmp / "nat.cadphr"
    py_kept, nat_kept = tmp / "py.kept.gz", tmp / "nat.kept.gz"
    got = {}
    for engine, run in (("python", lambda: _python_pt(text, py_out, num, prune, py_kept)),
                        ("native", lambda: native.binarize_phrase_table(text, nat_out, num, "TM0", prune, nat_kept))):
        try:
            got[engine] = run()
        except CadError as exc:
            got[engine] = ("error", exc.message, exc.path, exc.line)
    assert got["native"] == got["python"]
    if got["python"][0] == "error":
        assert not ok, got["python"]
        assert not py_out.exists() and not nat_out.exists()
        return py_kept
    assert nat_out.read_bytes() == py_out.read_bytes()
    if prune:       # gzip's headers differ between zlib and Python's gzip: the text is the same
        assert gzip.decompress(nat_kept.read_bytes()) == gzip.decompress(py_kept.read_bytes())
    return py_kept


def same_reordering_table(tmp: Path, text: Path, num: int = 6, kept: Path | None = None, prune: int = 0):
    py_out, nat_out = tmp / "py.cadlexr", tmp / "nat.cadlexr"
    got = {}
    for engine, run in (("python", lambda: binarize_reordering_table(
                            text, py_out, num, KeptPairs(kept, "PT") if kept else None, prune)),
                        ("native", lambda: native.binarize_reordering_table(text, nat_out, num, kept, "PT", prune))):
        try:
            got[engine] = run()
        except CadError as exc:
            got[engine] = ("error", exc.message, exc.path, exc.line)
    assert got["native"] == got["python"]
    if isinstance(got["python"], tuple):
        assert not py_out.exists() and not nat_out.exists()
        return got["python"]
    assert nat_out.read_bytes() == py_out.read_bytes()
    return None


# ---- the same bytes -----------------------------------------------------------------------------

SMALL = ("a b ||| x ||| 0.5 0 1e-50 0.3 ||| 0-0 1-0\n"
         "a b ||| y  z ||| 0.25 0.1 0.2 0.3\n"
         "c ||| x ||| 0.1 0.2 0.3 0.4 ||| 0-0\n"
         "a b ||| w ||| 0.125 0.1 0.2 0.3 ||| \n"
         "é ||| ü ||| 1 1 1 1 ||| 0-0\n")


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("prune", [0, 1, 2])
def test_small_tables_the_same_bytes(tmp_path, gz, prune):
    name = "pt.gz" if gz else "pt"
    text = write(tmp_path / name, gzip.compress(SMALL.encode()) if gz else SMALL)
    same_phrase_table(tmp_path, text, prune=prune)
    ro = write(tmp_path / "ro", "a b ||| x ||| 0.1 0.2 0.3 0.4 0.5 0.6\na b ||| x ||| 0.6 0.5 0.4 0.3 0.2 0.1 \n"
                                "a b ||| y z ||| 1 1 1 1 1 1\n")
    same_reordering_table(tmp_path, ro)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_decoder_fixtures_models_through_binarize_model(tmp_path, seed):
    ini, _ = random_model(tmp_path, seed)
    ro = tmp_path / "ro"
    ro.write_text("".join(sorted(ro.read_text(encoding="utf-8").splitlines(keepends=True))), encoding="utf-8")
    for prune in (0, 2):
        outs = {}
        for engine in ("python", "native"):
            binarize_model(ini, tmp_path / f"{engine}{prune}", force=True, prune=prune, engine=engine)
            outs[engine] = {p.name: p.read_bytes() for p in (tmp_path / f"{engine}{prune}").iterdir()
                            if p.suffix in (".cadphr", ".cadlexr")}
        assert len(outs["native"]) == 2 and outs["native"] == outs["python"]


def test_empty_tables_and_gzip_members(tmp_path):
    for text in (write(tmp_path / "empty", b""), write(tmp_path / "empty.gz", b""),
                 write(tmp_path / "empty2.gz", gzip.compress(b""))):
        same_phrase_table(tmp_path, text)
        same_reordering_table(tmp_path, text)
    # members one after another, zero bytes between them: Python's gzip reads them all
    lines = SMALL.encode().splitlines(keepends=True)
    members = b"".join(gzip.compress(line) for line in lines[:3]) + b"\0\0\0" + gzip.compress(b"".join(lines[3:]))
    same_phrase_table(tmp_path, write(tmp_path / "multi.gz", members + b"\0"), ok=True)
    assert BinaryPhraseTable(tmp_path / "nat.cadphr").records == 4      # a b, c, a b again, é


# Unicode whitespace of str.split()/str.strip(), which the native engine finds in UTF-8
SPACES = [" ", "\t", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u1680", "\u2000", "\u200a", "\u2028",
          "\u2029", "\u202f", "\u205f", "\u3000"]
NOT_SPACES = ["\u200b", "\u180e", "\ufeff", "\x00", "\u2060", "\xad"]
WORDS = ["a", "b", "the", "é", "ü", "日本", "x\u200by", "𝔘", "-", "|", "||", "'", "\\", "0", "-1"]
NUMBERS = ["0.5", "1", "1e-310", "0.1", "3.0000000000000004", "nan", "-nan", "inf", "-Infinity", "-0", "+0.25",
           ".5", "5.", "1E5", "1_000.5", "١٢", "１２", "1e-400", "1e400", "2.2250738585072014e-308",
           "4.9406564584124654e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
           "0.30000000000000004441", "9007199254740993", "1.7976931348623157e308", "1.7976931348623159e308",
           "0." + "0" * 400 + "1", "1" * 400, "123456789012345678901234567890e-20"]


def _random_table(rng: random.Random, lines: int, num: int, phrase: bool) -> list[str]:
    """Lines of a table with runs of one source phrase (some not consecutive), targets and fields
    with odd whitespace, tricky numbers and ties in p(e|f)."""
    sources = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3))) for _ in range(max(2, lines // 6))]
    out = []
    while len(out) < lines:
        src = rng.choice(sources)
        for _ in range(rng.randint(1, 8)):
            sp = lambda: rng.choice(SPACES) if rng.random() < 0.2 else " "    # noqa: E731
            tgt = sp().join(rng.choice(WORDS + NOT_SPACES) for _ in range(rng.randint(1, 3)))
            scores = [rng.choice(NUMBERS) if rng.random() < 0.2 else rng.choice(["0.1", "0.2", "0.5", "1"])
                      if rng.random() < 0.5 else repr(rng.random()) for _ in range(num)]
            fields = [sp() + src + rng.choice(["", " ", "\u3000"]), rng.choice(["", " "]) + tgt + sp(),
                      sp().join(scores) + rng.choice(["", " "])]
            if phrase and rng.random() < 0.8:
                fields.append(" ".join(f"{rng.randrange(4)}-{rng.randrange(4)}" for _ in range(rng.randrange(4))))
                if rng.random() < 0.5:
                    fields += ["1 1 1", ""]
            out.append(" ||| ".join(fields) + rng.choice(["", "", "\r", "\r\r"]))
    return out


def _write_lines(path: Path, lines: list[str], gz: bool, last_newline: bool = True) -> Path:
    data = ("\n".join(lines) + ("\n" if last_newline else "")).encode("utf-8")
    return write(path, gzip.compress(data, compresslevel=1) if gz else data)


@pytest.mark.parametrize("seed", range(6))
def test_random_tables_the_same_bytes(tmp_path, seed):
    rng = random.Random(seed)
    gz = seed % 2 == 1
    lines = _random_table(rng, 400, 4, phrase=True)
    text = _write_lines(tmp_path / ("pt.gz" if gz else "pt"), lines, gz, last_newline=seed % 3 != 0)
    for prune in (0, 1, 2, 3):
        same_phrase_table(tmp_path, text, prune=prune, ok=True)
    ro = _write_lines(tmp_path / ("ro.gz" if gz else "ro"), _random_table(rng, 300, 6, phrase=False), gz)
    assert same_reordering_table(tmp_path, ro) is None


@pytest.mark.parametrize("seed", range(4))
def test_pruned_in_step_the_same_bytes(tmp_path, seed):
    """A phrase table and its reordering table, both sorted as bytes (one line per pair, targets
    written with other spacing in the reordering table, pairs the phrase table lacks, a pair on
    several lines), pruned with ties and NaN in p(e|f)."""
    rng = random.Random(100 + seed)
    pairs = {}
    for _ in range(300):
        src = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 2)))
        tgt = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 2)))
        pef = rng.choice(["0.5", "0.25", "0.5", "nan", "0.125", "1", "-0", "0"]) if rng.random() < 0.7 else repr(rng.random())
        pairs[(src, tgt)] = f"0.1 0.2 {pef} 0.3"
    pt_lines = sorted(f"{s} ||| {t} ||| {sc} ||| 0-0" for (s, t), sc in pairs.items())
    pt_lines = sorted(pt_lines, key=lambda line: line.encode())
    ro_lines = [f"{s} ||| {t.replace(' ', rng.choice([' ', '  ', ' ']))} ||| " + " ".join(repr(rng.random()) for _ in range(6))
                for (s, t) in list(pairs) + [(rng.choice(WORDS), rng.choice(WORDS)) for _ in range(40)]]
    ro_lines += rng.sample(ro_lines, 20)
    ro_lines = sorted(ro_lines, key=lambda line: line.encode())
    gz = seed % 2 == 0
    pt = _write_lines(tmp_path / ("pt.gz" if gz else "pt"), pt_lines, gz)
    ro = _write_lines(tmp_path / ("ro.gz" if gz else "ro"), ro_lines, gz)
    for prune in (1, 2, 3):
        kept = same_phrase_table(tmp_path, pt, prune=prune, ok=True)
        assert same_reordering_table(tmp_path, ro, kept=kept, prune=prune) is None


def test_many_lines_and_a_line_longer_than_a_chunk(tmp_path):
    """Chunk boundaries of the reader: 4 MB chunks, a line of 5 MB (its counts field ignored)."""
    rng = random.Random(7)
    lines = _random_table(rng, 60_000, 4, phrase=True)
    lines.insert(30_000, "a ||| b ||| 1 1 1 1 ||| 0-0 ||| " + "7 " * 2_500_000)
    for gz in (False, True):
        text = _write_lines(tmp_path / ("big.gz" if gz else "big"), lines, gz)
        same_phrase_table(tmp_path, text, ok=True)
        same_phrase_table(tmp_path, text, prune=2, ok=True)


# ---- floats as float() reads them --------------------------------------------------------------

def test_scores_are_the_doubles_float_reads(tmp_path):
    rng = random.Random(11)
    numbers = list(NUMBERS)
    for _ in range(3000):       # random decimals, subnormals and the edges of the range included
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 25)))
        cut = rng.randint(0, len(digits))
        numbers.append(f"{rng.choice(['', '-', '+'])}{digits[:cut]}.{digits[cut:]}e{rng.randint(-345, 330)}")
        numbers.append(repr(rng.uniform(-1, 1) * 10 ** rng.randint(-320, 300)))
    numbers.append("1_0e1_0")
    lines = [f"w{k} ||| x ||| 1 1 {x} 1" for k, x in enumerate(numbers)]
    text = write(tmp_path / "pt", "\n".join(lines) + "\n")
    same_phrase_table(tmp_path, text, ok=True)
    table = BinaryPhraseTable(tmp_path / "nat.cadphr")
    for k, x in enumerate(numbers):
        (got,) = table.lookup(f"w{k}")
        assert struct.pack("<d", got[1][2]) == struct.pack("<d", float(x)), x


@pytest.mark.parametrize("bad", ["0.5x", "1__0", "_1", "1_", "0x1", "1e", "e5", ".", "-", "+", "nan?", "1.5.", "٫5",
                                 "1,5", "in f", "--1", "１．５"])
def test_what_float_refuses_is_refused(tmp_path, bad):
    text = write(tmp_path / "pt", f"a ||| x ||| 1 1 1 1\nb ||| x ||| 1 1 {bad} 1\n")
    same_phrase_table(tmp_path, text)
    want = f"non-numeric score in {'1 1 ' + bad + ' 1'!r}" if " " not in bad else "5 scores, but TM0 declares num-features=4"
    assert _error(lambda: native.binarize_phrase_table(text, tmp_path / "o", 4, "TM0")) == (want, str(text), 2)


# ---- errors -------------------------------------------------------------------------------------

PT_ERRORS = {
    "fields": "a ||| x\n",
    "blank line": "\n",
    "scores": "a ||| x ||| 0.5 0.5\n",
    "many scores": "a ||| x ||| 1 1 1 1 1\n",
    "number": "a ||| x ||| 1 1 0.5q 1\n",
    "empty source": " \u3000 ||| x ||| 1 1 1 1\n",
    "empty target": "a |||   ||| 1 1 1 1\n",
    "point": "a ||| x ||| 1 1 1 1 ||| 0-0 1-\n",
    "point letters": "a ||| x ||| 1 1 1 1 ||| a-1\n",
    "point three": "a ||| x ||| 1 1 1 1 ||| 1-2-3\n",
    "point not ASCII": "a ||| x ||| 1 1 1 1 ||| ٣-1\n",
    "point beyond u16": "a ||| x ||| 1 1 1 1 ||| 0-65536\n",
    "point of many digits": "a ||| x ||| 1 1 1 1 ||| 0-" + "9" * 5000 + "\n",
    "too many points": "a ||| x ||| 1 1 1 1 ||| " + "0-0 " * 65536 + "\n",
    "target too long": "a ||| " + "x" * 65536 + " ||| 1 1 1 1\n",
    "key too long": "a" * 65536 + " ||| x ||| 1 1 1 1\nb ||| x ||| 1 1 1 1\nc ||| x\n",
    "first of two": "a ||| x ||| 1 1 q 1 ||| 0-x\n",
    "second of two": "a ||| x ||| 1 1 1 1 ||| 0-x\n",
}


@pytest.mark.parametrize("case", sorted(PT_ERRORS))
@pytest.mark.parametrize("prune", [0, 2])
def test_phrase_table_errors_as_the_python_engine(tmp_path, case, prune):
    good = "a ||| x ||| 1 1 1 1 ||| 0-0\nb ||| y ||| 1 1 1 1\n"
    for text in (write(tmp_path / "pt", good + PT_ERRORS[case] + good),
                 write(tmp_path / "pt.gz", gzip.compress((good + PT_ERRORS[case]).encode()))):
        same_phrase_table(tmp_path, text, prune=prune)
        err = _error(lambda: native.binarize_phrase_table(text, tmp_path / "o", 4, "TM0", prune, tmp_path / "k"))
        assert err is not None and err[1] == str(text) and err[2] in (3, 4), err
    assert "0-65536" in _error(lambda: binarize_phrase_table(write(tmp_path / "p", PT_ERRORS["point beyond u16"]),
                                                             tmp_path / "o", 4))[0]


RO_ERRORS = {"fields": "a ||| x\n", "scores": "a ||| x ||| 1 1 1\n", "number": "a ||| x ||| 1 1 1 1 1 nan.\n",
             "target too long": "a ||| " + "x" * 65536 + " ||| 1 1 1 1 1 1\n"}


@pytest.mark.parametrize("case", sorted(RO_ERRORS))
def test_reordering_table_errors_as_the_python_engine(tmp_path, case):
    text = write(tmp_path / "ro", "a ||| x ||| 1 1 1 1 1 1\n" + RO_ERRORS[case])
    err = same_reordering_table(tmp_path, text)
    assert err is not None and err[2:] == (str(text), 2)


@pytest.mark.parametrize("bad", [b"\xff", b"\xc3(", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80",
                                 b"\xf0\x9f\x98", b"\x80", b"ok \xe9t\xe9"])
def test_invalid_utf8_named_by_line_and_byte(tmp_path, bad):
    data = "a ||| x ||| 1 1 1 1\n".encode() + "é ||| ".encode() + bad + b" ||| 1 1 1 1\nb ||| x ||| 1 1 1 1\n"
    for text in (write(tmp_path / "pt", data), write(tmp_path / "pt.gz", gzip.compress(data))):
        same_phrase_table(tmp_path, text)
        message, path, line = _error(lambda: native.binarize_phrase_table(text, tmp_path / "o", 4))
        assert message.startswith("invalid UTF-8 at byte ") and (path, line) == (str(text), 2), message


def _gz_table(tmp: Path, lines: int) -> bytes:
    rng = random.Random(3)
    body = "".join(f"s{k // 3} ||| t{rng.random()} ||| 0.5 0.25 {rng.random()} 1 ||| 0-0\n" for k in range(lines))
    return gzip.compress(body.encode(), compresslevel=6)


@pytest.mark.parametrize("cut", [10, 5_000, 60_000, -9, -8, -1])
def test_a_truncated_gzip_file_fails_at_the_line_python_names(tmp_path, cut):
    data = _gz_table(tmp_path, 20_000)
    text = write(tmp_path / "pt.gz", data[:cut])
    message, path, line = same_phrase_table_error(tmp_path, text)
    assert message.startswith("cannot read: ") and path == str(text) and line >= 1
    assert "Compressed file ended before the end-of-stream marker was reached" in message


def same_phrase_table_error(tmp: Path, text: Path):
    same_phrase_table(tmp, text)
    return _error(lambda: native.binarize_phrase_table(text, tmp / "o", 4))


def test_a_damaged_gzip_file_fails_naming_file_and_line(tmp_path):
    data = bytearray(_gz_table(tmp_path, 2_000))
    crc = bytearray(data)
    crc[-8] ^= 0xFF                                          # the CRC: every line read, then the error
    text = write(tmp_path / "crc.gz", bytes(crc))
    py = _error(lambda: binarize_phrase_table(text, tmp_path / "o", 4))
    nat = _error(lambda: native.binarize_phrase_table(text, tmp_path / "o", 4))
    assert py[1:] == nat[1:] == (str(text), 2_001) and nat[0].startswith("cannot read: damaged gzip data")
    plain = write(tmp_path / "plain.gz", b"a ||| x ||| 1 1 1 1\n")  # not gzip at all
    nat = _error(lambda: native.binarize_phrase_table(plain, tmp_path / "o", 4))
    assert nat[1:] == (str(plain), 1) and nat[0].startswith("cannot read: not a gzip file")
    assert _error(lambda: binarize_phrase_table(plain, tmp_path / "o", 4))[1:] == nat[1:]
    # a deflate stream damaged in the middle: lines of garbage, or an error of zlib's (where the Python
    # engine may name an earlier line: its reader drops what it decoded from the block that failed)
    mid = bytearray(data)
    for k in range(len(mid) // 2, len(mid) // 2 + 64):
        mid[k] ^= 0x5A
    text = write(tmp_path / "mid.gz", bytes(mid))
    nat = _error(lambda: native.binarize_phrase_table(text, tmp_path / "o", 4))
    assert nat is not None and nat[1] == str(text) and 1 <= nat[2] <= 2_001
    assert not (tmp_path / "o").exists()


def test_pruning_unsorted_tables_fails_as_the_python_engine(tmp_path):
    pt = write(tmp_path / "pt", "b ||| x ||| 1 1 0.5 1\na ||| x ||| 1 1 1 1\na ||| y ||| 1 1 1 1\n"
                                "b ||| z ||| 1 1 1 1\n")
    kept = same_phrase_table(tmp_path, pt, prune=1)
    # the phrase table's second run of b: its kept pairs out of order
    ro = write(tmp_path / "ro", "a ||| x ||| 1 1 1 1 1 1\nb ||| x ||| 1 1 1 1 1 1\nc ||| x ||| 1 1 1 1 1 1\n")
    assert same_reordering_table(tmp_path, ro, kept=kept, prune=1)[1:] == (
        "PT is not sorted as its lines' bytes (LC_ALL=C sort), so its reordering table cannot be pruned in step: "
        "binarize without --prune", None, None)
    pt = write(tmp_path / "pt", "a ||| x ||| 1 1 0.5 1\nb ||| x ||| 1 1 1 1\n")
    kept = same_phrase_table(tmp_path, pt, prune=1)
    ro = write(tmp_path / "ro", "b ||| x ||| 1 1 1 1 1 1\na ||| x ||| 1 1 1 1 1 1\n")
    assert same_reordering_table(tmp_path, ro, kept=kept, prune=1)[2:] == (str(ro), 2)


def test_missing_files_and_directories(tmp_path):
    with pytest.raises(CadError, match="is a directory"):
        native.binarize_phrase_table(tmp_path, tmp_path / "o", 4)
    with pytest.raises(CadError, match="third score"):
        native.binarize_phrase_table(write(tmp_path / "pt", "a ||| x ||| 1 1\n"), tmp_path / "o", 2, prune=1,
                                     kept=tmp_path / "k")
    with pytest.raises(CadError, match="unknown binarize engine"):
        binarize_model(tmp_path / "moses.ini", engine="fast")


def test_cli_engine_choice(tmp_path, capsys):
    ini, _ = random_model(tmp_path, 9)
    with pytest.raises(SystemExit) as exc:
        main(["binarize", "--help"])
    assert exc.value.code == 0
    assert "--engine {native,python}" in capsys.readouterr().out
    outs = {}
    for engine in ("python", "native"):
        assert main(["binarize", "-f", str(ini), "--out-dir", str(tmp_path / engine), "--engine", engine]) == 0
        outs[engine] = {p.name: p.read_bytes() for p in (tmp_path / engine).iterdir() if p.suffix != ".ini"}
    assert outs["native"] == outs["python"]


def test_alignment_points_with_leading_zeros(tmp_path):
    text = write(tmp_path / "pt", "a ||| x y ||| 1 1 1 1 ||| 00-0001 65535-" + "0" * 5000 + "7 ||| 1 1 1\n")
    same_phrase_table(tmp_path, text, ok=True)
    assert BinaryPhraseTable(tmp_path / "nat.cadphr").lookup("a")[0][2] == ((0, 1), (65535, 7))


def test_a_reordering_table_pruned_by_an_up_to_date_phrase_table(tmp_path):
    """Only the reordering table rewritten: the pairs come from the binary phrase table
    (binarize._kept_pairs_of), read by either engine."""
    ini, _ = random_model(tmp_path, 6)
    ro = tmp_path / "ro"
    ro.write_text("".join(sorted(ro.read_text(encoding="utf-8").splitlines(keepends=True))), encoding="utf-8")
    outs = {}
    then = ro.stat().st_mtime_ns
    for engine in ("python", "native"):
        os.utime(ro, ns=(then, then))
        binarize_model(ini, force=True, prune=2, engine=engine)
        os.utime(ro, ns=(then + 10**9, then + 10**9))      # the same stamp for both engines
        done = binarize_model(ini, prune=2, engine=engine)
        assert [Path(p).name for _, p in done.written] == ["ro.cadlexr"]
        outs[engine] = (tmp_path / "ro.cadlexr").read_bytes()
    assert outs["native"] == outs["python"]


# ---- the kept pairs' temporary ------------------------------------------------------------------

def _sorted_model(tmp_path, seed):
    ini, _ = random_model(tmp_path, seed)
    ro = tmp_path / "ro"
    ro.write_text("".join(sorted(ro.read_text(encoding="utf-8").splitlines(keepends=True))), encoding="utf-8")
    return ini


def test_the_kept_pairs_temporary_is_gzip_and_removed(tmp_path, monkeypatch):
    """binarize_model's temporary of kept pairs, caught as the reordering table is given it: gzip
    (it was 1.9 GB of text beside a large model's tables), the same text from either engine,
    written by the phrase table's writer or from an up-to-date binary phrase table; gone after."""
    ini = _sorted_model(tmp_path, 10)
    seen = []
    real = binarize._reordering_table

    def spy(engine, path, dst, f, kept_file, phrase_table, prune):
        data = Path(kept_file).read_bytes()
        seen.append((engine, Path(kept_file).name, data[:2], gzip.decompress(data)))
        return real(engine, path, dst, f, kept_file, phrase_table, prune)

    monkeypatch.setattr(binarize, "_reordering_table", spy)
    ro = tmp_path / "ro"
    then = ro.stat().st_mtime_ns
    for engine in ("python", "native"):
        os.utime(ro, ns=(then, then))
        binarize_model(ini, force=True, prune=2, engine=engine)          # the phrase table's writer
        os.utime(ro, ns=(then + 10**9, then + 10**9))
        binarize_model(ini, prune=2, engine=engine)                      # the binary phrase table
    assert [(e, name, magic) for e, name, magic, _ in seen] == [
        (e, name, b"\x1f\x8b") for e in ("python", "native") for name in ("pt.cadphr.kept.tmp.gz",
                                                                           "ro.cadlexr.kept.tmp.gz")]
    assert len({text for *_, text in seen}) == 1 and b" ||| " in seen[0][3]
    assert not list(tmp_path.glob("*.tmp*"))


@pytest.mark.parametrize("engine", ["python", "native"])
def test_the_kept_pairs_temporary_is_removed_on_an_error_or_ctrl_c(tmp_path, monkeypatch, engine):
    ini = _sorted_model(tmp_path, 11)
    pt = tmp_path / "pt"
    good = pt.read_text(encoding="utf-8")
    # the phrase table's writer fails with the temporary half written: no kept_file came back
    pt.write_text(good + "zz ||| x ||| 1 1\n", encoding="utf-8")
    with pytest.raises(CadError, match="2 scores"):
        binarize_model(ini, force=True, prune=2, engine=engine)
    assert not list(tmp_path.glob("*.tmp*"))
    pt.write_text(good, encoding="utf-8")

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(binarize, "_reordering_table", interrupted)
    with pytest.raises(KeyboardInterrupt):
        binarize_model(ini, force=True, prune=2, engine=engine)
    assert not list(tmp_path.glob("*.tmp*"))


def test_a_kept_line_longer_than_a_chunk(tmp_path):
    """A source phrase with tens of thousands of targets ("." in a large model): its line of kept
    pairs, 5 MB, longer than a chunk of the compiled engine's gzip reader (4 MB), is read whole."""
    rng = random.Random(12)
    pad = " ".join(["mot"] * 20)
    pairs = [(".", f"t{k:06d} {pad}") for k in range(70_000)]
    pairs += [(s, f"t{k} {pad}") for s in (",", "a", "b") for k in range(5)]
    pt_lines = sorted((f"{s} ||| {t} ||| 0.5 0.5 {rng.choice(['0.25', '0.5', repr(rng.random())])} 0.5 ||| 0-0\n"
                       for s, t in pairs), key=str.encode)
    ro_lines = sorted((f"{s} ||| {t} ||| 0.1 0.2 0.3 0.4 0.5 0.6\n" for s, t in pairs + [(".", "zz"), ("a", "zz")]),
                      key=str.encode)
    pt, ro = write(tmp_path / "pt.gz", gzip.compress("".join(pt_lines).encode())), write(tmp_path / "ro",
                                                                                        "".join(ro_lines))
    kept = same_phrase_table(tmp_path, pt, prune=60_000, ok=True)
    lines = gzip.decompress(kept.read_bytes()).decode().splitlines()
    assert max(len(line) for line in lines) > 5 << 20 and len(lines) == 4
    assert same_reordering_table(tmp_path, ro, kept=kept, prune=60_000) is None
    table = BinaryReorderingTable(tmp_path / "nat.cadlexr")
    assert len(table.lookup(".")) == 60_000 and len(table.lookup("a")) == 5


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("targets", [3, 60_000])
def test_a_full_disk_under_the_kept_pairs_names_their_file(tmp_path, targets):
    """A few pairs fail at the gzip stream's close; a long line of random targets (1 MB
    gzipped), while it is written."""
    rng = random.Random(13)
    pt = write(tmp_path / "pt", "".join(f"a ||| {rng.getrandbits(128):032x} ||| 1 1 0.5 1\n" for _ in range(targets)))
    kept = tmp_path / "kept.gz"
    kept.symlink_to("/dev/full")
    with pytest.raises(CadError) as exc:
        native.binarize_phrase_table(pt, tmp_path / "o", 4, "TM0", targets, kept)
    assert (exc.value.message, exc.value.path) == (
        "cannot write: No space left on device; nothing was written there", str(kept))
    assert not (tmp_path / "o").exists()
