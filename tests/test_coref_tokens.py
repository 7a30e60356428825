"""Moses-split negations get spaCy's norms, so the parser reads `don 't` as `do n't`."""

import pytest

from coref.english.tokens import contraction_norms


def test_negated_stems_get_spacy_norms():
    words = "they don 't go , it doesn 't matter , we can 't stop , i won 't , ' t is don".split()
    norms = contraction_norms(words)
    assert norms == {1: "do", 2: "not", 6: "does", 7: "not", 11: "can", 12: "not", 16: "will", 17: "not"}
    assert contraction_norms(["Don", "’t"]) == {0: "do", 1: "not"}
    assert contraction_norms(["don"]) == {} and contraction_norms([]) == {}


def test_parse_of_a_moses_tokenized_negation():
    pytest.importorskip("spacy")
    from cad.downloads.spacy_models import load_spacy
    from coref.english.tokens import moses_doc

    nlp = load_spacy()
    words = "possibilities on this planet , they don 't go back , and it doesn 't matter .".split()
    doc = nlp(moses_doc(nlp.vocab, words))
    assert [t.text for t in doc] == words                      # positions and text as given
    assert doc[5].text == "they" and doc[5].head.text == "go" and doc[5].dep_ == "nsubj"
    assert doc[6].pos_ == "AUX" and doc[13].pos_ == "AUX"      # not a proper noun, not a possessor
    assert doc[12].head.text == "matter" and doc[12].dep_ == "nsubj"
