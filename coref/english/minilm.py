"""all-MiniLM-L6-v2, a small pretrained English encoder, run on numpy: its WordPiece tokenizer and its
six BERT layers, whose attention maps the coreference ranker reads (coref.english.attention).

The model (`cad.downloads.minilm_files` fetches its three files) is a BERT of 6 layers, 12 heads of 32
dimensions and 384 units, MiniLM distilled from a larger model through its self-attention, then
tuned by sentence-transformers on sentence pairs. Its own code needs torch and transformers; this
is the same computation (BertModel's, eager attention, no dropout), checked against transformers'
BertModel on the same weights (hidden states and attention probabilities within 2e-6;
tests/test_minilm.py holds reference values from it).

The tokenizer is BERT's uncased one: lower-case, accents stripped, punctuation split off, then
greedy longest-match WordPiece over `vocab.txt`; cad gives it tokens already split, one at a time,
so that every token knows its pieces.
"""

from __future__ import annotations

import json
import os
import struct
import unicodedata
from pathlib import Path

import numpy as np

from cad.core.errors import CadError

LAYERS, HEADS, WIDTH, INNER, POSITIONS = 6, 12, 384, 1536, 512
HEAD_DIM = WIDTH // HEADS
_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def read_safetensors(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """The tensors of a .safetensors file: an 8-byte little-endian header length, a JSON header
    naming each tensor's dtype, shape and byte range, then the bytes."""
    path = str(path)
    try:
        with open(path, "rb") as f:
            raw = f.read(8)
            if len(raw) != 8:
                raise ValueError("shorter than its header length")
            n = struct.unpack("<Q", raw)[0]
            header = json.loads(f.read(n).decode("utf-8"))
            data = f.read()
        out = {}
        for name, v in header.items():
            if name == "__metadata__":
                continue
            a, b = v["data_offsets"]
            dtype = _DTYPES[v["dtype"]]
            if not 0 <= a <= b <= len(data):
                raise ValueError(f"{name}'s bytes {a}-{b} lie outside the file's {len(data)}")
            arr = np.frombuffer(data, dtype=dtype, count=(b - a) // np.dtype(dtype).itemsize, offset=a)
            out[name] = arr.reshape(v["shape"])
        return out
    except OSError as exc:
        raise CadError(f"cannot read the model weights ({exc.strerror or exc})", path) from None
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError, struct.error) as exc:
        raise CadError(f"not a safetensors file ({type(exc).__name__}: {exc})", path) from None


def _is_cjk(cp: int) -> bool:
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F
            or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF or 0xF900 <= cp <= 0xFAFF
            or 0x2F800 <= cp <= 0x2FA1F)


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    # BERT counts every non-alphanumeric ASCII character as punctuation, and Unicode's P* classes
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


class WordPiece:
    """BERT's uncased tokenizer over one vocabulary file (one piece per line, its id the line number)."""

    def __init__(self, vocab: str | os.PathLike):
        self.ids: dict[str, int] = {}
        try:
            with open(vocab, encoding="utf-8") as f:
                for i, line in enumerate(f):
                    self.ids[line.rstrip("\n")] = i
        except (OSError, UnicodeDecodeError) as exc:
            raise CadError(f"cannot read the WordPiece vocabulary ({exc})", str(vocab)) from None
        for special in ("[UNK]", "[CLS]", "[SEP]"):
            if special not in self.ids:
                raise CadError(f"not a BERT vocabulary: no {special}", str(vocab))
        self.unk, self.cls, self.sep = self.ids["[UNK]"], self.ids["[CLS]"], self.ids["[SEP]"]
        self._cache: dict[str, list[int]] = {}

    @staticmethod
    def words(text: str) -> list[str]:
        """BERT's basic tokenization: control characters dropped, lower-cased, accents stripped, split at
        spaces and punctuation, each CJK ideograph a word of its own."""
        text = unicodedata.normalize("NFD", text.lower())
        text = "".join(c for c in text if unicodedata.category(c) != "Mn"
                       and not (c in "\x00\ufffd" or unicodedata.category(c) in ("Cc", "Cf") and not c.isspace()))
        out, cur = [], ""
        for c in text:
            if c.isspace() or _is_punctuation(c) or _is_cjk(ord(c)):
                if cur:
                    out.append(cur)
                cur = ""
                if not c.isspace():
                    out.append(c)
            else:
                cur += c
        if cur:
            out.append(cur)
        return out

    def _word(self, w: str) -> list[int]:
        if len(w) > 100:
            return [self.unk]
        pieces, start = [], 0
        while start < len(w):
            end = len(w)
            while end > start:
                piece = w[start:end] if start == 0 else "##" + w[start:end]
                if piece in self.ids:
                    pieces.append(self.ids[piece])
                    break
                end -= 1
            else:
                return [self.unk]
            start = end
        return pieces

    def token(self, token: str) -> list[int]:
        """The piece ids of one token ([UNK] for a token that has none, as a lone control character)."""
        got = self._cache.get(token)
        if got is None:
            got = [i for w in self.words(token) for i in self._word(w)] or [self.unk]
            self._cache[token] = got
        return got


def _layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + np.float32(1e-12)) * g + b


def _gelu(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf    # BERT's exact GELU, not the tanh approximation

    return np.float32(0.5) * x * (np.float32(1.0) + erf(x * np.float32(2 ** -0.5)))


class MiniLM:
    """The encoder of one model folder (config.json, model.safetensors, vocab.txt)."""

    def __init__(self, folder: str | os.PathLike):
        folder = Path(folder)
        try:
            cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CadError(f"cannot read the encoder's configuration ({exc})", str(folder / "config.json")) from None
        want = {"hidden_size": WIDTH, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
                "intermediate_size": INNER, "hidden_act": "gelu", "position_embedding_type": "absolute"}
        wrong = {k: cfg.get(k) for k, v in want.items() if cfg.get(k) != v}
        if wrong:
            raise CadError(f"not the MiniLM-L6-H384 encoder cad runs: {wrong}", str(folder / "config.json"))
        w = read_safetensors(folder / "model.safetensors")
        self.tokenizer = WordPiece(folder / "vocab.txt")
        try:
            self.words = w["embeddings.word_embeddings.weight"].astype(np.float32)
            self.positions = w["embeddings.position_embeddings.weight"].astype(np.float32)
            self.type0 = w["embeddings.token_type_embeddings.weight"][0].astype(np.float32)
            self.emb_norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
            self.layers = [self._layer(w, f"encoder.layer.{i}.") for i in range(LAYERS)]
        except KeyError as exc:
            raise CadError(f"the weights lack {exc.args[0]}", str(folder / "model.safetensors")) from None
        if self.words.shape != (len(self.tokenizer.ids), WIDTH):
            raise CadError(f"{self.words.shape[0]} word vectors for {len(self.tokenizer.ids)} vocabulary entries",
                           str(folder))

    @staticmethod
    def _layer(w: dict, p: str) -> tuple:
        def g(name: str) -> np.ndarray:
            return w[p + name].astype(np.float32)
        qkv = np.concatenate([g(f"attention.self.{n}.weight") for n in ("query", "key", "value")], 0).T.copy()
        qkv_b = np.concatenate([g(f"attention.self.{n}.bias") for n in ("query", "key", "value")])
        return (qkv, qkv_b, g("attention.output.dense.weight").T.copy(), g("attention.output.dense.bias"),
                g("attention.output.LayerNorm.weight"), g("attention.output.LayerNorm.bias"),
                g("intermediate.dense.weight").T.copy(), g("intermediate.dense.bias"),
                g("output.dense.weight").T.copy(), g("output.dense.bias"),
                g("output.LayerNorm.weight"), g("output.LayerNorm.bias"))

    @classmethod
    def default(cls) -> "MiniLM":
        from cad.downloads.minilm_files import SPEC

        return cls(SPEC.folder())

    def forward(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The last layer's states [n, 384] and every layer's attention probabilities [6, 12, n, n]
        of one sequence of piece ids (with its [CLS] and [SEP]; one segment, no padding)."""
        n = len(ids)
        if not 0 < n <= POSITIONS:
            raise ValueError(f"a sequence of {n} pieces (1 to {POSITIONS})")
        x = _layer_norm(self.words[ids] + self.positions[:n] + self.type0, *self.emb_norm)
        attention = np.empty((LAYERS, HEADS, n, n), np.float32)
        scale = np.float32(HEAD_DIM ** -0.5)
        for i, (qkv, qkv_b, ow, ob, g1, b1, iw, ib, fw, fb, g2, b2) in enumerate(self.layers):
            h = x @ qkv + qkv_b
            q, k, v = (h[:, j * WIDTH:(j + 1) * WIDTH].reshape(n, HEADS, HEAD_DIM).transpose(1, 0, 2) for j in range(3))
            s = (q @ k.transpose(0, 2, 1)) * scale
            s -= s.max(-1, keepdims=True)
            e = np.exp(s)
            a = e / e.sum(-1, keepdims=True)
            attention[i] = a
            x = _layer_norm((a @ v).transpose(1, 0, 2).reshape(n, WIDTH) @ ow + ob + x, g1, b1)
            x = _layer_norm(_gelu(x @ iw + ib) @ fw + fb + x, g2, b2)
        return x, attention
