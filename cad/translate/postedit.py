"""The PE baseline of seed 004: post-edit a baseline translation so that il/elle and ils/elles agree
with the gender of the antecedent's translation."""

from __future__ import annotations

from dataclasses import dataclass

from cad.translate.backoff import antecedent_features
from cad.cm.bundles import parse_token
from cad.decoder.search import Translation
from coref.records import PronounResolution

FORMS = {("masc", "sing"): "il", ("fem", "sing"): "elle", ("masc", "plur"): "ils", ("fem", "plur"): "elles"}
SUBJECT_PRONOUNS = {"il", "elle", "ils", "elles"}


@dataclass
class Edit:
    sentence: int
    position: int
    before: str
    after: str


def postedit_document(translations: list[Translation], resolutions: list[PronounResolution]) -> tuple[list[list[str]], list[Edit]]:
    out = [list(t.best.words) for t in translations]
    edits = []
    for r in resolutions:
        if not r.referential or not r.candidates or r.candidates[0].sentence > r.sentence \
                or r.candidates[0].kind != "np":
            continue
        c = r.candidates[0]
        feat, _ = antecedent_features(translations[c.sentence], c, r.token, None, False)
        b = parse_token(feat) if feat else None
        if b is None:
            continue
        tr = translations[r.sentence]
        for s, t in tr.best.word_alignment:
            if s != r.index:
                continue
            word = out[r.sentence][t]
            if word.lower() in SUBJECT_PRONOUNS:
                plural = word.lower() in ("ils", "elles")
                new = FORMS[(b.gender, "plur" if plural else "sing")]
                if new != word.lower():
                    edits.append(Edit(r.sentence, t, word, new))
                    out[r.sentence][t] = new if word.islower() else new.capitalize()
    return out, edits
