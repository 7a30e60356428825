"""The decoder's text tables read by the compiled reader (cad/moses/_binarize.cpp, read_text_entries)
against the Python loop of cad/decoder/tables.py: the same entries, kept alike, and the same errors."""

import gzip
import random

import pytest

from cad.core.errors import CadError
from cad.decoder.tables import PhraseTable, ReorderingTable
from cad.moses import binarize_native
from cad.moses.ini import Feature

pytestmark = pytest.mark.skipif(not binarize_native.available(), reason="the compiled reader is not built")


def phrase_table(path, n=4):
    return PhraseTable(Feature("PhraseDictionaryMemory", "TM0", {"num-features": str(n), "path": str(path)}), None)


def reordering_table(path):
    return ReorderingTable(Feature("LexicalReordering", "LR0", {"num-features": "6", "path": str(path),
                                                                "type": "wbe-msd-bidirectional-fe-allff"}), None)


def both(make, path, wanted, monkeypatch):
    """The table loaded by the compiled reader, then by the Python loop."""
    native = make(path)
    native.load(wanted)
    with monkeypatch.context() as m:
        m.setattr(binarize_native, "_binarize", None)
        python = make(path)
        python.load(wanted)
    return native, python


def random_lines(seed: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    words = ["a", "b", "c", "é", "d'", "x\u00a0y"]
    pt, ro = [], []
    for _ in range(400):
        src = rng.choice(["", " ", "  "]) + " ".join(rng.choice(words) for _ in range(rng.randint(1, 4))) + \
            rng.choice(["", " ", "\t"])
        tgt = rng.choice(["", " "]) + "  ".join(rng.choice(words) for _ in range(rng.randint(1, 3)))
        scores = rng.choice([" ", "  ", "\t"]).join(rng.choice(["0.5", "1", "1e-50", "0", "2.5e-3", "1_0", "inf"])
                                                  for _ in range(4))
        align = " ".join(f"{rng.randrange(3)}-{rng.randrange(3)}" for _ in range(rng.randint(0, 3)))
        extra = rng.choice(["", f" ||| {align}", f" ||| {align} ||| 1 2 3", f" ||| {align} |||  ||| k"])
        pt.append(f"{src} ||| {tgt} ||| {scores}{extra}")
        ro.append(f"{src} ||| {tgt} ||| " + rng.choice([" ", "\t", " \t "]).join(rng.choice(["0.5", "0.1", "1"])
                                                                                  for _ in range(6)))
    return pt, ro


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("gz", [False, True])
def test_the_compiled_reader_keeps_what_python_keeps(tmp_path, monkeypatch, seed, gz):
    pt, ro = random_lines(seed)
    for name, lines in (("pt", pt), ("ro", ro)):
        data = ("\r\n".join(lines) + "\n").encode("utf-8")       # carriage returns: stripped alike
        if gz:
            (tmp_path / f"{name}.gz").write_bytes(gzip.compress(data))
        else:
            (tmp_path / name).write_bytes(data)
    suffix = ".gz" if gz else ""
    for wanted in (None, {"a", "b c", "é", "a b", "x\u00a0y", "nothing"}, set()):
        native, python = both(phrase_table, tmp_path / f"pt{suffix}", wanted, monkeypatch)
        assert list(native.entries._lines.items()) == list(python.entries._lines.items())
        assert native.max_source_length == python.max_source_length
        native, python = both(reordering_table, tmp_path / f"ro{suffix}", wanted, monkeypatch)
        assert list(native.scores._lines.items()) == list(python.scores._lines.items())
        for line in ro[:50]:
            src, tgt = (x.strip() for x in line.split(" ||| ")[:2])
            assert native.scores.get((src, tgt)) == python.scores.get((src, tgt))
        assert (len(native.scores) > 100) == (wanted is None)


PT_ERRORS = {
    "fields": "a ||| x\n",
    "blank line": "\n",
    "scores": "a ||| x ||| 0.5 0.5\n",
    "number": "a ||| x ||| 1 1 0.5q 1\n",
    "underscores": "a ||| x ||| 1 1 1__0 1\n",
    "hex": "a ||| x ||| 1 1 0x1 1\n",
    "exponent": "a ||| x ||| 1 1 1e 1\n",
    "empty source": " \u3000 ||| x ||| 1 1 1 1\n",
    "empty target": "a |||   ||| 1 1 1 1\n",
    "point": "a ||| x ||| 1 1 1 1 ||| 0-0 1-\n",
    "point letters": "a ||| x ||| 1 1 1 1 ||| a-1\n",
    "point digits": "a ||| x ||| 1 1 1 1 ||| 0-\u0663\n",
    "utf-8": b"a ||| x ||| 1 1 1 1\nb \xff ||| y ||| 1 1 1 1\n",
}


def _error(make, path, wanted):
    with pytest.raises(CadError) as err:
        make(path).load(wanted)
    return str(err.value), err.value.path, err.value.line


@pytest.mark.parametrize("case", sorted(PT_ERRORS))
def test_the_compiled_reader_refuses_what_python_refuses(tmp_path, monkeypatch, case):
    text = PT_ERRORS[case]
    data = ("ok ||| fine ||| 1 1 1 1\n" + text).encode("utf-8") if isinstance(text, str) else text
    (tmp_path / "pt").write_bytes(data)
    for wanted in (None, {"a", "ok", ""}):
        native = _error(phrase_table, tmp_path / "pt", wanted)
        with monkeypatch.context() as m:
            m.setattr(binarize_native, "_binarize", None)
            assert _error(phrase_table, tmp_path / "pt", wanted) == native
        assert native[1] == str(tmp_path / "pt") and native[2] == 2


def test_a_line_of_an_unwanted_phrase_is_not_checked(tmp_path, monkeypatch):
    (tmp_path / "pt").write_text("a ||| x ||| 1 1 1 1\nzz ||| y ||| 1 1\n", encoding="utf-8")
    native, python = both(phrase_table, tmp_path / "pt", {"a"}, monkeypatch)
    assert native.entries._lines == python.entries._lines == {"a": "x ||| 1 1 1 1 ||| "}
    assert native.max_source_length == 1


def test_every_number_float_takes_is_taken(tmp_path, monkeypatch):
    (tmp_path / "pt").write_text("a ||| x ||| 1e999 .5 5. +1\nb ||| y ||| 1_0 -0 nan 1E-400\n", encoding="utf-8")
    native, python = both(phrase_table, tmp_path / "pt", None, monkeypatch)
    assert native.entries._lines == python.entries._lines and len(native.entries) == 2


def test_a_phrase_reordering_scores_looked_up_together_are_those_looked_up_alone(tmp_path, monkeypatch):
    lines = ["a ||| x ||| 1 1 1 1 1 1", "a ||| y ||| 0.5 0.5 0.5 0.5 0.5 0.5", "a ||| x ||| 0.25 1 1 1 1 1",
             "a ||| 0.5 ||| 0.1 0.1 0.1 0.1 0.1 0.1", "a ||| z  w ||| 1 1\t1 1 1 1", "b ||| x ||| 1 1 1 1 1 0.1"]
    (tmp_path / "ro").write_text("\n".join(lines) + "\n", encoding="utf-8")
    table = reordering_table(tmp_path / "ro")
    table.load(None)
    # the last entry of a repeated pair, a target that reads as a score, a tab among the scores
    targets = ["x", "y", "0.5", "z  w", "z w", "1 1 1 1 1 1", "nothing", "x"]
    alone = [table.scores.get(("a", t)) for t in targets]
    assert table.scores.get_many("a", targets) == alone
    assert alone[0][0] < 0 and alone[3] is None and alone[4] is None and alone[-1] == alone[0]
    assert table.scores.get_many("no such phrase", ["x"]) == [None]
    with monkeypatch.context() as m:
        m.setattr(binarize_native, "_binarize", None)
        assert table.scores.get_many("a", targets) == alone
