"""The `corzu` backend: CorZu's antecedent candidates for Spanish pronouns, read from the shared
records (`corzu.*.jsonl[.gz]`, one JSON object per pronoun; format in shared/data/es-en/nc11/README.md).

CorZu's raw scores become probabilities by seed 003's rule (every candidate scoring at least 1% of
the best, at least two, normalized over those kept: `keep_likely`). Each candidate keeps CorZu's own
features (FreeLing's gender and number; person vs other from its named-entity class and animacy),
which seed 003 appends to the pronoun.

CorZu's `sentence` is a line of the split's text file. A corpus that `cad prepare` cleaned drops
lines; `lines` (its `corpus.lines`: the original line of every kept line) maps records onto the
kept lines, and a pronoun or candidate on a dropped line goes with it.

`read_split` reads a split of News Commentary with its CorZu records, the reference that the
native resolver (coref.spanish.ranker) learns from (coref.spanish.train) and is measured against
(coref.spanish.evaluate): there is no gold Spanish coreference.
"""

from __future__ import annotations

import gzip
import json
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from cad.core.docs import read_docs
from cad.core.errors import CadError
from cad.core.textio import read_lines
from cad.lang.es import corzu_morph
from coref.backends import Backend, BackendOptions
from coref.records import Candidate, PronounResolution, keep_likely

DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "es-en" / "nc11"


def is_human(ne: str | None, animate: str | None) -> bool:
    """Seed 003's human feature (person vs other): a person entity, or a mention CorZu marks animate."""
    return ne == "person" or animate == "ANIM"


def head_word(c: dict) -> str | None:
    words = c.get("text", "").split()
    k = int(c["head"]) - int(c["start"])
    return words[k] if 0 <= k < len(words) else None


def _candidate(c: dict, line_of: dict[int, int], doc_first: int, lexicon=None,
               genders=None) -> Candidate | None:
    if c.get("sentence") is None or c["sentence"] not in line_of:
        return None      # on a line the text (or the cleaning) lost: no span to point at
    m = corzu_morph(c.get("gender"), c.get("number"))
    gender = None if m.gender == "unk" else m.gender
    human = is_human(c.get("ne"), c.get("animate"))
    if lexicon is not None and not human and c.get("ne") in (None, "-"):
        # CorZu marks few common nouns animate (*ministro*, *hermana* pass as other): the learned
        # lexicon decides the nouns it knows; named entities keep CorZu's class
        human = bool(lexicon.is_human(head_word(c) or ""))
    if genders is not None and human and c.get("pos") == "NP":
        # FreeLing guesses a name's gender from its ending (*Lula* feminine): the learned name
        # lexicon decides the names it knows, unknown where its evidence is split
        word = head_word(c) or ""
        if word.lower() in genders.entries:
            gender = genders.gender(word)
    return Candidate(line_of[c["sentence"]] - doc_first, int(c["start"]), int(c["end"]), int(c["head"]),
                     c.get("text", ""), number=None if m.number == "unk" else m.number,
                     human=human, gender=gender)


class CorzuResolver(Backend):
    """`resolve(doc_id, sentences)` for the documents of one split, doc_id the document's index
    in `docs` (as cad's other backends number documents). `lexicon` (cad/lexicons/humanness.py), when
    given, marks as human the common nouns it knows as such; `genders` (cad/lexicons/name_gender.py)
    gives person names the gender it knows for them instead of FreeLing's guess."""

    @classmethod
    def from_options(cls, options: BackendOptions) -> CorzuResolver:
        """`corzu`: CorZu's records for a text of `n_lines` lines split into documents by `docs`
        (`lines`: the kept lines' numbers in the text CorZu read, cad prepare's PREFIX.lines);
        `human_lexicon`, `gender_lexicon`: the learned lexicons' files."""
        corzu, docs, n_lines = options.get("corzu"), options.get("docs"), options.get("n_lines")
        if not corzu or not docs or n_lines is None:
            raise CadError("the corzu backend needs --corzu RECORDS and --docs (the text's document boundaries)")
        from cad.lexicons.humanness import HumanLexicon
        from cad.lexicons.name_gender import GenderLexicon

        human, genders = options.get("human_lexicon"), options.get("gender_lexicon")
        return cls(corzu, docs, n_lines, options.get("lines"), lexicon=HumanLexicon.load(human) if human else None,
                   genders=GenderLexicon.load(genders) if genders else None)

    def __init__(self, records: str | os.PathLike, docs: str | os.PathLike, n_lines: int,
                 lines: str | os.PathLike | None = None, ratio: float = 0.01, minimum: int = 2, lexicon=None,
                 genders=None):
        if lines is not None:
            original = [int(x) for x in read_lines(lines)]
            if len(original) != n_lines:
                raise CadError(f"{len(original)} lines, the text has {n_lines}", str(lines))
            line_of = {o: k for k, o in enumerate(original)}
        else:
            line_of = {k: k for k in range(n_lines)}
        starts = read_docs(docs, n_lines)
        bounds = [d.first_line for d in starts] + [n_lines]
        doc_of_line = {}
        for k in range(len(starts)):
            for i in range(bounds[k], bounds[k + 1]):
                doc_of_line[i] = k
        self.by_doc: dict[str, list[PronounResolution]] = defaultdict(list)
        self.dropped = 0
        for lineno, line in enumerate(read_lines(records), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                s = obj["sentence"]
                if s not in line_of:
                    self.dropped += 1
                    continue
                kept_line = line_of[s]
                k = doc_of_line[kept_line]
                first = bounds[k]
                scored = []
                for c in obj["candidates"]:
                    cand = _candidate(c, line_of, first, lexicon, genders)
                    # a candidate in another document cannot be one: CorZu resolves per document
                    if cand is not None and 0 <= cand.sentence <= kept_line - first:
                        scored.append((cand, float(c["score"])))
                cands = keep_likely(scored, ratio, minimum)
                rec = PronounResolution(str(k), kept_line - first, int(obj["index"]), obj["token"],
                                        referential=bool(cands), candidates=cands)
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise CadError(f"not a CorZu record: {exc!r}", str(records), lineno) from None
            self.by_doc[rec.doc].append(rec)

    def resolve(self, doc_id: str, sentences: list[list[str]]) -> list[PronounResolution]:
        out = self.by_doc.get(doc_id, [])
        for r in out:
            if r.sentence >= len(sentences) or r.index >= len(sentences[r.sentence]) \
                    or sentences[r.sentence][r.index].lower() != r.token.lower():
                raise CadError(f"CorZu record {r.token!r} at sentence {r.sentence}, token {r.index} of "
                               f"document {doc_id} does not match the text")
        return out


# -- a split with its records, the native resolver's reference ----------------------------------

@dataclass
class SplitDoc:
    """One document of a split, with CorZu's records of its pronouns."""

    index: int                      # position in the split's .docs file
    doc_id: str
    first_line: int                 # of the split's text
    sentences: list[list[str]]      # as written (cased)
    # (sentence in the document, token) -> CorZu's record, its candidates' sentences made
    # document-relative (None where the line was lost)
    corzu: dict[tuple[int, int], dict] = field(default_factory=dict)


def text_path(data: Path, split: str) -> Path:
    """The split's Spanish text, compressed or not."""
    for name in (f"{split}.es", f"{split}.es.gz"):
        if (data / name).exists():
            return data / name
    raise CadError(f"no {split}.es[.gz] in {data}")


def _records_path(data: Path, split: str) -> Path:
    for name in (f"corzu.{split}.jsonl", f"corzu.{split}.jsonl.gz"):
        if (data / name).exists():
            return data / name
    raise CadError(f"no corzu.{split}.jsonl[.gz] in {data}")


def read_split(data: str | os.PathLike, split: str, max_docs: int | None = None, skip: int = 0) -> list[SplitDoc]:
    """`max_docs` documents of a split (file order) from the `skip`-th on, with their CorZu records."""
    data = Path(data)
    text = text_path(data, split)
    lines = [line.split() for line in read_lines(text)]
    starts = read_docs(data / f"{split}.docs", len(lines))
    bounds = [d.first_line for d in starts] + [len(lines)]
    n = len(starts) if max_docs is None else min(skip + max_docs, len(starts))
    docs = [SplitDoc(k, starts[k].doc_id, bounds[k], lines[bounds[k]:bounds[k + 1]]) for k in range(skip, n)]
    doc_of_line = {}
    for d in docs:
        for i in range(d.first_line, d.first_line + len(d.sentences)):
            doc_of_line[i] = d
    path = _records_path(data, split)
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            try:
                obj = json.loads(line)
                d = doc_of_line.get(obj["sentence"])
                if d is None:
                    continue
                s = obj["sentence"] - d.first_line
                for c in obj["candidates"]:
                    if c["sentence"] is not None:
                        c["sentence"] -= d.first_line
                        if not 0 <= c["sentence"] <= s:
                            c["sentence"] = None        # another document's line: unusable
                d.corzu[(s, int(obj["index"]))] = obj
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise CadError(f"not a CorZu record: {exc!r}", str(path), lineno) from None
    return docs


def corzu_first(rec: dict) -> dict | None:
    """CorZu's choice, where its line survived."""
    c = rec["candidates"][0] if rec.get("candidates") else None
    return c if c is not None and c["sentence"] is not None else None
