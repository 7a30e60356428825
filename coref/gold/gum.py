"""GUM's coreference in its CoNLL form (`../shared/data/coref/gum/conll`, one document a file).

`# begin document NAME` … `# end document`, one token a line: `index TAB token TAB coref`. The
coref column is `_` or mention marks written one after another without a separator: `(type-ID`
opens a mention, `type-ID)` closes it, `(type-ID)` is a one-token mention, and a named mention
carries its identifier after the ID (`(person-2-Bobby_Flay`, closed by `person-2-Bobby_Flay)`).
Mentions with the same ID corefer; `type` is the entity type (person, animal, plant, object,
substance, place, organization, time, event, abstract, quantity). GUM keeps singletons: an
entity with one mention gets no chain (as LitBank's brat reader does), its type stays in `attrs`.

The release has no sentence breaks (its README promises blank lines; the files have none), so
sentences are cut after `.`, `?`, `!` and `…` (with the closing quotes and brackets that follow),
and a run of more than LONGEST tokens at its next `;`, `:` or dash, or at LONGEST tokens.

Each mention's attrs: `etype` (the entity type), `entity` (its ID), `name` where named.

GUM links an extraposed or impersonal *it* to what follows it in its own sentence (*it is important
[to understand …]*, *it seems [that …]*, *it was [six o'clock]*); ParCorFull, the dev talks' annotation,
marks those *pleonastic*, and French says *il* (impersonal) there whatever follows. `read_gum`
therefore marks such an *it* `type=pleonastic` and takes it out of its chain (see `extraposed`); an
*it*/*they* with no mention of its own is non-referential as in every other reader.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from cad.core.errors import CadError
from cad.core.textio import read_lines
from coref.gold.model import GoldDocument, GoldMention

ENTITY_TYPES = ("person", "animal", "plant", "object", "substance", "place", "organization", "time", "event",
                "abstract", "quantity")
_MARK = re.compile(r"(\()?([a-z]+)-(\d+)(?:-([^()]+))?(\))?")
_TERMINAL = {".", "?", "!", "…", "..."}
_CLOSERS = {'"', "”", "’", "'", ")", "]", "»"}
_SOFT_BREAKS = {";", ":", "—", "–", "--"}
# the first word of a clause that an extraposed *it* stands for
CLAUSE_OPENERS = {"to", "that", "whether", "if", "how", "what", "why", "when", "who", "for"}
LONGEST = 60


def parse_marks(field: str) -> list[tuple[bool, bool, str, str, str | None]]:
    """The marks of one coref field as (opens, closes, type, ID, name); ValueError when some of
    the field is not a mark or a mark neither opens nor closes."""
    out = []
    pos = 0
    while pos < len(field):
        m = _MARK.match(field, pos)
        if not m or m.end() == pos:
            raise ValueError(f"malformed coreference field {field!r} at character {pos + 1}")
        opens, etype, eid, name, closes = m.group(1) is not None, m.group(2), m.group(3), m.group(4), m.group(5)
        if not (opens or closes):
            raise ValueError(f"mark {m.group(0)!r} in {field!r} neither opens nor closes")
        out.append((opens, bool(closes), etype, eid, name))
        pos = m.end()
    return out


def split_sentences(tokens: list[str]) -> list[int]:
    """The first token of each sentence (see the module's doc)."""
    starts = [0] if tokens else []
    i, n = 0, len(tokens)
    while i < n:
        length = i - starts[-1] + 1
        end = None
        if tokens[i] in _TERMINAL:
            end = i
            while end + 1 < n and tokens[end + 1] in _CLOSERS | _TERMINAL:
                end += 1
        elif length > LONGEST and tokens[i] in _SOFT_BREAKS or length >= 2 * LONGEST:
            end = i
        if end is not None and end + 1 < n:
            starts.append(end + 1)
        i = (end if end is not None else i) + 1
    return starts


def read_gum(path: str | os.PathLike) -> list[GoldDocument]:
    """The documents of one GUM CoNLL file; errors name the file and line."""
    p = str(path)
    docs: list[GoldDocument] = []
    doc: GoldDocument | None = None
    open_: dict[str, list[tuple[int, int]]] = {}     # ID -> (first token, line) of its open mentions
    spans: list[tuple[str, str, str | None, list[int]]] = []
    for lineno, line in enumerate(read_lines(p), 1):
        if line.startswith("#"):
            if line.startswith("# begin document") or line.startswith("#begin document"):
                if doc is not None:
                    raise CadError("'# begin document' inside an open document", p, lineno)
                name = line.split("document", 1)[1].strip().split(";")[0].strip(" ()")
                doc, open_, spans = GoldDocument(name, [], [], []), {}, []
            elif "end document" in line:
                if doc is None:
                    raise CadError("'# end document' without '# begin document'", p, lineno)
                if open_:
                    eid, started = next(iter(open_.items()))
                    raise CadError(f"mention of entity {eid} opened on line {started[-1][1]} is never closed",
                                   p, lineno)
                docs.append(_finish(doc, spans))
                doc = None
            continue
        if not line.strip():
            continue
        if doc is None:
            raise CadError("token line outside '# begin document'", p, lineno)
        cols = line.split("\t")
        if len(cols) != 3:
            raise CadError(f"expected 3 tab-separated columns (index, token, coref), got {len(cols)}", p, lineno)
        tok = len(doc.tokens)
        doc.tokens.append(cols[1])
        field = cols[2].strip()
        if field in ("", "_"):
            continue
        try:
            marks = parse_marks(field)
        except ValueError as exc:
            raise CadError(str(exc), p, lineno) from None
        for opens, closes, etype, eid, name in marks:
            if opens and closes:
                spans.append((eid, etype, name, [tok]))
            elif opens:
                open_.setdefault(eid, []).append((tok, lineno))
            else:
                started = open_.get(eid)
                if not started:
                    raise CadError(f"closing mark {etype}-{eid}) for a mention that is not open", p, lineno)
                start, _ = started.pop()
                if not started:
                    del open_[eid]
                spans.append((eid, etype, name, list(range(start, tok + 1))))
    if doc is not None:
        raise CadError(f"document {doc.doc_id!r} has no '# end document'", p)
    return docs


def _finish(doc: GoldDocument, spans) -> GoldDocument:
    sizes: dict[str, int] = {}
    for eid, *_ in spans:
        sizes[eid] = sizes.get(eid, 0) + 1
    for k, (eid, etype, name, toks) in enumerate(spans, 1):
        attrs = {"etype": etype, "entity": eid}
        if name:
            attrs["name"] = name
        doc.mentions.append(GoldMention(f"m{k}", toks, eid if sizes[eid] > 1 else None, attrs))
    doc.mentions.sort(key=lambda m: (m.tokens[0], -len(m.tokens)))
    doc.sentence_starts = split_sentences(doc.tokens) or [0]
    for m in extraposed(doc):
        m.attrs["type"] = "pleonastic"
        m.chain = None
    return doc


def extraposed(doc: GoldDocument) -> list[GoldMention]:
    """The *it* mentions with no earlier mention of their entity whose next mention lies in the
    same sentence and is a clause (it opens with one of CLAUSE_OPENERS) or a time (*it was six
    o'clock*)."""
    by_entity: dict[str, list[GoldMention]] = {}
    for m in doc.mentions:
        by_entity.setdefault(m.attrs.get("entity", m.id), []).append(m)
    out = []
    for m in doc.mentions:
        if len(m.tokens) != 1 or doc.tokens[m.tokens[0]].lower() != "it" or m.chain is None:
            continue
        i = m.tokens[0]
        others = by_entity[m.attrs.get("entity", m.id)]
        if any(x.tokens[-1] < i for x in others if x is not m):
            continue
        after = sorted((x for x in others if x.tokens[0] > i), key=lambda x: x.tokens[0])
        if not after or doc.sentence_of(after[0].tokens[0])[0] != doc.sentence_of(i)[0]:
            continue
        if doc.tokens[after[0].tokens[0]].lower() in CLAUSE_OPENERS or m.attrs.get("etype") == "time":
            out.append(m)
    return out


def read_gum_dir(directory: str | os.PathLike) -> list[GoldDocument]:
    """Every document of the `*.conll` files of a folder, in file-name order."""
    files = sorted(Path(directory).glob("*.conll"))
    if not files:
        raise CadError("no GUM CoNLL files", str(directory))
    return [d for f in files for d in read_gum(f)]
