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
