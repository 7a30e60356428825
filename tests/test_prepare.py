import os

import pytest

from cad.core.errors import CadError
from cad.corpus.prepare import CleanConfig, prepare_corpus

from conftest import write


def test_tokenize_lowercase_clean_and_remap_documents(tmp_path):
    src = write(tmp_path / "c.en", "Hello, World!\nThe cat|dog sat.\n" + "word " * 100 + "\nIt's fine.\n")
    tgt = write(tmp_path / "c.fr", "Bonjour, le monde !\nLe chat s'assit.\ncourt\nC'est bien.\n")
    docs = write(tmp_path / "c.docs", "0\td1\n2\td2\n")
    st = prepare_corpus(src, tgt, tmp_path / "out", "en", "fr", docs)
    assert (st.read, st.kept, st.dropped_length) == (4, 3, 1)
    en = (tmp_path / "out.en").read_text().splitlines()
    assert en[0] == "hello , world !"
    assert en[1] == "the cat dog sat ."  # the tokenizer splits off "|" and the cleaner deletes it
    assert en[2] == "it 's fine ."
    assert (tmp_path / "out.fr").read_text().splitlines()[2] == "c' est bien ."
    assert (tmp_path / "out.lines").read_text().split() == ["0", "1", "3"]
    assert (tmp_path / "out.docs").read_text() == "0\td1\n2\td2\n"


def test_ratio_filter(tmp_path):
    src = write(tmp_path / "a", "a\n" + " ".join(["w"] * 10) + "\n")
    tgt = write(tmp_path / "b", "b\nx\n")
    st = prepare_corpus(src, tgt, tmp_path / "o", "en", "fr", pretokenized=True, clean=CleanConfig(ratio=9))
    assert (st.kept, st.dropped_ratio) == (1, 1)


@pytest.mark.parametrize("src, tgt, message, bad, line", [
    ("a\nb\nc\n", "x\ny\n", "same number of lines", "tgt", 3),
    ("a\n\nc\n", "x\ny\nz\n", "empty line", "src", 2),
    (b"a\nb\xff\n", "x\ny\n", "invalid UTF-8", "src", 2),
])
def test_bad_input_names_file_and_line_and_leaves_nothing(tmp_path, src, tgt, message, bad, line):
    paths = {"src": write(tmp_path / "c.en", src), "tgt": write(tmp_path / "c.fr", tgt)}
    with pytest.raises(CadError, match=message) as err:
        prepare_corpus(paths["src"], paths["tgt"], tmp_path / "out", "en", "fr", pretokenized=True)
    assert err.value.path == str(paths[bad]) and err.value.line == line
    assert not list(tmp_path.glob("out*")) and not list(tmp_path.glob(".out*"))


def test_missing_file(tmp_path):
    with pytest.raises(CadError, match="file not found"):
        prepare_corpus(tmp_path / "nope.en", tmp_path / "nope.fr", tmp_path / "o", "en", "fr")


def test_allow_empty_drops_pairs(tmp_path):
    st = prepare_corpus(write(tmp_path / "a", "a\n\nc\n"), write(tmp_path / "b", "x\ny\nz\n"), tmp_path / "o",
                        "en", "fr", pretokenized=True, allow_empty=True)
    assert (st.kept, st.dropped_empty) == (2, 1)


RAW_EN = ["Mr. Speaker, it's the bill's second reading.", "", "They said: \"no\"!", "The House rose at 6 p.m.",
          "It is a long (and costly) debate.", "Prayers"] * 7
RAW_FR = ["Monsieur le Président, c'est la deuxième lecture.", "", "Ils ont dit : « non » !",
          "La Chambre s'ajourne à 18 h.", "C'est un long débat (et coûteux).", "Prière"] * 7


@pytest.mark.parametrize("workers", [1, 2])
def test_tokenizing_in_shards_gives_the_same_corpus(tmp_path, workers):
    """Raw text tokenized in shards of 5 lines (by this process or two workers) is the corpus one
    pass writes, byte for byte, with the same documents and line map; the shards are removed."""
    from cad.core.shards import Parallel

    src, tgt = write(tmp_path / "raw.en", "\n".join(RAW_EN) + "\n"), write(tmp_path / "raw.fr", "\n".join(RAW_FR) + "\n")
    docs = write(tmp_path / "raw.docs", "0\td1\n12\td2\n30\td3\n")
    one = prepare_corpus(src, tgt, tmp_path / "one", "en", "fr", docs, lowercase=False, allow_empty=True)
    par = prepare_corpus(src, tgt, tmp_path / "par", "en", "fr", docs, lowercase=False, allow_empty=True,
                         parallel=Parallel(workers=workers, shard_lines=5))
    assert one == par and par.kept == 35 and par.dropped_empty == 7
    for ext in ("en", "fr", "docs", "lines"):
        assert (tmp_path / f"par.{ext}").read_bytes() == (tmp_path / f"one.{ext}").read_bytes()
    assert "it &apos;s" not in (tmp_path / "par.en").read_text() and "it 's" in (tmp_path / "par.en").read_text()
    assert not (tmp_path / "par.en.shards").exists()


def test_tokenizing_in_shards_names_an_empty_line_and_resumes(tmp_path):
    """An empty line fails its shard with the file and line named and writes no corpus; the shards
    before it are kept, and the run after the line is mended reuses them (their parts untouched)."""
    from cad.core.shards import Parallel, ShardStore

    en = [f"It is number {k}." for k in range(20)]
    fr = [f"C'est le numéro {k}." for k in range(20)]
    en[11] = ""
    src, tgt = write(tmp_path / "raw.en", "\n".join(en) + "\n"), write(tmp_path / "raw.fr", "\n".join(fr) + "\n")
    par = Parallel(workers=1, shard_lines=5)
    with pytest.raises(CadError) as err:
        prepare_corpus(src, tgt, tmp_path / "c", "en", "fr", lowercase=False, parallel=par)
    assert err.value.path == str(src) and err.value.line == 12 and "finished shards are kept" in err.value.message
    assert not (tmp_path / "c.en").exists()
    store = ShardStore.beside(tmp_path / "c.en")
    assert sorted(p.name for p in store.directory.glob("*.done")) == ["000000.done", "000001.done"]
    stamps = [store.part(k, "src").stat().st_mtime_ns for k in (0, 1)]
    for k in (0, 1):
        store.part(k, "src").write_text(store.part(k, "src").read_text().replace("It", "REUSED"))
        os.utime(store.part(k, "src"), ns=(stamps[k], stamps[k]))
    en[11] = "It is number 11."
    write(src, "\n".join(en) + "\n")
    prepare_corpus(src, tgt, tmp_path / "c", "en", "fr", lowercase=False, parallel=par)
    lines = (tmp_path / "c.en").read_text().splitlines()
    # the kept shards' (marked) lines came from the store, the rest were tokenized now
    assert lines[0] == "REUSED is number 0 ." and lines[9] == "REUSED is number 9 ." and lines[11] == "It is number 11 ."
    assert len(lines) == 20 and not store.directory.exists()
