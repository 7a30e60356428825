import gzip
import math
import os
import random

import pytest

from cad.core.errors import CadError
from cad.lm.arpa import read_arpa, write_arpa
from cad.lm.kneser_ney import BOS, EOS, UNK, compute_discounts, estimate
from collections import Counter

CORPUS = [s.split() for s in [
    "le chat dort", "le chien dort", "la souris dort", "le chat mange la souris",
    "la souris mange", "le chien mange le chat", "un chat dort", "la souris dort bien",
    "le chat voit la souris", "le chien voit le chat", "la souris voit le chien",
]]


def test_bigram_model_by_hand():
    # corpus "a b" and "a": bigram model with the fallback discounts (0.5, 1, 1.5)
    m = estimate([["a", "b"], ["a"]], order=2)
    assert m.discounts[1] == (0.5, 1.0, 1.5)
    # unigram continuation counts: a <- {<s>}: 1, b <- {a}: 1, </s> <- {b, a}: 2 ; <unk> 0
    # denominator 4; vocabulary without <s> = {a, b, </s>, <unk>} -> uniform 1/4
    d = m.discounts[0]
    gamma0 = (d[0] * 2 + d[1] * 1) / 4
    assert m.prob[0][("a",)] == pytest.approx((1 - d[0]) / 4 + gamma0 / 4)
    assert m.prob[0][(EOS,)] == pytest.approx((2 - d[1]) / 4 + gamma0 / 4)
    assert m.prob[0][(UNK,)] == pytest.approx(gamma0 / 4)
    # p(b | a): counts a b: 1, a </s>: 1 -> (1 - 0.5)/2 + gamma(a) p(b), gamma(a) = 0.5*2/2
    pb = m.prob[0][("b",)]
    assert m.prob[1][("a", "b")] == pytest.approx(0.5 / 2 + 0.5 * pb)
    assert m.backoff[0][("a",)] == pytest.approx(0.5)


def test_discounts_from_counts_of_counts():
    counts = Counter({("w%d" % i,): c for i, c in enumerate([1] * 10 + [2] * 5 + [3] * 3 + [4] * 2)})
    y = 10 / (10 + 2 * 5)
    assert compute_discounts(counts, 1, False) == pytest.approx((1 - 2 * y * 5 / 10, 2 - 3 * y * 3 / 5, 3 - 4 * y * 2 / 3))
    with pytest.raises(CadError, match="corpus too small"):
        compute_discounts(Counter({("a",): 1}), 1, False)


@pytest.mark.parametrize("order", [1, 2, 3, 5])
def test_distributions_sum_to_one(tmp_path, order):
    m = estimate(CORPUS, order=order)
    write_arpa(m, tmp_path / "lm.arpa")
    m2 = read_arpa(tmp_path / "lm.arpa")
    vocab = [w for w in m.vocabulary() if w != BOS]
    assert UNK in vocab and EOS in vocab
    rng = random.Random(7)
    contexts = [(BOS,), (BOS, "le"), ("inconnu", "mot"), ("la", "souris", "voit", "le")]
    for _ in range(10):
        s = rng.choice(CORPUS)
        k = rng.randrange(len(s) + 1)
        contexts.append(tuple([BOS] + s[:k]))
    for ctx in contexts:
        assert sum(m.p(w, ctx) for w in vocab) == pytest.approx(1.0, abs=1e-9)
        assert sum(m2.p(w, ctx) for w in vocab) == pytest.approx(1.0, abs=1e-6)


def test_unknown_words_get_unk_probability():
    m = estimate(CORPUS, order=3)
    assert m.p("zzz", (BOS, "le")) == pytest.approx(m.p(UNK, (BOS, "le")))
    assert 0 < m.p(UNK, ()) < m.p("le", ())


def test_kenlm_loads_and_agrees(tmp_path):
    kenlm = pytest.importorskip("kenlm")
    m = estimate(CORPUS, order=3)
    write_arpa(m, tmp_path / "lm.arpa")
    km = kenlm.Model(str(tmp_path / "lm.arpa"))
    for sent in (["le", "chat", "dort"], ["la", "souris", "inconnue", "dort"]):
        ours = 0.0
        hist = [BOS]
        for w in sent + [EOS]:
            ours += math.log10(m.p(w, tuple(hist)))
            hist.append(w)
        assert km.score(" ".join(sent)) == pytest.approx(ours, abs=1e-4)
    # as lmplz: <s> is written with log10 probability 0 (not SRILM's -99) and keeps its backoff
    bos = next(l for l in (tmp_path / "lm.arpa").read_text().splitlines() if l.split("\t")[1:2] == [BOS])
    assert bos.split("\t")[0] == "0" and len(bos.split("\t")) == 3 and float(bos.split("\t")[2]) < 0
    assert read_arpa(tmp_path / "lm.arpa").prob[0][(BOS,)] == 0.0


def test_empty_corpus_and_reserved_tokens():
    with pytest.raises(CadError, match="empty"):
        estimate([], 3)
    with pytest.raises(CadError, match="<s>"):
        estimate([["a", "</s>"]], 3)


# -- the compiled estimator (cad/lm/_kn.cpp) writes the Python reference's bytes -----------------

from cad.lm import native  # noqa: E402


def _both(tmp_path, sentences, order):
    from cad.lm.native import estimate_to_arpa

    estimate_to_arpa(iter(sentences), order, tmp_path / "native.arpa")
    write_arpa(estimate(sentences, order), tmp_path / "python.arpa")
    return (tmp_path / "native.arpa").read_bytes(), (tmp_path / "python.arpa").read_bytes()


@pytest.mark.parametrize("order", [1, 2, 3, 5, 7])
def test_native_estimate_is_byte_identical(tmp_path, order):
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    a, b = _both(tmp_path, CORPUS, order)
    assert a == b and a.startswith(b"\\data\\\nngram 1=")


def test_native_estimate_random_unicode_corpora(tmp_path):
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    # words whose code-point order differs from naive orders: accents, capitals, CJK, astral
    # characters, <unk> itself, one-letter words; sentences shorter and longer than the order
    words = ["a", "b", "é", "É", "z", "Z", "日本", "😀", "ab", "a-b", "<unk>", "l'", "ça", "\u00e9t\u00e9"]
    rng = random.Random(11)
    for trial in range(12):
        sents = [[rng.choice(words) for _ in range(rng.randint(1, 9))] for _ in range(rng.randint(1, 60))]
        order = rng.choice([2, 3, 4, 5])
        a, b = _both(tmp_path, sents, order)
        assert a == b, (trial, order)


def test_native_estimate_errors(tmp_path):
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    from cad.lm.native import estimate_to_arpa

    with pytest.raises(CadError, match="empty corpus"):
        estimate_to_arpa(iter([]), 3, tmp_path / "x.arpa")
    with pytest.raises(CadError, match="<s>"):
        estimate_to_arpa(iter([["a", "<s>"]]), 3, tmp_path / "x.arpa")
    with pytest.raises(CadError, match="at least 1"):
        estimate_to_arpa(iter([["a"]]), 0, tmp_path / "x.arpa")
    with pytest.raises(CadError, match="corpus too small"):
        estimate_to_arpa(iter([["a"]]), 2, tmp_path / "x.arpa", discount_fallback=False)
    assert not (tmp_path / "x.arpa").exists()


def test_cad_lm_engines_agree_on_the_shared_corpus(tmp_path, shared_data):
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    from cad.train.pipeline import train_lm

    text = tmp_path / "fr.txt"
    with open(shared_data / "en-fr" / "train.fr", encoding="utf-8") as fh:
        text.write_text("".join(line for _, line in zip(range(3000), fh)), encoding="utf-8")
    train_lm(text, tmp_path / "n.arpa", 5, engine="native")
    train_lm(text, tmp_path / "p.arpa", 5, engine="python")
    assert (tmp_path / "n.arpa").read_bytes() == (tmp_path / "p.arpa").read_bytes()


def test_native_estimate_threads_change_no_byte(tmp_path):
    """A corpus large enough for the native engine's threads and sorts: batches counted while the
    next is read, the n-gram buffers radix-sorted by packed word prefixes (a 5-gram's five words do
    not fit: equal prefixes are ordered by their records), the ARPA text formatted on a thread of
    its own; the bytes are the Python reference's."""
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    from cad.train.pipeline import train_lm

    rng = random.Random(17)
    text = tmp_path / "corpus.txt"
    text.write_text("".join(" ".join(str(int(rng.paretovariate(0.3))) for _ in range(rng.randint(6, 14))) + "\n"
                            for _ in range(9000)), encoding="utf-8")
    train_lm(text, tmp_path / "n.arpa", 5, engine="native")
    arpa = (tmp_path / "n.arpa").read_text(encoding="utf-8")
    assert int(arpa.split("ngram 5=")[1].split()[0]) > 1 << 16
    assert int(arpa.split("ngram 1=")[1].split()[0]) > 1 << 12         # words of 13 bits and more: 4 to a prefix
    train_lm(text, tmp_path / "p.arpa", 5, engine="python")
    assert (tmp_path / "n.arpa").read_bytes() == (tmp_path / "p.arpa").read_bytes()
    # sorts shared by two threads or done by one, in memory or in runs of tens of thousands of records
    # (sorted by two threads as well), the same bytes
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    for threads, memory in ((1, None), (2, None), (1, 4 << 20), (2, 4 << 20)):
        train_lm(text, tmp_path / "t.arpa", 5, engine="native", memory=memory, temp_dir=tmp, threads=threads)
        assert (tmp_path / "t.arpa").read_bytes() == (tmp_path / "p.arpa").read_bytes(), (threads, memory)
        assert list(tmp.iterdir()) == []
    # a plain file is written by the formatting threads; a gzip file through Python, in order as well
    train_lm(text, tmp_path / "t.arpa.gz", 5, engine="native", threads=2)
    assert gzip.decompress((tmp_path / "t.arpa.gz").read_bytes()) == (tmp_path / "p.arpa").read_bytes()


def test_native_estimate_names_an_output_it_cannot_write(tmp_path):
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    from cad.lm.native import estimate_to_arpa

    sents = [["a", "b", str(k % 50)] for k in range(2000)]
    with pytest.raises(CadError, match="/dev/full.*cannot write: No space left on device"):
        estimate_to_arpa(iter(sents), 3, "/dev/full", temp_dir=tmp_path)


def test_native_file_reader_splits_as_str_split(tmp_path):
    """cad lm's native engine reads the file itself: its lines split at every character that
    str.isspace() calls whitespace (ASCII and Unicode), blank and whitespace-only lines skipped,
    CRLF and a last line without newline, gzip, and chunk boundaries; the Python reference's bytes."""
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    from cad.lm import native as lm_native
    from cad.train.pipeline import train_lm

    spaces = [chr(c) for c in range(0x3001) if chr(c).isspace() and chr(c) != "\n"]
    assert len(spaces) == 28
    rng = random.Random(29)
    words = ["le", "chat", "é", "x\u00ad", "ß", "日本", "a-b", "\u2060", "\u180e", "\u200b"]   # no space among them
    lines = []
    for k in range(3000):
        toks = [rng.choice(words) for _ in range(rng.randint(0, 6))]
        line = "".join(rng.choice(spaces) * rng.randint(1, 2) + t for t in toks) + rng.choice(["", " ", "\r"])
        lines.append(line if k % 50 else rng.choice(spaces))            # some lines only whitespace
    body = "\n".join(lines)                                               # the last line has no newline
    for name, write in (("t.txt", lambda p: p.write_bytes(body.encode("utf-8"))),
                        ("t.txt.gz", lambda p: p.write_bytes(gzip.compress(body.encode("utf-8"))))):
        text = tmp_path / name
        write(text)
        train_lm(text, tmp_path / "p.arpa", 3, engine="python")
        for chunk in (1 << 20, 64):                                        # many chunk boundaries
            lm_native.CHUNK_BYTES = chunk
            try:
                train_lm(text, tmp_path / "n.arpa", 3, engine="native")
            finally:
                lm_native.CHUNK_BYTES = 1 << 20
            assert (tmp_path / "n.arpa").read_bytes() == (tmp_path / "p.arpa").read_bytes()


def test_native_file_reader_names_the_bad_line(tmp_path):
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    from cad.lm import native as lm_native
    from cad.train.pipeline import train_lm

    text = tmp_path / "bad.txt"
    text.write_bytes(b"a b\n" * 300 + b"c \xff d\n" + b"e f\n")
    lm_native.CHUNK_BYTES = 100
    try:
        with pytest.raises(CadError, match=r"bad.txt.*301.*invalid UTF-8 at byte 2"):
            train_lm(text, tmp_path / "n.arpa", 3, engine="native")
    finally:
        lm_native.CHUNK_BYTES = 1 << 20
    assert not (tmp_path / "n.arpa").exists()


# -- the native engine in a memory budget: sorted runs on disk, the same bytes -------------------

def _native(tmp_path, sentences, order, name, **kw):
    from cad.lm.native import estimate_to_arpa

    files = estimate_to_arpa(iter(sentences), order, tmp_path / name, **kw)
    return (tmp_path / name).read_bytes(), files


@pytest.mark.parametrize("order", [1, 2, 3, 4, 5])
def test_native_spilling_is_byte_identical_on_the_hand_corpus(tmp_path, order):
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    in_memory, files = _native(tmp_path, CORPUS, order, "mem.arpa")
    assert files == 0
    write_arpa(estimate(CORPUS, order), tmp_path / "python.arpa")
    assert in_memory == (tmp_path / "python.arpa").read_bytes()
    # 1 byte: every record spills as a run of its own (past the merge fan-in of 64 runs, so merged
    # in two levels); 200 bytes: runs of a few records, some buffers staying in memory
    for memory in (1, 200):
        spilled, files = _native(tmp_path, CORPUS, order, f"spill{memory}.arpa", memory=memory, temp_dir=tmp)
        assert spilled == in_memory, memory
        assert files > (50 if memory == 1 else 3), (memory, files)
        assert list(tmp.iterdir()) == []


def test_native_spilling_random_unicode_corpora(tmp_path):
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    words = ["a", "b", "é", "É", "z", "Z", "日本", "😀", "ab", "a-b", "<unk>", "l'", "ça", "\u00e9t\u00e9"]
    rng = random.Random(23)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    spilled_with_runs_of_several = 0
    for trial in range(15):
        # a vocabulary that grows between the spills of the counting pass (their order is by the
        # words seen so far) with words sorting before and after the earlier ones
        vocab = words + [rng.choice(["", "A", "é", "~"]) + str(i) for i in range(rng.randint(0, 40))]
        sents = [[rng.choice(vocab[:max(3, len(vocab) * (k + 1) // 80)]) for _ in range(rng.randint(1, 9))]
                 for k in range(rng.randint(1, 80))]
        order = trial % 5 + 1
        write_arpa(estimate(sents, order), tmp_path / "python.arpa")
        reference = (tmp_path / "python.arpa").read_bytes()
        assert _native(tmp_path, sents, order, "mem.arpa")[0] == reference, (trial, order)
        for memory in (1, rng.randint(500, 5000)):
            spilled, files = _native(tmp_path, sents, order, "spill.arpa", memory=memory, temp_dir=tmp)
            assert spilled == reference, (trial, order, memory)
            assert list(tmp.iterdir()) == []
            assert files > 0 or memory > 1
            spilled_with_runs_of_several += memory > 1 and files > 0
    assert spilled_with_runs_of_several > 5


def test_native_spilling_cleans_up_after_failures(tmp_path, monkeypatch):
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    import contextlib

    from cad.lm import native as native_module
    from cad.lm.native import estimate_to_arpa

    class FailingOutput:
        def write(self, data: bytes) -> None:
            raise OSError("disk full")

    monkeypatch.setattr(native_module, "atomic_output", lambda *a, **k: contextlib.nullcontext(FailingOutput()))

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    sents = CORPUS * 3
    # failures after runs were spilled: in counting (<s> in the corpus), between the passes (no
    # valid discounts), in the ARPA write (its output fails, an exception through the C++ code)
    with pytest.raises(CadError, match="<s>"):
        estimate_to_arpa(iter(sents + [["a", "<s>"]]), 3, tmp_path / "x.arpa", memory=1, temp_dir=tmp)
    assert list(tmp.iterdir()) == []
    with pytest.raises(CadError, match="corpus too small"):
        estimate_to_arpa(iter([["a", "b"]] * 50), 2, tmp_path / "x.arpa", discount_fallback=False, memory=1,
                         temp_dir=tmp)
    assert list(tmp.iterdir()) == []
    with pytest.raises(OSError, match="disk full"):
        estimate_to_arpa(iter(sents), 3, tmp_path / "x.arpa", memory=1, temp_dir=tmp)
    assert list(tmp.iterdir()) == [] and not (tmp_path / "x.arpa").exists()
    with pytest.raises(CadError, match="temporary directory .*nowhere"):
        estimate_to_arpa(iter(sents), 3, tmp_path / "x.arpa", temp_dir=tmp_path / "nowhere")
    with pytest.raises(CadError, match="must be positive"):
        estimate_to_arpa(iter(sents), 3, tmp_path / "x.arpa", memory=0)


def test_native_spilling_reports_a_failing_temporary_file(tmp_path):
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    import subprocess
    import sys
    import textwrap

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    # a file size limit (writes past it fail with EFBIG) stands in for a full disk, in a child
    # process so that pytest's own files are not limited
    script = textwrap.dedent(f"""
        import random, resource, signal
        from cad.core.errors import CadError
        from cad.lm.native import estimate_to_arpa
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (16384, resource.RLIM_INFINITY))
        rng = random.Random(5)
        sents = [[str(rng.randrange(3000)) for _ in range(10)] for _ in range(3000)]
        try:
            estimate_to_arpa(iter(sents), 3, {str(tmp_path / "x.arpa")!r}, memory=200_000, temp_dir={str(tmp)!r})
        except CadError as exc:
            print("CadError:", exc)
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "CadError: language model estimation: cannot write the temporary file" in r.stdout, r.stdout
    assert "File too large" in r.stdout and str(tmp) in r.stdout
    assert list(tmp.iterdir()) == [] and not (tmp_path / "x.arpa").exists()


@pytest.mark.parametrize("text,size", [("500M", 500 << 20), ("2G", 2 << 30), ("1.5g", 3 << 29), ("1048576", 1 << 20),
                                       ("512MiB", 512 << 20), ("64mb", 64 << 20), (" 1T ", 1 << 40),
                                       ("2048K", 2 << 20), ("3000000B", 3_000_000)])
def test_parse_memory(text, size):
    from cad.lm.native import parse_memory

    assert parse_memory(text) == size


@pytest.mark.parametrize("text", ["", "abc", "-5M", "5X", "1.2.3G", "M", "5 M B", "0", "500", "512K"])
def test_parse_memory_refuses_bad_sizes(text):
    from cad.lm.native import parse_memory

    with pytest.raises(CadError, match="invalid memory size|give at least 1M"):
        parse_memory(text)


def test_cad_lm_memory_and_temp_dir_options(tmp_path, capsys):
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    from cad.cli import build_parser, main

    text = tmp_path / "t.txt"
    rng = random.Random(3)
    text.write_text("".join(" ".join(str(int(rng.paretovariate(1))) for _ in range(12)) + "\n" for _ in range(8000)),
                    encoding="utf-8")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    assert main(["-q", "lm", "--text", str(text), "--order", "4", "--out", str(tmp_path / "a.arpa")]) == 0
    assert main(["-q", "lm", "--text", str(text), "--order", "4", "--out", str(tmp_path / "b.arpa"),
                 "--memory", "1M", "--temp-dir", str(tmp)]) == 0
    assert (tmp_path / "a.arpa").read_bytes() == (tmp_path / "b.arpa").read_bytes()
    assert list(tmp.iterdir()) == []
    assert build_parser().parse_args(["lm", "--text", "t", "--out", "o"]).memory == 1 << 30
    with pytest.raises(SystemExit) as exit_:
        main(["lm", "--text", str(text), "--out", str(tmp_path / "c.arpa"), "--memory", "lots"])
    assert exit_.value.code == 2
    assert "argument --memory: invalid memory size 'lots'" in capsys.readouterr().err
    assert main(["lm", "--text", str(text), "--out", str(tmp_path / "c.arpa"), "--temp-dir",
                 str(tmp_path / "none")]) == 1
    assert "temporary directory" in capsys.readouterr().err
    help_text = " ".join(build_parser()._subparsers._group_actions[0].choices["lm"].format_help().split())
    assert "--memory SIZE" in help_text and "(default: 1G)" in help_text and "--temp-dir DIR" in help_text


def test_native_number_format_is_printf_g9():
    """The ARPA writer's own %.9g (std::to_chars was most of the formatting thread's time) against
    Python's f"{x:.9g}": random doubles of every magnitude, the log10 range of an ARPA file, exact
    ties of nine digits (rounded half to even on the binary value), and powers of ten."""
    if not native.available():
        pytest.skip("cad.lm._kn is not built")
    import struct

    from cad.lm import _kn

    rng = random.Random(5)
    xs = [0.0, -0.0, 1.0, -99.0, 1e-5, 9.999999995e-6, 1e9, 999999999.5, 0.30103, math.inf, -math.inf]
    for _ in range(200_000):
        xs.append(struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0])
        xs.append(-rng.uniform(0, 9) * 10 ** rng.randint(-6, 1))
        xs.append(float(f"{rng.randrange(10 ** 8, 10 ** 9)}5e{rng.randint(-15, 0)}"))    # a tie, or nearly
        xs.append(10.0 ** rng.randint(-6, 9) * (1 + rng.choice([-1, 1]) * rng.random() * 1e-9))
    bad = [x for x in xs if not math.isnan(x) and _kn.format_g9(x) != f"{x:.9g}"]
    assert not bad, bad[:5]
