"""The human-noun lexicon learned from relative pronouns in an aligned corpus (cad.lexicons.humanness)."""

import pytest
from conftest import write

from cad.core.errors import CadError
from cad.lexicons.humanness import TARGETS, HumanLexicon, antecedents, learn, main

# (Spanish, English, alignment); the expected counts are worked out by hand below
MINI = [
    ("los ciudadanos que votaron", "the citizens who voted", "0-0 1-1 2-2 3-3"),       # ciudadanos +1 h
    ("el presidente , que habló", "the president , who spoke", "0-0 1-1 2-2 3-3 4-4"),  # ", who": +1 h
    ("el gobierno que decidió", "the government which decided", "0-0 1-1 2-2 3-3"),    # gobierno +1 n
    ("el gobierno que decidió", "the government which decided", "0-0 1-1 2-2 3-3"),    # gobierno +1 n
    ("el gobierno que decidió", "the government which decided", "0-0 1-1 2-2 3-3"),    # gobierno +1 n
    ("el gobierno , que dijo", "the government , who said", "0-0 1-1 2-2 3-3 4-4"),    # gobierno +1 h
    ("los que votaron", "those who voted", "0-0 1-1 2-2"),                     # "those": closed class
    ("el año en que", "the year in which", "0-0 1-1 2-2 3-3"),                 # "in": closed class
    ("los responsables políticos que", "the policymakers who", "0-0 1-1 2-1 3-2"),  # 1/2 h each
    ("saben quién ganó", "know who won", "0-0 1-1 2-2"),                       # saben +1 h, not noun-like
    ("los ciudadanos votaron", "the citizens who voted", "0-0 2-3"),           # citizens unaligned
]


def _corpus(tmp_path, rows=MINI):
    prefix = tmp_path / "mini"
    write(tmp_path / "mini.es", "".join(s + "\n" for s, _, _ in rows))
    write(tmp_path / "mini.en", "".join(t + "\n" for _, t, _ in rows))
    align = write(tmp_path / "mini.align", "".join(a + "\n" for _, _, a in rows))
    return prefix, align


def _learn(tmp_path, rows=MINI):
    prefix, align = _corpus(tmp_path, rows)
    return learn(f"{prefix}.es", f"{prefix}.en", str(align))


def test_antecedents_skip_a_comma_and_closed_class_words():
    en = TARGETS["en"]
    assert list(antecedents("the man , who came".split(), en)) == [(1, True)]
    assert list(antecedents("the law which passed".split(), en)) == [(1, False)]
    assert list(antecedents("those who came to whom".split(), en)) == []
    assert list(antecedents("who came".split(), en)) == []
    assert list(antecedents("a country whose economy".split(), en)) == []   # whose: either
    assert list(antecedents("rates , 5 % which".split(), en)) == []         # not a word


def test_counts_by_hand(tmp_path):
    ev = _learn(tmp_path)
    assert ev.lines == len(MINI)
    assert ev.cues == {"human": 6, "nonhuman": 3}   # antecedents found, aligned or not (line 11)
    assert dict(ev.human) == {"ciudadanos": 1.0, "presidente": 1.0, "gobierno": 1.0,
                              "responsables": 0.5, "políticos": 0.5, "saben": 1.0}
    assert dict(ev.nonhuman) == {"gobierno": 3.0}


def test_lexicon_by_hand(tmp_path):
    lex = _learn(tmp_path).lexicon(prior=1.0, min_evidence=0.5, min_det_ratio=0.1)
    # políticos and saben never follow a determiner: left out as not noun-like
    assert sorted(lex.entries) == ["ciudadanos", "gobierno", "presidente", "responsables"]
    assert lex.probability("ciudadanos") == pytest.approx(2 / 3, abs=1e-4)    # (1+1)/(1+0+2)
    assert lex.probability("gobierno") == pytest.approx(1 / 3, abs=1e-4)      # (1+1)/(1+3+2)
    assert lex.probability("responsables") == pytest.approx(0.6, abs=1e-4)    # 1.5/2.5
    assert lex.is_human("Presidente") is True
    assert lex.is_human("gobierno") is False
    assert lex.is_human("saben") is None and lex.probability("mesa") is None
    assert lex.human_words() == ["ciudadanos", "presidente", "responsables"]


def test_min_evidence_and_prior(tmp_path):
    ev = _learn(tmp_path)
    assert list(ev.lexicon().entries) == ["gobierno"]          # default: at least 3 counts
    assert ev.lexicon(prior=3.0).probability("gobierno") == pytest.approx(4 / 10, abs=1e-4)
    assert ev.lexicon(min_evidence=1, min_det_ratio=0).is_human("saben") is True


def test_tie_is_not_human():
    from cad.lexicons.humanness import Entry
    assert HumanLexicon({"defensa": Entry(2, 2, 0.5)}).is_human("defensa") is False


def test_save_load_round_trip(tmp_path):
    lex = _learn(tmp_path).lexicon(min_evidence=0.5)
    out = tmp_path / "lex.tsv"
    lex.save(out)
    assert out.read_text(encoding="utf-8") == (
        "word\thuman\tnonhuman\tprobability\n"
        "ciudadanos\t1\t0\t0.6667\n"
        "gobierno\t1\t3\t0.3333\n"
        "presidente\t1\t0\t0.6667\n"
        "responsables\t0.500\t0\t0.6000\n")
    assert HumanLexicon.load(out) == lex
    lex.save(tmp_path / "lex.tsv.gz")
    assert HumanLexicon.load(tmp_path / "lex.tsv.gz") == lex
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("text, line, words", [
    ("word\thuman\tprobability\n", 1, "header"),
    ("", 1, "empty"),
    ("word\thuman\tnonhuman\tprobability\nhombre\t3\t0\n", 2, "4 tab-separated"),
    ("word\thuman\tnonhuman\tprobability\nhombre\t3\t0\t0.8\nmesa\tx\t2\t0.2\n", 3, "numbers"),
    ("word\thuman\tnonhuman\tprobability\nhombre\t3\t0\t1.8\n", 2, "[0, 1]"),
    ("word\thuman\tnonhuman\tprobability\nhombre\t3\t0\t0.8\nhombre\t3\t0\t0.8\n", 3, "duplicate"),
    ("word\thuman\tnonhuman\tprobability\n\t3\t0\t0.8\n", 2, "empty or space-padded"),
])
def test_load_errors_name_file_and_line(tmp_path, text, line, words):
    path = write(tmp_path / "bad.tsv", text)
    with pytest.raises(CadError) as exc:
        HumanLexicon.load(path)
    assert exc.value.path == str(path) and exc.value.line == line
    assert words in str(exc.value) and f"bad.tsv:{line}:" in str(exc.value)


@pytest.mark.parametrize("bad_align, message", [
    ("0-0 1-x", "malformed alignment point"),
    ("0-0 9-1", "out of range"),
])
def test_malformed_alignment_names_file_and_line(tmp_path, bad_align, message):
    rows = list(MINI)
    rows[2] = (rows[2][0], rows[2][1], bad_align)
    with pytest.raises(CadError) as exc:
        _learn(tmp_path, rows)
    assert exc.value.path.endswith("mini.align") and exc.value.line == 3
    assert message in str(exc.value)


def test_parallel_files_of_different_lengths(tmp_path):
    prefix, align = _corpus(tmp_path)
    write(tmp_path / "mini.en", "the citizens who voted\n")
    with pytest.raises(CadError) as exc:
        learn(f"{prefix}.es", f"{prefix}.en", str(align))
    assert exc.value.line == 2 and "same number of lines" in str(exc.value)


def test_invalid_utf8_names_file_and_line(tmp_path):
    prefix, align = _corpus(tmp_path)
    write(tmp_path / "mini.es", b"los ciudadanos que votaron\nel \xff presidente\n")
    with pytest.raises(CadError) as exc:
        learn(f"{prefix}.es", f"{prefix}.en", str(align))
    assert exc.value.path.endswith("mini.es") and exc.value.line == 2


def test_unknown_language(tmp_path):
    prefix, align = _corpus(tmp_path)
    with pytest.raises(CadError, match="no humanness word lists for source language 'xx'"):
        learn(f"{prefix}.es", f"{prefix}.en", str(align), src_lang="xx")


def test_cli_writes_the_lexicon(tmp_path, capsys):
    prefix, align = _corpus(tmp_path)
    out = tmp_path / "humans.tsv"
    assert main(["--corpus", str(prefix), "--src", "es", "--tgt", "en", "--align", str(align),
                 "--out", str(out), "--min-evidence", "1"]) == 0
    lex = HumanLexicon.load(out)
    assert lex.human_words() == ["ciudadanos", "presidente"] and lex.is_human("gobierno") is False
    captured = capsys.readouterr()
    assert captured.out == ""


def test_cli_error_names_file_and_line(tmp_path, capsys):
    rows = list(MINI)
    rows[1] = (rows[1][0], rows[1][1], "0-0 1")
    prefix, align = _corpus(tmp_path, rows)
    out = tmp_path / "humans.tsv"
    assert main(["--corpus", str(prefix), "--align", str(align), "--out", str(out)]) == 1
    assert f"{align}:2: malformed alignment point" in capsys.readouterr().err
    assert not out.exists()


def test_cli_help_documents_every_option(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for opt in ("--corpus", "--src", "--tgt", "--align", "--out", "--prior", "--min-evidence",
                "--min-det-ratio", "--quiet"):
        assert opt in text
    assert text.count("default") >= 5
