"""Truecasing as Moses's recaser scripts do it (cad/corpus/truecase.py, through sacremoses)."""

import pytest

from cad.cli import main
from cad.core.errors import CadError
from cad.corpus.truecase import Truecaser, detruecase, has_case, text_documents, train_truecaser

from conftest import write

DOCS = [
    [["The", "cat", "met", "Bob", "in", "Paris", "."], ["NATO", "and", "the", "UN", "met", "there", "."],
     ["Paris", "is", "where", "the", "UN", "and", "NATO", "met", ".", "The", "iPhone", "was", "there", "."],
     ["Bob", "said", "the", "cat", "was", "in", "Paris", "."]],
    # released lowercased: would teach *paris* and *bob*
    [["bob", "went", "to", "paris", "and", "the", "un", "."], ["paris", "was", "nice", "."]],
]


def test_model_in_moses_format_learned_from_the_documents_with_case(tmp_path):
    used, skipped = train_truecaser(DOCS, tmp_path / "tc")
    assert (used, skipped) == (1, 1)
    lines = (tmp_path / "tc").read_text(encoding="utf-8").splitlines()
    # sentence-initial words are not counted (*The* after a full stop either): *NATO*, *Paris*, *Bob* only later
    assert "Paris (2/2)" in lines and "Bob (1/1)" in lines and "UN (2/2)" in lines and "the (3/3)" in lines
    assert "NATO (1/1)" in lines and "iPhone (1/1)" in lines
    assert not any(l.startswith(("paris", "bob ")) for l in lines)
    assert lines == sorted(lines, key=lambda l: l.split()[0].lower())


def test_truecase_round_trip_on_hand_made_text(tmp_path):
    train_truecaser(DOCS, tmp_path / "tc")
    tc = Truecaser(tmp_path / "tc")
    # sentence-initial words take their usual form, names and acronyms keep theirs, an unknown
    # capitalized word mid-sentence stays as written
    raw = "The cat said NATO met Bob in Paris . The Eiffel tower was there . NATO !".split()
    cased = tc.truecase(raw)
    assert cased == "the cat said NATO met Bob in Paris . the Eiffel tower was there . NATO !".split()
    # a lowercased input gets its names back
    assert tc.truecase("bob met the un in paris .".split()) == "Bob met the UN in Paris .".split()
    # detruecase restores the sentence starts: the text as written comes back
    assert detruecase(cased) == raw
    assert detruecase(["«", "il", "dort", "»", ".", "ça", "va", "?"]) == ["«", "il", "dort", "»", ".", "Ça", "va", "?"]
    assert tc.truecase([]) == [] and detruecase([]) == []
    # as detruecase.perl: the first letter only, whatever the word
    assert tc.truecase(["iPhone", "."]) == ["iPhone", "."] and detruecase(["iPhone", "."]) == ["IPhone", "."]


def test_has_case_needs_most_sentences_to_start_with_a_capital():
    assert has_case([["Il", "dort", "."]]) and has_case([["«", "Ça", "va", "»"], ["Oui", "."]])
    # ASCII-only lowercasing leaves *États-Unis* and *Ça*: still a lowercased document
    assert not has_case([["ça", "va", "."], ["les", "États-unis", "."], ["ça", "y", "est"]])
    assert not has_case([["Ça", "va", "."], ["ça", "y", "est"]])
    assert not has_case([[",", "42"]]) and not has_case([])


def test_documents_by_boundary_file_or_by_line(tmp_path):
    (tmp_path / "t").write_text("a b\nc\nd e\nf\n", encoding="utf-8")
    (tmp_path / "d").write_text("0\tx\n1\ty\n3\tz\n", encoding="utf-8")
    assert list(text_documents(tmp_path / "t", tmp_path / "d")) == [[["a", "b"]], [["c"], ["d", "e"]], [["f"]]]
    assert list(text_documents(tmp_path / "t", None)) == [[["a", "b"]], [["c"]], [["d", "e"]], [["f"]]]
    (tmp_path / "d").write_text("0\tx\n6\ty\n", encoding="utf-8")
    with pytest.raises(CadError, match="after the end"):
        list(text_documents(tmp_path / "t", tmp_path / "d"))


@pytest.mark.parametrize("line", ["Paris", "Paris (2/2) paris", "Paris two", "Paris (x/2)", ""])
def test_a_bad_model_line_is_named(tmp_path, line):
    (tmp_path / "tc").write_text(f"the (4/4)\n{line}\n", encoding="utf-8")
    with pytest.raises(CadError) as err:
        Truecaser(tmp_path / "tc")
    assert err.value.line == 2


def test_cli_train_apply_detruecase(tmp_path, capsys, caplog):
    text = tmp_path / "t"
    text.write_text("".join(" ".join(s) + "\n" for d in DOCS for s in d), encoding="utf-8")
    (tmp_path / "d").write_text("0\ta\n4\tb\n", encoding="utf-8")
    assert main(["-q", "truecase", "train", "--text", str(text), "--docs", str(tmp_path / "d"),
                 "--model", str(tmp_path / "tc")]) == 0
    (tmp_path / "in").write_text("The UN met in paris .\n\nbob !\n", encoding="utf-8")
    assert main(["truecase", "apply", "--model", str(tmp_path / "tc"), "--input", str(tmp_path / "in"),
                 "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out").read_text(encoding="utf-8") == "the UN met in Paris .\n\nBob !\n"
    assert main(["truecase", "detruecase", "--input", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().out == "The UN met in Paris .\n\nBob !\n"
    # a lowercased corpus: an empty model, said so, which lowercases (as the corpus was)
    (tmp_path / "low").write_text("bob went to paris .\n", encoding="utf-8")
    assert main(["truecase", "train", "--text", str(tmp_path / "low"), "--model", str(tmp_path / "empty")]) == 0
    assert "no document written with case" in caplog.text
    assert Truecaser(tmp_path / "empty").truecase(["Bob", "went", "."]) == ["bob", "went", "."]


def test_translate_finds_the_truecasing_model_beside_the_phrase_table(tmp_path):
    from cad.translate.decoders import model_truecaser
    from cad.moses.ini import baseline_config

    cfg = baseline_config(str(tmp_path / "phrase-table.gz"), None, str(tmp_path / "lm.arpa"), 3)
    assert model_truecaser("auto", cfg, "en") is None           # a lowercased model: none there
    (tmp_path / "truecase-model.en").write_text("the (1/1)\n", encoding="utf-8")
    assert model_truecaser("auto", cfg, "en") == str(tmp_path / "truecase-model.en")
    assert model_truecaser("auto", cfg, "es") is None
    assert model_truecaser("none", cfg, "en") is None
    assert model_truecaser("other.tc", cfg, "en") == "other.tc"


def test_translate_refuses_a_truecasing_model_with_no_lowercase(tmp_path, capsys):
    (tmp_path / "in").write_text("It sleeps .\n", encoding="utf-8")
    assert main(["-q", "translate", "--config", str(tmp_path / "none.ini"), "--input", str(tmp_path / "in"),
                 "--no-lowercase", "--truecase-model", str(tmp_path / "tc"), "--out", str(tmp_path / "out")]) == 1
    assert "--no-lowercase" in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_model_case_follows_the_truecasing_models_beside_the_phrase_table(tmp_path):
    from cad.moses.ini import baseline_config
    from cad.corpus.truecase import ModelCase

    cfg = baseline_config(str(tmp_path / "phrase-table.gz"), None, str(tmp_path / "lm.arpa"), 3)
    low = ModelCase.of(cfg, "en", "fr")
    assert low.name == "lowercased" and low.source(["It", "was", "Bob"]) == ["it", "was", "bob"]
    write(tmp_path / "t.en", "Then Bob saw the cat .\nThe cat and Bob slept .\n")
    write(tmp_path / "t.fr", "Alors Bob a vu le chat .\nLe chat et Bob dormaient .\n")
    for lang in ("en", "fr"):
        assert main(["-q", "truecase", "train", "--text", str(tmp_path / f"t.{lang}"),
                     "--model", str(tmp_path / f"truecase-model.{lang}")]) == 0
    case = ModelCase.of(cfg, "en", "fr")
    assert case.name == "truecased"
    # sentence-initial words take their usual form, names keep theirs
    assert case.source_line("The cat saw Bob .") == "the cat saw Bob ."
    assert case.target_line("Le chat a vu Bob .") == "le chat a vu Bob ."


def test_decode_raw_text_in_publishable_text_out(tmp_path, capsys, monkeypatch):
    import io
    import sys

    from cad.sample import SAMPLE_PREFIX

    out = tmp_path / "m"
    assert main(["-q", "train", "--corpus", str(SAMPLE_PREFIX), "--out", str(out)]) == 0
    # the sample corpus has no case: empty truecasing models, which lowercase the input
    assert Truecaser(out / "truecase-model.en").empty
    write(tmp_path / "in.txt", "I saw the mouse yesterday.\nIt is old.\n")
    assert main(["decode", "-f", str(out / "moses.ini"), "-input-file", str(tmp_path / "in.txt")]) == 0
    tokenized = capsys.readouterr().out.splitlines()
    assert main(["decode", "-f", str(out / "moses.ini"), "-input-file", str(tmp_path / "in.txt"), "--raw",
                 "-alignment-output-file", str(tmp_path / "al")]) == 0
    raw = capsys.readouterr().out.splitlines()
    assert len(raw) == 2 and all(r[0].isupper() and not r.endswith(" .") and r.endswith(".") for r in raw)
    # the raw input's translation is the tokenized, lowercased input's, recased and detokenized
    from sacremoses import MosesTokenizer

    write(tmp_path / "tok.txt", "".join(" ".join(MosesTokenizer(lang="en").tokenize(x, escape=False)).lower() + "\n"
                                        for x in ("I saw the mouse yesterday.", "It is old.")))
    assert main(["decode", "-f", str(out / "moses.ini"), "-input-file", str(tmp_path / "tok.txt")]) == 0
    expected = capsys.readouterr().out.splitlines()
    assert [r.lower().replace(" ", "") for r in raw] == [e.replace(" ", "") for e in expected]
    assert tokenized != expected           # cad decode alone reads its input as it is (Moses does)
    # the alignment file keeps token positions
    assert all("-" in line for line in (tmp_path / "al").read_text().splitlines())
    # from standard input, line by line, the same
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((tmp_path / "in.txt").read_bytes())))
    assert main(["decode", "-f", str(out / "moses.ini"), "--raw"]) == 0
    assert capsys.readouterr().out.splitlines() == raw
    assert main(["decode", "-f", str(out / "moses.ini"), "--raw", "-t"]) == 1
    assert "--raw" in capsys.readouterr().err
