import gzip

import pytest

from cad.train.lexical import read_lexical_table, write_lexical_tables
from cad.train.phrase_scoring import build_phrase_tables, lexical_weight, native_available

from conftest import write


@pytest.fixture(params=["native", "python"])
def engine(request):
    if request.param == "native" and not native_available():
        pytest.skip("cad.train._phrases is not built")
    return request.param

SRC = "a b\na c\na\n"
TGT = "x y\nx z\ny\n"
ALIGN = "0-0 1-1\n0-0 1-1\n0-0\n"


@pytest.fixture
def corpus(tmp_path):
    return (write(tmp_path / "c.src", SRC), write(tmp_path / "c.tgt", TGT), write(tmp_path / "c.al", ALIGN))


def test_lexical_tables_by_hand(tmp_path, corpus):
    write_lexical_tables(*corpus, str(tmp_path / "lex"))
    f2e = (tmp_path / "lex.f2e").read_text().splitlines()
    # w(e|f) = c(f,e)/c(f): a is aligned to x twice and to y once
    assert "x a 0.6666667" in f2e and "y a 0.3333333" in f2e and "y b 1.0000000" in f2e
    e2f = (tmp_path / "lex.e2f").read_text().splitlines()
    assert "a y 0.5000000" in e2f and "b y 0.5000000" in e2f and "a x 1.0000000" in e2f


def test_null_for_unaligned_words(tmp_path):
    s = write(tmp_path / "s", "a b\n")
    t = write(tmp_path / "t", "x\n")
    al = write(tmp_path / "al", "0-0\n")
    write_lexical_tables(s, t, al, str(tmp_path / "lex"))
    assert "NULL b 1.0000000" in (tmp_path / "lex.f2e").read_text()   # w(NULL|b)
    assert "b NULL 1.0000000" in (tmp_path / "lex.e2f").read_text()   # w(b|NULL)
    table = read_lexical_table(tmp_path / "lex.e2f")
    # unaligned source word b costs w(b|NULL) in lex(f|e)
    assert lexical_weight(["x"], ["a", "b"], [(0, 0)], table) == pytest.approx(1.0 * 1.0)


@pytest.mark.parametrize("max_items", [1_000_000, 2])
def test_phrase_and_reordering_tables_by_hand(tmp_path, corpus, max_items, engine):
    write_lexical_tables(*corpus, str(tmp_path / "lex"))
    pt, ro = tmp_path / "pt.gz", tmp_path / "ro.gz"
    stats = build_phrase_tables(*corpus, str(tmp_path / "lex"), str(pt), str(ro), max_items=max_items,
                                tmpdir=str(tmp_path), engine=engine)
    lines = gzip.open(pt, "rt", encoding="utf-8").read().splitlines()
    assert lines == [
        "a b ||| x y ||| 1 0.5 1 0.666667 ||| 0-0 1-1 ||| 1 1 1 ||| |||",
        "a c ||| x z ||| 1 1 1 0.666667 ||| 0-0 1-1 ||| 1 1 1 ||| |||",  # w(a|x) w(c|z) = 1
        "a ||| x ||| 1 1 0.666667 0.666667 ||| 0-0 ||| 2 3 2 ||| |||",
        "a ||| y ||| 0.5 0.5 0.333333 0.333333 ||| 0-0 ||| 2 3 1 ||| |||",
        "b ||| y ||| 0.5 0.5 1 1 ||| 0-0 ||| 2 1 1 ||| |||",
        "c ||| z ||| 1 1 1 1 ||| 0-0 ||| 1 1 1 ||| |||",
    ]
    assert stats.phrase_pairs == 6 and stats.source_phrases == 5
    reo = gzip.open(ro, "rt", encoding="utf-8").read().splitlines()
    # "a ||| x" twice monotone on both sides: (2 + 0.5) / (2 + 1.5)
    assert reo[2] == "a ||| x ||| 0.714286 0.142857 0.142857 0.714286 0.142857 0.142857 "
    # "b ||| y" after a monotone "a ||| x", followed by the sentence end
    assert reo[4] == "b ||| y ||| 0.600000 0.200000 0.200000 0.600000 0.200000 0.200000 "
    assert not list(tmp_path.glob("cad-sort-*")) and not list(tmp_path.glob("cad-phrases-*")), \
        "temporary sort runs must be removed"


def test_phrase_alignment_printed_in_target_order(tmp_path, engine):
    s = write(tmp_path / "s", "a b\n")
    t = write(tmp_path / "t", "y x\n")
    al = write(tmp_path / "al", "0-1 1-0\n")
    write_lexical_tables(s, t, al, str(tmp_path / "lex"))
    build_phrase_tables(s, t, al, str(tmp_path / "lex"), str(tmp_path / "pt.gz"), None, engine=engine)
    lines = gzip.open(tmp_path / "pt.gz", "rt").read().splitlines()
    assert "a b ||| y x ||| 1 1 1 1 ||| 1-0 0-1 ||| 1 1 1 ||| |||" in lines


def test_alignment_ties_follow_moses_score():
    from collections import Counter

    from cad.train.phrase_scoring import _best

    # won 't make it ||| n' y arrivera pas, two alignments seen once each: Moses's score keeps the
    # larger vector of source positions per target word: y (1) <- {2} beats {1}
    tie = Counter({"0-0 1-1 3-3": 1, "0-0 2-1 3-3": 1})
    assert _best(tie, 4) == "0-0 2-1 3-3"
    # an empty set is the smallest: y aligned beats y unaligned, whatever the strings say
    assert _best(Counter({"0-0 2-2 3-3": 2, "0-0 3-1 2-2": 2}), 4) == "0-0 3-1 2-2"
    # the count still comes first
    assert _best(Counter({"0-0 1-1 3-3": 3, "0-0 2-1 3-3": 1}), 4) == "0-0 1-1 3-3"


def test_tied_alignments_choose_the_lexical_weight(tmp_path, engine):
    # "a b" -> "y z" twice, aligned 0-0 1-1 in one sentence and 0-1 1-0 in the other: the direct
    # lexical weight and the printed alignment come from the larger vector, y <- {1}: 1-0 0-1
    s = write(tmp_path / "s", "a b\na b\n")
    t = write(tmp_path / "t", "y z\ny z\n")
    al = write(tmp_path / "al", "0-0 1-1\n0-1 1-0\n")
    write_lexical_tables(s, t, al, str(tmp_path / "lex"))
    build_phrase_tables(s, t, al, str(tmp_path / "lex"), str(tmp_path / "pt.gz"), None, engine=engine)
    line = next(l for l in gzip.open(tmp_path / "pt.gz", "rt").read().splitlines() if l.startswith("a b ||| y z |||"))
    assert line.split(" ||| ")[3] == "1-0 0-1"



def _tables(tmp_path, s, t, al, engine, max_items, max_len=7):
    out = tmp_path / engine
    out.mkdir(exist_ok=True)
    stats = build_phrase_tables(s, t, al, str(tmp_path / "lex"), str(out / "pt.gz"), str(out / "ro.gz"),
                                max_len=max_len, max_items=max_items, tmpdir=str(out), engine=engine)
    # the tables' text: the gzip bytes also depend on the blocks they were written in
    return stats, gzip.decompress((out / "pt.gz").read_bytes()), gzip.decompress((out / "ro.gz").read_bytes())


@pytest.mark.parametrize("seed", range(6))
def test_engines_write_the_same_tables_on_random_corpora(tmp_path, seed):
    """The compiled extractor against the Python reference: random sentences, alignments with
    unaligned and many-to-many words, accented and astral words, sort runs spilled or not."""
    if not native_available():
        pytest.skip("cad.train._phrases is not built")
    import random

    rng = random.Random(seed)
    vocab = ["a", "b", "c", "é", "É", "z", "日本", "😀", "l'", "ça", "NULL", "a-b"]
    src, tgt, al = [], [], []
    for _ in range(rng.randint(5, 40)):
        ns, nt = rng.randint(1, 9), rng.randint(1, 9)
        src.append(" ".join(rng.choice(vocab) for _ in range(ns)))
        tgt.append(" ".join(rng.choice(vocab) for _ in range(nt)))
        pts = sorted({(rng.randrange(ns), rng.randrange(nt)) for _ in range(rng.randint(1, ns + nt))})
        al.append(" ".join(f"{i}-{j}" for i, j in pts))
    s = write(tmp_path / "s", "\n".join(src) + "\n")
    t = write(tmp_path / "t", "\n".join(tgt) + "\n")
    a = write(tmp_path / "al", "\n".join(al) + "\n")
    write_lexical_tables(s, t, a, str(tmp_path / "lex"))
    max_items, max_len = rng.choice([3, 50, 1_000_000]), rng.choice([3, 7])
    native = _tables(tmp_path, s, t, a, "native", max_items, max_len)
    python = _tables(tmp_path, s, t, a, "python", max_items, max_len)
    assert native == python


def test_engines_write_the_same_tables_on_the_shared_corpus(tmp_path, shared_data):
    """400 pairs of the shared corpus, aligned by a crude diagonal (the extractor does not care
    where an alignment comes from), with sort runs spilled to disk."""
    if not native_available():
        pytest.skip("cad.train._phrases is not built")
    src, tgt, al = [], [], []
    with open(shared_data / "en-fr" / "train.en", encoding="utf-8") as fe, \
            open(shared_data / "en-fr" / "train.fr", encoding="utf-8") as ff:
        for _, e, f in zip(range(400), fe, ff):
            e, f = e.split(), f.split()
            if not e or not f:
                continue
            src.append(" ".join(e))
            tgt.append(" ".join(f))
            al.append(" ".join(f"{i}-{min(len(f) - 1, i * len(f) // len(e))}" for i in range(len(e)) if i % 4 != 3))
    s = write(tmp_path / "s", "\n".join(src) + "\n")
    t = write(tmp_path / "t", "\n".join(tgt) + "\n")
    a = write(tmp_path / "al", "\n".join(al) + "\n")
    write_lexical_tables(s, t, a, str(tmp_path / "lex"))
    native = _tables(tmp_path, s, t, a, "native", 5_000)
    python = _tables(tmp_path, s, t, a, "python", 5_000)
    assert native[0] == python[0] and native[0].phrase_pairs > 10_000
    assert native[1:] == python[1:]


def test_shard_runs_are_deflated_and_a_damaged_one_is_named(tmp_path):
    """The compiled extractor's sort runs (a shard's, kept until the tables are written) are stored
    as deflated blocks behind their raw and deflated lengths; a damaged run is an error naming it,
    not a table cut short."""
    import struct
    import zlib

    from cad.core.errors import CadError
    from cad.core.shards import Parallel, ShardStore
    from cad.train.extract_shards import extract_in_shards

    if not native_available():
        pytest.skip("cad.train._phrases is not built")
    corpus = (write(tmp_path / "c.src", SRC * 100), write(tmp_path / "c.tgt", TGT * 100),
              write(tmp_path / "c.al", ALIGN * 100))
    write_lexical_tables(*corpus, str(tmp_path / "lex"))
    pt, ro = tmp_path / "pt.gz", tmp_path / "ro.gz"
    parallel = Parallel(1, None, 150)
    runs = extract_in_shards(*corpus, ShardStore.beside(pt), 7, "native", 1_000_000, parallel)
    direct = runs.runs[0][0]
    data, raw, blocks = direct.read_bytes(), b"", 0
    while data:
        n, packed = struct.unpack("<II", data[:8])
        block = zlib.decompress(data[8:8 + packed])
        assert len(block) == n
        raw, data, blocks = raw + block, data[8 + packed:], blocks + 1
    assert blocks >= 1 and len(raw) > direct.stat().st_size       # front-coded records, deflated
    whole = direct.read_bytes()
    direct.write_bytes(whole[:-3])
    with pytest.raises(CadError, match=r"truncated or corrupt sort run .*direct"):
        build_phrase_tables(*corpus, str(tmp_path / "lex"), str(pt), str(ro), parallel=parallel)
    assert not pt.exists() and not ro.exists()
    # a header claiming a block of gigabytes is refused before anything is allocated
    direct.write_bytes(struct.pack("<II", 0xFFFFFFF0, 100) + whole[8:])
    with pytest.raises(CadError, match=r"truncated or corrupt sort run .*direct"):
        build_phrase_tables(*corpus, str(tmp_path / "lex"), str(pt), str(ro), parallel=parallel)
    # the run whole again: the tables, as without shards
    direct.write_bytes(whole)
    build_phrase_tables(*corpus, str(tmp_path / "lex"), str(pt), str(ro), parallel=parallel)
    build_phrase_tables(*corpus, str(tmp_path / "lex"), str(tmp_path / "one.gz"), str(tmp_path / "one-ro.gz"))
    assert gzip.open(pt).read() == gzip.open(tmp_path / "one.gz").read()
