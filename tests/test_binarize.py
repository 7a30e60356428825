"""`cad binarize`: binary phrase and reordering tables and KenLM's binary format give the decoder
the same entries, the same floats and so the same output as the text tables; KenLM's format is
build_binary's, byte for byte."""

import gzip
import logging
import math
import os
import shutil
import struct
from pathlib import Path

import kenlm
import numpy as np
import pytest

from cad.cli import main
from cad.core.errors import CadError
from cad.decoder import Decoder, DecoderModel
from cad.decoder.tables import floor_log
from cad.lm.kenlm_binary import to_float32, write_kenlm_binary
from cad.moses.binarize import binarize_model, refuse_cad_binaries
from cad.moses.binarized import BinaryPhraseTable, BinaryReorderingTable, binarize_phrase_table
from cad.moses.ini import parse_config
from conftest import write
from decoder_fixtures import random_model

BUILD_BINARY = Path(os.environ.get("CAD_BUILD_BINARY", Path(__file__).resolve().parents[2] / "shared" / "tools"
                                   / "moses" / "bin" / "build_binary"))


def _outputs(ini, sentences, filtered: bool):
    model = DecoderModel.load(ini, input_sentences=sentences if filtered else None)
    dec = Decoder(model)
    return [(tr.text, tr.best.total, tr.best.features, [(d.text, d.total, d.features) for d in tr.nbest])
            for tr in (dec.translate(s, nbest=5) for s in sentences)], model


@pytest.mark.parametrize("seed", [1, 2])
def test_binary_twins_decode_as_the_text_tables(tmp_path, seed):
    ini, sentences = random_model(tmp_path, seed)
    text_filtered, model = _outputs(ini, sentences, True)
    text_whole, _ = _outputs(ini, sentences, False)
    assert model.tables[0].binary is None and model.lm.path.endswith("lm.arpa")
    done = binarize_model(ini)
    assert {Path(p).name for _, p in done.written} == {"pt.cadphr", "ro.cadlexr", "lm.binlm"}
    got_filtered, model = _outputs(ini, sentences, True)
    got_whole, _ = _outputs(ini, sentences, False)
    assert model.tables[0].binary.endswith("pt.cadphr") and model.reordering.binary.endswith("ro.cadlexr")
    assert model.lm.path.endswith("lm.binlm")
    assert got_filtered == text_filtered and got_whole == text_whole
    assert binarize_model(ini).written == []               # up to date: nothing written again


def test_binary_moses_ini_of_its_own(tmp_path, capsys):
    ini, sentences = random_model(tmp_path, 3)
    text, _ = _outputs(ini, sentences, True)
    assert main(["binarize", "-f", str(ini), "--out-dir", str(tmp_path / "bin")]) == 0
    new = tmp_path / "bin" / "moses.ini"
    assert capsys.readouterr().out.strip() == str(new)
    cfg = parse_config(new)
    assert [f.type for f in cfg.features if f.path][0] == "PhraseDictionaryCadBinary"
    (tmp_path / "pt").unlink()                             # the binary model needs no text table
    got, _ = _outputs(new, sentences, True)
    assert got == text
    assert main(["moses-ini", "check", str(new)]) == 0
    assert "binary table" in capsys.readouterr().out
    with pytest.raises(CadError, match="Moses cannot read"):
        refuse_cad_binaries(cfg)


def test_entries_order_and_floats_as_the_text_loader(tmp_path):
    """A source phrase in two runs, scores that the log floors, and several reordering lines for
    one phrase pair (the last counts)."""
    pt = write(tmp_path / "pt.gz", b"")
    with gzip.open(pt, "wt", encoding="utf-8") as fh:
        fh.write("a b ||| x ||| 0.5 0 1e-50 0.3 ||| 0-0 1-0\n"
                 "a b ||| y  z ||| 0.25 0.1 0.2 0.3\n"
                 "c ||| x ||| 0.1 0.2 0.3 0.4 ||| 0-0\n"
                 "a b ||| w ||| 0.125 0.1 0.2 0.3 ||| \n"
                 "é ||| ü ||| 1 1 1 1 ||| 0-0\n")
    write(tmp_path / "ro", "a b ||| x ||| 0.1 0.2 0.3 0.4 0.5 0.6\na b ||| x ||| 0.6 0.5 0.4 0.3 0.2 0.1\n")
    write(tmp_path / "moses.ini", f"""[feature]
PhraseDictionaryMemory name=TranslationModel0 num-features=4 path={pt} table-limit=0
LexicalReordering name=LexicalReordering0 num-features=6 type=wbe-msd-bidirectional-fe-allff path={tmp_path / 'ro'}
[weight]
TranslationModel0= 0.2 0.2 0.2 0.2
LexicalReordering0= 0.3 0.3 0.3 0.3 0.3 0.3
""")
    text = DecoderModel.load(tmp_path / "moses.ini")
    binarize_model(tmp_path / "moses.ini")
    binary = DecoderModel.load(tmp_path / "moses.ini")
    assert binary.tables[0].binary is not None
    for src in ("a b", "c", "é", "missing"):
        assert binary.tables[0].entries.get(src) == text.tables[0].entries.get(src)
    assert [e.words for e in binary.tables[0].entries.get("a b")] == [("x",), ("y", "z"), ("w",)]
    assert binary.tables[0].entries.get("a b")[0].scores == (math.log(0.5), -100.0, -100.0, floor_log(0.3))
    assert binary.reordering.scores.get(("a b", "x")) == text.reordering.scores.get(("a b", "x"))
    assert binary.reordering.scores.get(("a b", "x"))[0] == math.log(0.6)
    assert binary.tables[0].max_source_length == 2 == text.tables[0].max_source_length
    assert dict(binary.tables[0].entries.items()) == text.tables[0].entries


def test_a_stale_binary_table_is_left_for_the_text_one(tmp_path, caplog):
    ini, sentences = random_model(tmp_path, 4)
    binarize_model(ini)
    pt = tmp_path / "pt"
    pt.write_text(pt.read_text() + "zz ||| zz ||| 1 1 1 1 ||| 0-0\n")
    with caplog.at_level(logging.WARNING):
        model = DecoderModel.load(ini)
    assert model.tables[0].binary is None and "run cad binarize again" in caplog.text
    assert model.tables[0].entries.get("zz")
    assert {Path(p).name for _, p in binarize_model(ini).written} == {"pt.cadphr"}


def test_binary_table_errors(tmp_path):
    write(tmp_path / "bad", "a ||| x ||| 0.5 0.5\n")
    with pytest.raises(CadError, match="2 scores"):
        binarize_phrase_table(tmp_path / "bad", tmp_path / "bad.cadphr", 4)
    assert not (tmp_path / "bad.cadphr").exists()
    write(tmp_path / "junk", b"CADPT001" + b"\0" * 10)
    with pytest.raises(CadError, match="too short"):
        BinaryPhraseTable(tmp_path / "junk")
    binarize_phrase_table(write(tmp_path / "ok", "a ||| x ||| 1 1 1 1\n"), tmp_path / "ok.cadphr", 4)
    with pytest.raises(CadError, match="not a cad binary reordering table"):
        BinaryReorderingTable(tmp_path / "ok.cadphr")


def _lm_queries(model, sentences):
    out = []
    for s in sentences:
        state = kenlm.State()
        model.BeginSentenceWrite(state)
        for w in s.split() + ["</s>"]:
            nxt = kenlm.State()
            out.append((model.BaseFullScore(state, w, nxt).log_prob, hash(nxt)))
            state = nxt
    return out


def test_kenlm_binary_scores_and_states_as_the_arpa_file(tmp_path):
    _, _ = random_model(tmp_path, 5, lm_order=4)
    arpa = tmp_path / "lm.arpa"
    write_kenlm_binary(arpa, tmp_path / "lm.binlm")
    text, binary = kenlm.Model(str(arpa)), kenlm.Model(str(tmp_path / "lm.binlm"))
    sentences = ["x y z", "u v w x y", "x x x x x x", "unknown x y", "v u"]
    assert _lm_queries(binary, sentences) == _lm_queries(text, sentences)


@pytest.mark.skipif(not BUILD_BINARY.exists(), reason=f"no KenLM build_binary at {BUILD_BINARY}")
@pytest.mark.parametrize("order", [2, 3, 5])
def test_kenlm_binary_is_build_binarys_file(tmp_path, order):
    import subprocess

    random_model(tmp_path, 6, lm_order=order)
    write_kenlm_binary(tmp_path / "lm.arpa", tmp_path / "cad.binlm")
    subprocess.run([str(BUILD_BINARY), str(tmp_path / "lm.arpa"), str(tmp_path / "kenlm.binlm")], check=True,
                   capture_output=True)
    assert (tmp_path / "cad.binlm").read_bytes() == (tmp_path / "kenlm.binlm").read_bytes()


def test_kenlm_binary_refuses_what_it_does_not_write(tmp_path):
    base = "\\data\\\nngram 1=3\nngram 2=1\n\n\\1-grams:\n-1\t<s>\t-0.5\n-1\t</s>\n-1\ta\t-0.2\n\n" \
           "\\2-grams:\n-0.5\t<s> a\n\n\\end\\\n"
    with pytest.raises(CadError, match="no <unk>"):
        write_kenlm_binary(write(tmp_path / "a.arpa", base), tmp_path / "a.binlm")
    pruned = ("\\data\\\nngram 1=4\nngram 2=2\nngram 3=1\n\n\\1-grams:\n-1\t<unk>\t0\n-1\t<s>\t-0.5\n-1\t</s>\n"
              "-1\ta\t-0.2\n\n\\2-grams:\n-0.5\t<s> a\t-0.1\n-0.4\ta </s>\n\n\\3-grams:\n-0.2\t<s> a a\n\n\\end\\\n")
    with pytest.raises(CadError, match="pruned model"):
        write_kenlm_binary(write(tmp_path / "b.arpa", pruned), tmp_path / "b.binlm")
    assert not (tmp_path / "b.binlm").exists()


def test_decimals_round_to_the_nearest_float_once():
    """Decimals whose double falls exactly halfway between two floats: rounding the double again
    goes to the even float, which is right only for the midpoint itself."""
    from decimal import Decimal

    f = np.float32(1.0)
    up = np.nextafter(f, np.float32(2.0))
    mid = (float(f) + float(up)) / 2
    exact = str(Decimal(mid))                      # 1.000000059604644775390625
    above, below = exact + "1", exact[:-1] + "49"
    assert float(above) == float(below) == mid
    got = to_float32([above, below, exact, repr(mid), "0.1"], "x").tolist()
    assert got == [float(up), float(f), float(f), float(up), float(np.float32(0.1))]
    assert struct.pack("<f", to_float32(["-0"], "x")[0]) == struct.pack("<f", -0.0)


def test_binarize_cli_and_a_config_with_a_missing_table(tmp_path, capsys):
    ini, _ = random_model(tmp_path, 8)
    shutil.copy(ini, tmp_path / "broken.ini")
    (tmp_path / "broken.ini").write_text(ini.read_text().replace(str(tmp_path / "ro"), str(tmp_path / "nope")))
    assert main(["binarize", "-f", str(tmp_path / "broken.ini")]) == 1
    assert "missing file" in capsys.readouterr().err


def _pruned_text(src: Path, dst: Path, n: int) -> set[tuple[str, str]]:
    """The phrase table pruned by hand as the issue's rule says: per source phrase the n lines with the
    highest third score, the earlier line first on a tie, in table order; the kept pairs."""
    lines = gzip.open(src, "rt", encoding="utf-8").read().splitlines() if src.suffix == ".gz" else \
        src.read_text(encoding="utf-8").splitlines()
    runs: dict[str, list[tuple[int, str]]] = {}
    for k, line in enumerate(lines):
        runs.setdefault(line.split(" ||| ")[0].strip(), []).append((k, line))
    keep = set()
    for run in runs.values():
        best = sorted(run, key=lambda r: (-float(r[1].split(" ||| ")[2].split()[2]), r[0]))[:n]
        keep |= {k for k, _ in best}
    dst.write_text("".join(line + "\n" for k, line in enumerate(lines) if k in keep), encoding="utf-8")
    return {tuple(x.strip() for x in line.split(" ||| ")[:2]) for k, line in enumerate(lines) if k in keep}


def test_prune_keeps_the_best_entries_by_p_e_given_f(tmp_path):
    pt = write(tmp_path / "pt", "a ||| w ||| 0.1 0.1 0.2 0.1 ||| 0-0\n"
                                "a ||| x ||| 0.1 0.1 0.5 0.1 ||| 0-0\n"
                                "a ||| y ||| 0.9 0.9 0.2 0.9 ||| 0-0\n"
                                "a ||| z ||| 0.1 0.1 0.3 0.1 ||| 0-0\n"
                                "b ||| v ||| 0.1 0.1 0.1 0.1 ||| 0-0\n")
    from cad.moses.binarized import KeptPairs, Pruner
    pruner = Pruner(2, tmp_path / "kept")
    binarize_phrase_table(pt, tmp_path / "pt.cadphr", 4, pruner=pruner)
    pruner.close()
    table = BinaryPhraseTable(tmp_path / "pt.cadphr")
    # x (0.5) and z (0.3) kept, in table order; w and y (0.2, a tie: neither beats z) dropped
    assert [w for w, _, _ in table.lookup("a")] == [("x",), ("z",)]
    assert [w for w, _, _ in table.lookup("b")] == [("v",)] and table.prune == 2 and pruner.pruned == 2
    kept = KeptPairs(tmp_path / "kept")
    assert kept.targets("0", "ro", 1) is None               # before every source phrase
    assert kept.targets("a", "ro", 2) == {"x", "z"} and kept.targets("b", "ro", 3) == {"v"}
    assert kept.targets("c", "ro", 4) is None
    with pytest.raises(CadError, match="third score"):
        binarize_phrase_table(pt, tmp_path / "two.cadphr", 2, pruner=Pruner(1, tmp_path / "k2"))


@pytest.mark.parametrize("seed", [4, 5])
def test_pruned_binary_tables_decode_as_the_text_tables_pruned_alike(tmp_path, seed):
    ini, sentences = random_model(tmp_path, seed)
    cfg = parse_config(ini)
    pt = Path(next(f.path for f in cfg.features if f.type == "PhraseDictionaryMemory"))
    ro = Path(next(f.path for f in cfg.features if f.type == "LexicalReordering"))
    # the fixture writes its reordering lines by source phrase; Moses's and cad's training sort both
    # tables by their lines' bytes, which pruning needs: unsorted, a clear error
    with pytest.raises(CadError, match="not sorted as its lines' bytes"):
        binarize_model(ini, prune=2)
    ro.write_text("".join(sorted(ro.read_text(encoding="utf-8").splitlines(keepends=True))), encoding="utf-8")
    counts: dict[str, int] = {}
    for line in (gzip.open(pt, "rt", encoding="utf-8") if pt.suffix == ".gz" else open(pt, encoding="utf-8")):
        counts[line.split(" ||| ")[0]] = counts.get(line.split(" ||| ")[0], 0) + 1
    n = 2
    assert max(counts.values()) > n, "the random model must have source phrases to prune"
    # the reference: the text tables pruned by hand, in a model of their own
    ref = tmp_path / "ref"
    ref.mkdir()
    pairs = _pruned_text(pt, ref / "pt", n)
    ro_lines = (gzip.open(ro, "rt", encoding="utf-8") if ro.suffix == ".gz" else open(ro, encoding="utf-8")).read()
    (ref / "ro").write_text("".join(line + "\n" for line in ro_lines.splitlines()
                                    if tuple(x.strip() for x in line.split(" ||| ")[:2]) in pairs), encoding="utf-8")
    ref_ini = ref / "moses.ini"
    ref_ini.write_text(Path(ini).read_text(encoding="utf-8").replace(str(pt), str(ref / "pt"))
                       .replace(str(ro), str(ref / "ro")), encoding="utf-8")
    want, _ = _outputs(ref_ini, sentences, False)
    assert main(["binarize", "-f", str(ini), "--prune", str(n)]) == 0
    got, model = _outputs(ini, sentences, False)
    assert model.tables[0].binary.endswith("pt.cadphr")
    assert BinaryReorderingTable(model.reordering.binary).prune == n
    assert got == want
    table = BinaryPhraseTable(model.tables[0].binary)
    assert max(len(table.entries(body)) for _, body in table.keys()) == n      # pruned, and to n
    # pruned again to the same N: up to date; to another N or none: written again
    assert binarize_model(ini, prune=n).written == []
    assert len(binarize_model(ini, prune=0).written) == 2
    assert BinaryPhraseTable(model.tables[0].binary).prune == 0


def test_what_the_format_cannot_hold_is_an_error_naming_file_and_line(tmp_path):
    """The u16 fields: a key's or a target's bytes, a word position, the number of points."""
    ok = "a ||| x ||| 1 1 1 1 ||| 0-0\n"
    cases = {"a target phrase of 65536 bytes": "b ||| " + "x" * 65536 + " ||| 1 1 1 1\n",
             "alignment point '0-65536'": "b ||| x ||| 1 1 1 1 ||| 0-65536\n",
             "alignment point '0-1" + "0" * 5000 + "'": "b ||| x ||| 1 1 1 1 ||| 0-1" + "0" * 5000 + "\n",
             "65536 alignment points": "b ||| x ||| 1 1 1 1 ||| " + "0-0 " * 65536 + "\n",
             "a key of 65536 bytes": "b" * 65536 + " ||| x ||| 1 1 1 1\nc ||| x ||| 1 1 1 1\n"}
    for message, line in cases.items():
        pt = write(tmp_path / "pt", ok + line)
        with pytest.raises(CadError) as exc:
            binarize_phrase_table(pt, tmp_path / "pt.cadphr", 4)
        assert exc.value.message.startswith(message)
        assert (exc.value.path, exc.value.line) == (str(pt), 2)
    # leading zeros as int() reads them, however many
    binarize_phrase_table(write(tmp_path / "pt", ok + "b ||| x ||| 1 1 1 1 ||| 65535-" + "0" * 5000 + "7\n"),
                          tmp_path / "o", 4)
    assert BinaryPhraseTable(tmp_path / "o").lookup("b")[0][2] == ((65535, 7),)
