"""The PE baseline of seed 004: post-edit a baseline translation so that its subject pronouns
(French il/elle and ils/elles; the target's `subject_forms`, cad/lang) agree with the gender of the
antecedent's translation."""

from __future__ import annotations

from dataclasses import dataclass

from cad.translate.backoff import antecedent_features
from cad.cm.bundles import parse_token
from cad.decoder.search import Translation
from cad.lang.pairs import Pair, chosen
from coref.records import PronounResolution


@dataclass
class Edit:
    sentence: int
    position: int
    before: str
    after: str


def postedit_document(translations: list[Translation], resolutions: list[PronounResolution],
                      pair: Pair | None = None) -> tuple[list[list[str]], list[Edit]]:
    """Each subject pronoun aligned to a resolved pronoun takes the form of its antecedent's
    gender, keeping its own number (the antecedent's where its form has both, German *sie*)."""
    pair = chosen(pair)
    forms = pair.target.subject_forms
    numbers: dict[str, set[str]] = {}
    for (_, n), form in forms.items():
        numbers.setdefault(form, set()).add(n)
    out = [list(t.best.words) for t in translations]
    edits = []
    for r in resolutions:
        if not r.referential or not r.candidates or r.candidates[0].sentence > r.sentence \
                or r.candidates[0].kind != "np":
            continue
        c = r.candidates[0]
        feat, _ = antecedent_features(translations[c.sentence], c, r.token, None, False, pair)
        b = parse_token(feat) if feat else None
        if b is None:
            continue
        tr = translations[r.sentence]
        for s, t in tr.best.word_alignment:
            if s != r.index:
                continue
            word = out[r.sentence][t]
            own = numbers.get(word.lower())
            if own:
                number = next(iter(own)) if len(own) == 1 else b.number
                new = forms.get((b.gender, number))
                if new is not None and new != word.lower():
                    edits.append(Edit(r.sentence, t, word, new))
                    out[r.sentence][t] = new if word.islower() else new.capitalize()
    return out, edits
