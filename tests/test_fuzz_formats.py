"""Property-based tests for every parser of an outside format: random mutations of a valid file
(characters and lines deleted, inserted, duplicated, truncated, bytes that are not UTF-8) must give
either a parse or cad's clear error (CadError), never another exception; where cad writes the
format, writing and reading again gives the same records.

`CAD_FUZZ_EXAMPLES` sets the examples per format (default 60; `make test-all` runs 400)."""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cad.core.errors import CadError

EXAMPLES = int(os.environ.get("CAD_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# pieces a mutation inserts: each format's separators, digits, signs, and bytes that break UTF-8
PIECES = [b" ||| ", b"|||", b"\t", b" ", b"\n", b"\r\n", b"-", b"0", b"1", b"9", b"-1", b"1e400", b"nan", b"inf",
          b"=", b"[", b"]", b"<", b">", b'"', b"\\", b",", b"(", b")", b"|", b":", b"#", b"\xff", b"\xc3",
          "\u00b2".encode(), "\u0663".encode(), b"\x00", b"word_", b"..", b"T1", b"\xef\xbb\xbf"]


@st.composite
def mutated(draw, valid: bytes) -> bytes:
    data = bytearray(valid)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "dup_line", "drop_line", "truncate", "swap_lines"]))
        n = len(data)
        if op == "delete" and n:
            i = draw(st.integers(0, n - 1))
            del data[i:i + draw(st.integers(1, 8))]
        elif op == "insert":
            i = draw(st.integers(0, n))
            data[i:i] = draw(st.sampled_from(PIECES)) if draw(st.booleans()) else draw(st.binary(min_size=1, max_size=6))
        elif op in ("dup_line", "drop_line", "swap_lines"):
            lines = bytes(data).split(b"\n")
            k = draw(st.integers(0, len(lines) - 1))
            if op == "dup_line":
                lines.insert(k, lines[k])
            elif op == "drop_line":
                del lines[k]
            else:
                j = draw(st.integers(0, len(lines) - 1))
                lines[k], lines[j] = lines[j], lines[k]
            data = bytearray(b"\n".join(lines))
        elif op == "truncate" and n:
            del data[draw(st.integers(0, n - 1)):]
    return bytes(data)


def parses_or_refuses(parse, content: bytes, name: str = "input") -> None:
    """`parse(path)` on `content` returns, or raises CadError; anything else fails the test."""
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / name
        p.write_bytes(content)
        try:
            parse(p)
        except CadError:
            pass


def fuzz(valid: bytes, name: str = "input"):
    """Decorator: run the test's `parse` on mutations of `valid`."""
    def wrap(parse):
        @FUZZ
        @given(mutated(valid))
        def test(content):
            parses_or_refuses(parse, content, name)
        test.__name__ = parse.__name__
        test.__doc__ = parse.__doc__
        return test
    return wrap


# ---------------------------------------------------------------- moses.ini
def _ini_text() -> bytes:
    from cad.moses.ini import baseline_config, write_config

    with tempfile.TemporaryDirectory() as d:
        write_config(baseline_config("/x/phrase-table.gz", "/x/reordering.gz", "/x/lm.arpa", 5), Path(d) / "m.ini")
        return (Path(d) / "m.ini").read_bytes()


@fuzz(_ini_text(), "moses.ini")
def test_fuzz_moses_ini(path):
    from cad.moses.ini import parse_config

    parse_config(path)


def test_moses_ini_round_trip(tmp_path):
    from cad.moses.ini import baseline_config, parse_config, write_config

    cfg = baseline_config("/x/pt.gz", "/x/ro.gz", "/x/lm.arpa", 5, distortion_limit=4)
    write_config(cfg, tmp_path / "a.ini")
    again = parse_config(tmp_path / "a.ini")
    assert [(f.type, f.name, f.args) for f in again.features] == [(f.type, f.name, f.args) for f in cfg.features]
    assert again.weights == cfg.weights and again.distortion_limit == 4
    write_config(again, tmp_path / "b.ini")
    assert (tmp_path / "b.ini").read_text() == (tmp_path / "a.ini").read_text()


# ---------------------------------------------------------------- phrase and reordering tables
PHRASES = (b"the cat ||| le chat ||| 0.5 0.25 0.5 0.125 ||| 0-0 1-1 ||| 2 2 2\n"
           b"it ||| il ||| 0.7 0.6 0.5 0.4 ||| 0-0\n"
           b"it is ||| c' est ||| 0.3 0.2 0.1 0.05 ||| 0-0 1-1\n")
REORDERING = (b"the cat ||| le chat ||| 0.5 0.25 0.25 0.6 0.2 0.2\n"
              b"it ||| il ||| 0.7 0.2 0.1 0.5 0.3 0.2\n")


@fuzz(PHRASES, "phrase-table")
def test_fuzz_phrase_table(path):
    from cad.decoder.tables import PhraseTable
    from cad.moses.ini import Feature

    PhraseTable(Feature("PhraseDictionaryMemory", "TranslationModel0", {"num-features": "4", "path": str(path)}),
                None).load(None)


def _same_outcome(a, b, path):
    """a(path) and b(path) return the same or raise the same CadError (message, file, line)."""
    outcome = []
    for f in (a, b):
        try:
            outcome.append(("ok", f(path)))
        except CadError as exc:
            outcome.append(("error", str(exc), exc.path, exc.line))
    assert outcome[0] == outcome[1]


@fuzz(PHRASES, "phrase-table")
def test_fuzz_table_check_by_the_compiled_reader(path):
    """cad moses-ini check's compiled reader accepts and refuses what the Python one does, alike."""
    from cad.moses import binarize_native
    from cad.moses.check import check_phrase_table

    if binarize_native.available():
        _same_outcome(lambda p: check_phrase_table(str(p), 4), lambda p: binarize_native.check_text_table(p, 4), path)


@fuzz(REORDERING, "reordering-table")
def test_fuzz_reordering_table(path):
    from cad.decoder.tables import ReorderingTable
    from cad.moses.ini import Feature

    ReorderingTable(Feature("LexicalReordering", "LexicalReordering0",
                            {"num-features": "6", "type": "wbe-msd-bidirectional-fe-allff", "path": str(path)}),
                    None).load(None)


# ---------------------------------------------------------------- ARPA
def _arpa_model():
    from cad.lm.kneser_ney import estimate

    return estimate([["the", "cat", "sleeps"], ["the", "dog", "sleeps"], ["a", "cat", "runs"]], 3)


def _arpa_text() -> bytes:
    from cad.lm.arpa import write_arpa

    with tempfile.TemporaryDirectory() as d:
        write_arpa(_arpa_model(), Path(d) / "lm.arpa")
        return (Path(d) / "lm.arpa").read_bytes()


@fuzz(_arpa_text(), "lm.arpa")
def test_fuzz_arpa(path):
    from cad.lm.arpa import read_arpa

    read_arpa(path)


@fuzz(_arpa_text(), "lm.arpa")
def test_fuzz_arpa_check_refuses_what_read_arpa_refuses(path):
    """check_arpa (cad moses-ini check, streamed) raises read_arpa's error, except that it counts
    an n-gram written twice twice (read_arpa keeps one)."""
    from cad.lm.arpa import check_arpa, read_arpa

    errors = []
    for f in (read_arpa, check_arpa):
        try:
            f(path)
            errors.append(None)
        except CadError as exc:
            errors.append((str(exc), exc.path, exc.line))
    if any(e is not None and "but the file has" in e[0] for e in errors):
        return          # a duplicated n-gram: counted once by read_arpa, twice by check_arpa
    assert errors[0] == errors[1]


def test_arpa_round_trip(tmp_path):
    from cad.lm.arpa import read_arpa, write_arpa

    model = _arpa_model()
    write_arpa(model, tmp_path / "lm.arpa")
    again = read_arpa(tmp_path / "lm.arpa")
    for order in range(len(model.prob)):
        assert again.prob[order].keys() == model.prob[order].keys()
        for g, p in model.prob[order].items():
            assert again.prob[order][g] == pytest.approx(p, rel=1e-6)


# ---------------------------------------------------------------- alignments, n-best lists, documents
ALIGNMENT = b"0-0 1-1 2-3\n0-0\n\n3-2 1-0 2-2\n"


@fuzz(ALIGNMENT, "aligned")
def test_fuzz_alignment_file(path):
    from cad.core.alignment import parse_alignment
    from cad.core.textio import read_lines

    for lineno, line in enumerate(read_lines(path), 1):
        parse_alignment(line, 4, 4, str(path), lineno)


@given(st.sets(st.tuples(st.integers(0, 60), st.integers(0, 60)), max_size=30))
def test_alignment_round_trip(points):
    from cad.core.alignment import format_alignment, parse_alignment

    assert set(parse_alignment(format_alignment(points))) == points


NBEST = (b"0 ||| il dort ||| LM0= -3.5 TranslationModel0= -1 -2 -1 -2 ||| -4.25 ||| 0-0 1-1\n"
         b"0 ||| elle dort ||| LM0= -4.5 TranslationModel0= -1 -2 -1 -2 ||| -5.25 ||| 0-0 1-1\n"
         b"1 ||| le chat ||| LM0= -2 TranslationModel0= -1 -1 -1 -1 ||| -3 ||| 0-0 1-1\n")


@fuzz(NBEST, "nbest")
def test_fuzz_nbest(path):
    from cad.translate.rerank import read_nbest

    read_nbest(path)


def test_nbest_round_trip(tmp_path):
    # cad decode writes the lists, the reranker reads them: same words, totals and alignments
    from cad.translate.rerank import read_nbest
    from cad.decoder import Decoder, DecoderModel
    from cad.decoder.nbest import nbest_lines
    from decoder_fixtures import random_model

    ini, sents = random_model(tmp_path, 7)
    dec = Decoder(DecoderModel.load(ini))
    trs = [dec.translate(s, nbest=5) for s in sents[:3]]
    with open(tmp_path / "nb", "w", encoding="utf-8") as fh:
        for k, tr in enumerate(trs):
            fh.writelines(line + "\n" for line in nbest_lines(k, tr, include_alignment=True))
    back = read_nbest(tmp_path / "nb")
    assert len(back) == 3
    for tr, hyps in zip(trs, back):
        assert [h.words for h in hyps] == [d.words for d in tr.nbest]
        assert [h.total for h in hyps] == pytest.approx([d.total for d in tr.nbest], abs=1e-3)
        assert [sorted(h.alignment) for h in hyps] == [sorted(d.word_alignment) for d in tr.nbest]
    # Moses's layout: -report-segmentation's |i-j| marks in the texts, each phrase's points by source
    # position; the reranker reads the same words and the alignment in target order
    with open(tmp_path / "nb.t", "w", encoding="utf-8") as fh:
        for k, tr in enumerate(trs):
            fh.writelines(line + "\n" for line in nbest_lines(k, tr, include_alignment=True, segmentation=True))
    assert "|0-" in (tmp_path / "nb.t").read_text()
    for tr, hyps in zip(trs, read_nbest(tmp_path / "nb.t")):
        assert [h.words for h in hyps] == [d.words for d in tr.nbest]
        assert [h.alignment for h in hyps] == [d.word_alignment for d in tr.nbest]
    (tmp_path / "bad").write_text("0 ||| il dort ||| LM0= -3 ||| -4 ||| 0-0 1\n")
    with pytest.raises(CadError, match="malformed alignment point '1'"):
        read_nbest(tmp_path / "bad")


DOCS = b"0\t779\n183\t780\n320\t781\n"


@fuzz(DOCS, "docs")
def test_fuzz_docs(path):
    from cad.core.docs import read_docs

    read_docs(path, 400)


# ---------------------------------------------------------------- DiscoMT pronoun prediction TSV
TSV = ("il\tit\tit is raining .\tREPLACE_0 pleut .\t0-0 2-1 3-2\n"
       "elles OTHER\tthey them\tthey see them .\tREPLACE_0 REPLACE_2 voient .\t0-0 1-2 2-1 3-3\n").encode()


@fuzz(TSV, "pronouns.tsv")
def test_fuzz_discomt_tsv(path):
    from cad.plm.tsv import read_tsv

    read_tsv(path, gold=True)
    read_tsv(path)


# ---------------------------------------------------------------- coreference formats
def _records():
    from coref.records import Candidate, PronounResolution

    return [PronounResolution("0", 1, 0, "it", True, [Candidate(0, 3, 5, 4, "a mouse", 0.75, "sing", False),
                                                      Candidate(0, 0, 2, 1, "my cat", 0.25)], 0.9),
            PronounResolution("0", 2, 3, "they", False, [], 0.1)]


def _jsonl_text() -> bytes:
    from coref.records import write_jsonl

    with tempfile.TemporaryDirectory() as d:
        write_jsonl(_records(), Path(d) / "r.jsonl")
        return (Path(d) / "r.jsonl").read_bytes()


@fuzz(_jsonl_text(), "records.jsonl")
def test_fuzz_coref_records(path):
    from coref.records import read_jsonl

    list(read_jsonl(path))


def test_coref_records_round_trip(tmp_path):
    from coref.records import read_jsonl, write_jsonl

    write_jsonl(_records(), tmp_path / "r.jsonl")
    assert list(read_jsonl(tmp_path / "r.jsonl")) == _records()


CONLL = ("#begin document (x); part 0\n"
         "x\t0\t0\tThe\t_\t_\t_\t_\t_\t_\t_\t_\t(0\n"
         "x\t0\t1\tcat\t_\t_\t_\t_\t_\t_\t_\t_\t0)\n"
         "x\t0\t2\tsleeps\t_\t_\t_\t_\t_\t_\t_\t_\t_\n\n"
         "x\t0\t0\tIt\t_\t_\t_\t_\t_\t_\t_\t_\t(0)|(1)\n"
         "#end document\n").encode()


@fuzz(CONLL, "x.conll")
def test_fuzz_conll(path):
    from coref.gold.conll import read_conll

    read_conll(path)


BRAT_TXT = "My cat brought home a mouse. It was not dead.\n"
BRAT_ANN = (b"T1\tPER 0 6\tMy cat\nT2\tANIMAL 20 27\ta mouse\nT3\tPRON 29 31\tIt\n"
            b"R1\tCoreference Arg1:T3 Arg2:T2\n*\tCoref T2 T3\n")


@FUZZ
@given(mutated(BRAT_ANN))
def test_fuzz_brat(content):
    from coref.gold.brat import read_brat

    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "x.txt").write_text(BRAT_TXT, encoding="utf-8")
        parses_or_refuses(lambda p: read_brat(p, Path(d) / "x.txt"), content, "x.ann")


MMAX_WORDS = ('<?xml version="1.0"?>\n<words>\n'
              + "".join(f'<word id="word_{i + 1}">{w}</word>\n' for i, w in enumerate(
                  "My cat saw a mouse . It ran .".split())) + "</words>\n")
MMAX_SENTENCES = ('<?xml version="1.0"?>\n<markables xmlns="www.eml.org/NameSpaces/sentence">\n'
                  '<markable id="markable_0" span="word_1..word_6" mmax_level="sentence"/>\n'
                  '<markable id="markable_1" span="word_7..word_9" mmax_level="sentence"/>\n</markables>\n')
MMAX_COREF = ('<?xml version="1.0"?>\n<markables xmlns="www.eml.org/NameSpaces/coref">\n'
              '<markable id="m1" span="word_4..word_5" coref_class="set_1" mention="np"/>\n'
              '<markable id="m2" span="word_7" coref_class="set_1" mention="pronoun" type="anaphoric"/>\n'
              '</markables>\n').encode()


@FUZZ
@given(mutated(MMAX_COREF), st.booleans())
def test_fuzz_mmax(content, mutate_words):
    from coref.gold.mmax import read_mmax

    with tempfile.TemporaryDirectory() as d:
        base = Path(d)
        (base / "Basedata").mkdir()
        (base / "Markables").mkdir()
        words = MMAX_WORDS.encode()
        coref = content
        if mutate_words:         # the same mutation applied to the words file instead
            words, coref = content.replace(MMAX_COREF[:40], MMAX_WORDS.encode()[:40]), MMAX_COREF
        (base / "Basedata" / "d_words.xml").write_bytes(words)
        (base / "Markables" / "d_sentence_level.xml").write_text(MMAX_SENTENCES, encoding="utf-8")
        (base / "Markables" / "d_coref_level.xml").write_bytes(coref)
        (base / "d.mmax").write_text("<mmax/>", encoding="utf-8")
        try:
            read_mmax(base, "d")
        except CadError:
            pass


# ---------------------------------------------------------------- APT configuration
def _apt_ini(d: Path) -> bytes:
    for name, text in (("src", "it is .\n"), ("ref", "il est .\n"), ("cand", "il est .\n"), ("aref", "0-0 1-1 2-2\n"),
                       ("acand", "0-0 1-1 2-2\n"), ("slist", "it\nthey\n"), ("tlist", "il\nelle\n"),
                       ("equal", "ce, c'\n"), ("similar", "ce,il\n")):
        (d / name).write_text(text, encoding="utf-8")
    return (f"[files]\nsource = {d}/src\nreference = {d}/ref\ncandidate = {d}/cand\nalignment_ref = {d}/aref\n"
            f"alignment_cand = {d}/acand\nlist_source_pronouns = {d}/slist\nlist_target_pronouns = {d}/tlist\n"
            f"equal = {d}/equal\nsimilar = {d}/similar\noutput = {d}/out\n"
            "[settings]\ninput_type: word\n[cases]\ncase1 = 1\ncase2 = 0.5\n").encode()


@FUZZ
@given(st.data())
def test_fuzz_apt_config(data):
    from cad.eval.apt_config import read_apt_config

    with tempfile.TemporaryDirectory() as d:
        content = data.draw(mutated(_apt_ini(Path(d))))
        parses_or_refuses(read_apt_config, content, "apt.ini")


# ---------------------------------------------------------------- class CM table
def test_class_table_round_trip(tmp_path):
    from cad.cm.class_model import ClassTable

    table = ClassTable({"it-subj-fem-sing": {"elle": 0.5, "ce": 0.25, "NONE": 0.25}, "they-obj": {"le": 1.0}},
                       {"it-subj-fem-sing": 12.5, "they-obj": 3.0})
    table.write(tmp_path / "c.gz")
    back = ClassTable.read(tmp_path / "c.gz")
    assert back.probs.keys() == table.probs.keys()
    for b, dist in table.probs.items():      # the file lists every class, those never seen at 0
        assert {c: p for c, p in back.probs[b].items() if p} == pytest.approx(dist)
    assert back.counts == pytest.approx(table.counts)
    assert not any(math.isnan(p) for d in back.probs.values() for p in d.values())


# ---------------------------------------------------------------- gzipped inputs, the class CM, suites, lex tables
def _gz(data: bytes) -> bytes:
    import gzip

    return gzip.compress(data, mtime=0)


@fuzz(_gz(PHRASES), "phrase-table.gz")
def test_fuzz_gzipped_phrase_table(path):
    """A damaged gzip stream (truncated, corrupt deflate data, bad CRC) is refused, not a crash."""
    from cad.decoder.tables import PhraseTable
    from cad.moses.ini import Feature

    PhraseTable(Feature("PhraseDictionaryMemory", "TranslationModel0", {"num-features": "4", "path": str(path)}),
                None).load(None)


@fuzz(_gz(PHRASES), "phrase-table.gz")
def test_fuzz_gzipped_table_check_by_the_compiled_reader(path):
    """The same on a damaged gzip stream: accepted by both alike or refused by both (the compiled
    reader may meet the damaged bytes' text before zlib's verdict on the stream, Python the other
    way round)."""
    from cad.moses import binarize_native
    from cad.moses.check import check_phrase_table

    if not binarize_native.available():
        return
    outcome = []
    for f in (lambda p: check_phrase_table(str(p), 4), lambda p: binarize_native.check_text_table(p, 4)):
        try:
            outcome.append(("ok", f(path)))
        except CadError as exc:
            outcome.append(("error",))
    assert outcome[0] == outcome[1]


CLASS_TABLE = (b"it-subj-fem-sing ||| elle ||| 0.5 ||| 12.5\nit-subj-fem-sing ||| ce ||| 0.25 ||| 12.5\n"
               b"it-subj-fem-sing ||| NONE ||| 0.25 ||| 12.5\nthey-obj ||| le ||| 1 ||| 3\n")


@fuzz(CLASS_TABLE, "classes")
def test_fuzz_class_table(path):
    from cad.cm.class_model import ClassTable

    ClassTable.read(path)


SUITE = ('{"id": "a", "context": [{"source": "the mouse runs .", "target": "la souris court ."}], '
         '"source": "it sleeps .", "targets": ["elle dort .", "il dort ."], "correct": 0}\n').encode()


@fuzz(SUITE, "suite.jsonl")
def test_fuzz_contrastive_suite(path):
    from cad.experiments.contrastive import read_suite

    read_suite(path)


LEX = b"chat cat 0.5000000\nle the 0.2500000\nNULL it 0.0100000\n"


@fuzz(LEX, "lex.f2e")
def test_fuzz_lexical_table(path):
    from cad.train.lexical import read_lexical_table

    read_lexical_table(path)
