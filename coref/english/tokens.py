"""spaCy Docs from Moses-tokenized English.

Moses splits *don't* as `don 't`; spaCy's English models were trained on `do n't`, so they read
`don` as a proper noun (*they don 't go back*: `don` an apposition, *go* the root of nothing) and
`doesn` as a possessor. The parser sees a token through its norm, so the stems of negated
auxiliaries get the norm of spaCy's own split (`do`, `not`) while their text, and so every
position and mention text, stays as given.
"""

from __future__ import annotations

# stem of a negated auxiliary before 't -> the norm spaCy gives the same stem in its own split
NEGATED_STEMS = {
    "don": "do", "doesn": "does", "didn": "did", "isn": "is", "aren": "are", "wasn": "was", "weren": "were",
    "haven": "have", "hasn": "has", "hadn": "had", "couldn": "could", "wouldn": "would", "shouldn": "should",
    "mustn": "must", "needn": "need", "mightn": "might", "can": "can", "won": "will", "ain": "be",
}
NEGATION = ("'t", "’t")


def contraction_norms(words: list[str]) -> dict[int, str]:
    """{position: norm} for the Moses-split negations of a tokenized sentence."""
    out = {}
    for i in range(len(words) - 1):
        if words[i + 1] in NEGATION:
            norm = NEGATED_STEMS.get(words[i].lower())
            if norm is not None:
                out[i] = norm
                out[i + 1] = "not"
    return out


def moses_doc(vocab, words: list[str]):
    """An unparsed Doc of `words` with spaCy's norms on Moses-split negations (pass it to nlp.pipe)."""
    from spacy.tokens import Doc      # spaCy loads with the first Doc: contraction_norms needs none

    doc = Doc(vocab, words=list(words))
    for i, norm in contraction_norms(list(words)).items():
        doc[i].norm_ = norm
    return doc
