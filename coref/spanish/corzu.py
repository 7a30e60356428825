"""The `corzu` backend: CorZu's antecedent candidates for Spanish pronouns, read from the shared
records (`corzu.*.jsonl[.gz]`, one JSON object per pronoun; format in shared/data/es-en/nc11/README.md).

CorZu's raw scores become probabilities by seed 003's rule (every candidate scoring at least 1% of
the best, at least two, normalized over those kept: `keep_likely`). Each candidate keeps CorZu's own
features (FreeLing's gender and number; person vs other from its named-entity class and animacy),
which seed 003 appends to the pronoun.

CorZu's `sentence` is a line of the split's text file. A corpus that `cad prepare` cleaned drops
lines; `lines` (its `corpus.lines`: the original line of every kept line) maps records onto the
kept lines, and a pronoun or candidate on a dropped line goes with it.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict

from cad.core.docs import read_docs
from cad.core.errors import CadError
from cad.lang.es import corzu_morph
from cad.core.textio import read_lines
from coref.records import Candidate, PronounResolution, keep_likely


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


class CorzuResolver:
    """`resolve(doc_id, sentences)` for the documents of one split, doc_id the document's index
    in `docs` (as cad's other backends number documents). `lexicon` (cad/lang/humanness.py), when
    given, marks as human the common nouns it knows as such; `genders` (cad/lang/name_gender.py)
    gives person names the gender it knows for them instead of FreeLing's guess."""

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
