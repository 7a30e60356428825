"""Plain records for pronouns and their candidate antecedents, and the JSON Lines format.

One JSON object per pronoun:
{"doc": "779", "sentence": 3, "index": 5, "token": "it", "referential": true, "anaphoricity": 0.97,
 "candidates": [{"sentence": 2, "start": 0, "end": 2, "head": 1, "text": "the mouse",
                 "probability": 0.8, "number": "sing", "human": false, "kind": "np"}, ...]}
Sentences and token indices are 0-based; `end` is exclusive.

Optional fields, written only where a backend sets them (a record without them reads as before):
the pronoun's `referent` (`np`, `event`: a clause, or `pleonastic`), `referent_type` (for `np`, the
entity type: person, animal, plant, object, substance, place, organization, time, event, abstract,
quantity), `referent_probs` (every label, `pleonastic`, `event` and `np:<type>`, with its
probability; coref.referent), and a candidate's `entity_type`.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Iterable, Iterator

from cad.core.errors import CadError
from cad.core.textio import atomic_output, read_lines


@dataclass
class Candidate:
    sentence: int
    start: int
    end: int
    head: int
    text: str = ""
    probability: float = 1.0
    number: str | None = None       # "sing" | "plur" | None (unknown)
    human: bool | None = None
    gender: str | None = None       # "masc" | "fem" | None: the source head's, where the source has gender
    kind: str = "np"                # "np" | "event": a clause the pronoun refers to (-> ce/cela/ça)
    entity_type: str | None = None  # optional: the entity type of what a noun phrase names


@dataclass
class PronounResolution:
    doc: str
    sentence: int
    index: int
    token: str
    referential: bool = True
    candidates: list[Candidate] = field(default_factory=list)
    anaphoricity: float | None = None   # P(referential), where the backend estimates it
    referent: str | None = None         # optional: np | event | pleonastic
    referent_type: str | None = None    # optional: the entity type of an np referent
    referent_probs: dict[str, float] | None = None  # optional: every referent label's probability

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None


def keep_likely(scored: list[tuple[Candidate, float]], ratio: float = 0.01, minimum: int = 2) -> list[Candidate]:
    """Seed 003 §3.1: keep every candidate scoring at least `ratio` of the best, and at least
    `minimum` of them where available; probabilities are the scores normalized over the kept list.
    Scores must be non-negative; the list comes back best first."""
    if not scored:
        return []
    if any(s < 0 for _, s in scored):
        raise ValueError("candidate scores must be non-negative")
    ranked = sorted(scored, key=lambda cs: -cs[1])
    best = ranked[0][1]
    kept = [cs for i, cs in enumerate(ranked) if i < minimum or cs[1] >= ratio * best]
    total = sum(s for _, s in kept)
    out = []
    for cand, s in kept:
        c = Candidate(**{**asdict(cand), "probability": s / total if total > 0 else 1.0 / len(kept)})
        out.append(c)
    return out


OPTIONAL_RECORD_FIELDS = ("referent", "referent_type", "referent_probs")
OPTIONAL_CANDIDATE_FIELDS = ("entity_type",)
REFERENTS = ("np", "event", "pleonastic")


def record_line(r: PronounResolution) -> str:
    """One record as write_jsonl writes it, newline included; optional fields that are not set
    are left out, so that the records of backends that set none are as they were."""
    d = asdict(r)
    for k in OPTIONAL_RECORD_FIELDS:
        if d[k] is None:
            del d[k]
    for c in d["candidates"]:
        for k in OPTIONAL_CANDIDATE_FIELDS:
            if c[k] is None:
                del c[k]
    return json.dumps(d, ensure_ascii=False, sort_keys=True) + "\n"


def write_jsonl(records: Iterable[PronounResolution], path: str | os.PathLike) -> None:
    with atomic_output(path) as fh:
        for r in records:
            fh.write(record_line(r))


def read_jsonl(path: str | os.PathLike) -> Iterator[PronounResolution]:
    for lineno, line in enumerate(read_lines(path), 1):
        if line.strip():
            yield parse_record(line, path, lineno)


def parse_record(line: str, path: str | os.PathLike, lineno: int) -> PronounResolution:
    """One JSON Lines record, checked; errors name `path` and `lineno`."""
    try:
        obj = json.loads(line)
        if not isinstance(obj, dict) or not isinstance(obj.get("candidates", []), list):
            raise TypeError("expected an object with a list of candidates")
        cands = [Candidate(**c) for c in obj.pop("candidates", [])]
        rec = PronounResolution(**obj, candidates=cands)
    except (json.JSONDecodeError, TypeError) as exc:
        raise CadError(f"not a pronoun record: {exc}", str(path), lineno) from None
    _check_types(rec, str(path), lineno)
    return rec


def _check_types(rec: PronounResolution, path: str, lineno: int) -> None:
    """Positions are what later stages index with: a record whose fields have the wrong types
    is refused here, where the file and line can be named."""
    def need(ok: bool, what: str) -> None:
        if not ok:
            raise CadError(f"not a pronoun record: {what}", path, lineno)

    def is_int(x) -> bool:
        return isinstance(x, int) and not isinstance(x, bool) and x >= 0

    def is_prob(x) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool) and 0.0 <= x <= 1.0

    need(isinstance(rec.doc, str) and isinstance(rec.token, str), "doc and token must be strings")
    need(is_int(rec.sentence) and is_int(rec.index), "sentence and index must be non-negative integers")
    need(isinstance(rec.referential, bool), "referential must be true or false")
    need(rec.anaphoricity is None or is_prob(rec.anaphoricity), "anaphoricity must be a probability")
    for c in rec.candidates:
        need(all(is_int(x) for x in (c.sentence, c.start, c.end, c.head)) and c.start < c.end,
             "a candidate needs integer sentence, start < end and head")
        need(is_prob(c.probability), "a candidate's probability must lie in [0, 1]")
        need(isinstance(c.text, str) and c.kind in ("np", "event"), "a candidate's text is a string, kind np|event")
        need(c.number in (None, "sing", "plur") and c.human in (None, True, False),
             "a candidate's number is sing|plur|null, human true|false|null")
        need(c.gender in (None, "masc", "fem"), "a candidate's gender is masc|fem|null")
        need(c.entity_type is None or isinstance(c.entity_type, str), "a candidate's entity_type is a string")
    need(rec.referent in (None,) + REFERENTS, "referent must be np, event or pleonastic")
    need(rec.referent_type is None or isinstance(rec.referent_type, str), "referent_type must be a string")
    need(rec.referent_probs is None or (isinstance(rec.referent_probs, dict)
                                        and all(isinstance(k, str) and is_prob(v) for k, v in rec.referent_probs.items())),
         "referent_probs must map labels to probabilities")
