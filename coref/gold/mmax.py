"""ParCorFull's MMAX2 format: Basedata/<doc>_words.xml and Markables/<doc>_{coref,sentence}_level.xml.

Spans are `word_3`, `word_3..word_7`, or discontinuous lists of those joined by commas
(`word_1..word_5,word_9`, which ParCorFull 2.0 uses); every listed word belongs to the mention.
A `coref_class` of `empty` (or none) marks a mention outside any chain.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from cad.core.errors import CadError
from coref.gold.model import GoldDocument, GoldMention
from cad.core.textio import is_uint

_PART = re.compile(r"^word_(\d+)(?:\.\.word_(\d+))?$")


def parse_span(span: str, index: dict[int, int], path: str) -> list[int]:
    out: list[int] = []
    for part in span.split(","):
        m = _PART.match(part.strip())
        if not m:
            raise CadError(f"malformed span {span!r}", path)
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) else a
        if a not in index or b not in index or index[b] < index[a]:
            raise CadError(f"span {span!r} refers to unknown words", path)
        out.extend(range(index[a], index[b] + 1))
    return sorted(set(out))


def _parse_xml(path: Path) -> ET.Element:
    try:
        return ET.parse(path).getroot()
    except ET.ParseError as exc:
        line = exc.position[0] if hasattr(exc, "position") else None
        raise CadError(f"malformed XML: {exc}", str(path), line) from None
    except FileNotFoundError:
        raise CadError("file not found", str(path)) from None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def read_mmax(directory: str | os.PathLike, name: str) -> GoldDocument:
    """Read document `name` (e.g. `000_779`) from an MMAX2 directory."""
    d = Path(directory)
    words_path = d / "Basedata" / f"{name}_words.xml"
    words = _parse_xml(words_path)
    tokens: list[str] = []
    index: dict[int, int] = {}
    for w in words:
        if _local(w.tag) != "word":
            continue
        wid = w.get("id", "")
        if not wid.startswith("word_") or not is_uint(wid[5:]):
            raise CadError(f"word without a word_N id: {wid!r}", str(words_path))
        index[int(wid[5:])] = len(tokens)
        tokens.append((w.text or "").strip())
    sent_path = d / "Markables" / f"{name}_sentence_level.xml"
    starts = []
    for m in _parse_xml(sent_path):
        if _local(m.tag) == "markable" and m.get("span"):
            starts.append(parse_span(m.get("span"), index, str(sent_path))[0])
    starts = sorted(set(starts)) or [0]
    if starts[0] != 0:
        starts.insert(0, 0)
    coref_path = d / "Markables" / f"{name}_coref_level.xml"
    mentions = []
    for m in _parse_xml(coref_path):
        if _local(m.tag) != "markable" or not m.get("span"):
            continue
        attrs = {k: v for k, v in m.attrib.items() if k not in ("id", "span")}
        chain = attrs.get("coref_class")
        if chain in (None, "", "empty"):
            chain = None
        mentions.append(GoldMention(m.get("id", ""), parse_span(m.get("span"), index, str(coref_path)), chain, attrs))
    mentions.sort(key=lambda m: m.tokens[0])
    doc_id = name.split("_", 1)[1] if "_" in name else name
    return GoldDocument(doc_id, tokens, starts, mentions)


def list_mmax(directory: str | os.PathLike) -> list[str]:
    return sorted(p.stem for p in Path(directory).glob("*.mmax"))
