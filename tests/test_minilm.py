"""The MiniLM encoder on numpy: its safetensors reader and WordPiece tokenizer on hand-made files, the
real model against transformers' BertModel, and the ranker's attention features."""

import json
import struct

import numpy as np
import pytest

from cad.core.errors import CadError
from coref.english.minilm import MiniLM, WordPiece, read_safetensors


def _safetensors(path, tensors: dict, header_extra: dict | None = None) -> None:
    header, blob = dict(header_extra or {}), b""
    for name, arr in tensors.items():
        raw = arr.tobytes()
        header[name] = {"dtype": {np.float32: "F32", np.int64: "I64"}[arr.dtype.type], "shape": list(arr.shape),
                        "data_offsets": [len(blob), len(blob) + len(raw)]}
        blob += raw
    h = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(h)) + h + blob)


def test_safetensors_by_hand(tmp_path):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([7, -1], dtype=np.int64)
    _safetensors(tmp_path / "m.safetensors", {"a": a, "b.c": b}, {"__metadata__": {"format": "pt"}})
    got = read_safetensors(tmp_path / "m.safetensors")
    assert sorted(got) == ["a", "b.c"]
    assert got["a"].dtype == np.float32 and (got["a"] == a).all() and (got["b.c"] == b).all()


@pytest.mark.parametrize("damage", ["truncated", "bad json", "unknown dtype"])
def test_a_corrupt_safetensors_file_names_itself(tmp_path, damage):
    path = tmp_path / "m.safetensors"
    _safetensors(path, {"a": np.zeros(4, np.float32)})
    raw = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(raw[:-8])
    elif damage == "bad json":
        path.write_bytes(raw[:8] + b"[" + raw[9:])
    else:
        path.write_bytes(raw.replace(b'"F32"', b'"Q99"'))
    with pytest.raises(CadError) as err:
        read_safetensors(path)
    assert str(path) in str(err.value)


@pytest.fixture
def vocab(tmp_path):
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "cafe", "don", "'", "t", "東", "京", "a"]
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(words) + "\n", encoding="utf-8")
    return WordPiece(path), {w: i for i, w in enumerate(words)}


def test_wordpiece_by_hand(vocab):
    wp, ids = vocab
    # greedy longest match, lower-cased; accents stripped; punctuation split off; CJK one by one
    assert wp.token("Unaffable") == [ids["un"], ids["##aff"], ids["##able"]]
    assert wp.token("Café") == [ids["cafe"]]
    assert wp.token("don't") == [ids["don"], ids["'"], ids["t"]]
    assert wp.token("東京") == [ids["東"], ids["京"]]
    # a word with no full segmentation is one [UNK]; a token that leaves no word is one [UNK] too
    assert wp.token("unaffx") == [ids["[UNK]"]]
    assert wp.token("\x00") == [ids["[UNK]"]]
    assert (wp.cls, wp.sep) == (ids["[CLS]"], ids["[SEP]"])


def test_a_vocabulary_without_its_special_pieces_is_refused(tmp_path):
    (tmp_path / "vocab.txt").write_text("[PAD]\na\n", encoding="utf-8")
    with pytest.raises(CadError, match=r"no \[UNK\]") as err:
        WordPiece(tmp_path / "vocab.txt")
    assert str(tmp_path / "vocab.txt") in str(err.value)


# -- the real model --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def encoder():
    from cad.downloads.minilm_files import SPEC

    folder = SPEC.find()
    if folder is None:
        pytest.skip(f"no MiniLM files in {SPEC.default_folder()}: `make minilm-files` "
                    "(python -m cad.downloads.minilm_files) fetches them")
    return MiniLM(folder)


def test_the_encoder_gives_transformers_values(encoder):
    """Reference values from transformers' BertModel (4.x, eager attention) on the same files:
    "The mouse ran under the table. It was not dead." """
    wp = encoder.tokenizer
    tokens = "The mouse ran under the table . It was not dead .".split()
    ids = [wp.cls] + [i for t in tokens for i in wp.token(t)] + [wp.sep]
    assert ids == [101, 1996, 8000, 2743, 2104, 1996, 2795, 1012, 2009, 2001, 2025, 2757, 1012, 102]
    assert wp.token("Zürich") == [wp.ids["zurich"]]
    hidden, att = encoder.forward(np.array(ids))
    assert hidden.shape == (14, 384) and att.shape == (6, 12, 14, 14)
    assert np.allclose(hidden[0, :4], [0.09243, -0.16927, -0.20466, -0.19889], atol=2e-5)
    assert np.allclose(hidden[8, :4], [0.16362, 0.38859, -0.09097, -0.11195], atol=2e-5)
    # a head that links "it" to "mouse" (layer 4, head 2, counted from 1), not to "table"
    assert att[3, 1, 8, 2] == pytest.approx(0.69661, abs=2e-5)
    assert att[3, 1, 8, 6] == pytest.approx(0.02507, abs=2e-5)
    assert att[5, 11, 8, 2] == pytest.approx(0.45634, abs=2e-5)
    assert np.allclose(att.sum(-1), 1.0, atol=1e-5)


def test_a_sequence_too_long_for_the_positions_is_refused(encoder):
    with pytest.raises(ValueError, match="513 pieces"):
        encoder.forward(np.full(513, encoder.tokenizer.cls))


def test_a_folder_of_another_model_is_refused(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 768, "num_hidden_layers": 12}))
    with pytest.raises(CadError, match="not the MiniLM-L6-H384 encoder") as err:
        MiniLM(tmp_path)
    assert "config.json" in str(err.value)
