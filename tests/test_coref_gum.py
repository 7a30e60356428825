"""GUM's CoNLL coreference: the reader (nested, one-token, named and event mentions; sentences;
extraposed *it*), its errors, and the referent labels it gives."""

import pytest

from cad.core.errors import CadError
from coref.evaluate import gold_pronouns
from coref.gold.gum import parse_marks, read_gum, split_sentences
from coref.referent import TypeScores, coarse, gold_referent, is_clause

from conftest import write

# "Kim visited Spain . It was great . The old mouse of Kim ran . It is clear that it died ."
GUM = """# begin document GUM_test_doc
0\tKim\t(person-1-Kim_Lee)
1\tvisited\t(event-2
2\tSpain\t(place-3-Spain)event-2)
3\t.\t_
4\tIt\t(event-2)
5\twas\t_
6\tgreat\t_
7\t.\t_
8\tThe\t(animal-4
9\told\t_
10\tmouse\t_
11\tof\t_
12\tKim\t(person-1-Kim_Lee)animal-4)
13\tran\t_
14\t.\t_
15\tIt\t(abstract-5)
16\tis\t_
17\tclear\t_
18\tthat\t(abstract-5
19\tit\t(animal-4)
20\tdied\tabstract-5)
21\t.\t_
# end document
"""


def test_gum_reader_nested_one_token_named_and_event_mentions(tmp_path):
    write(tmp_path / "d.conll", GUM)
    [doc] = read_gum(tmp_path / "d.conll")
    assert doc.doc_id == "GUM_test_doc" and len(doc.tokens) == 22
    assert doc.sentence_starts == [0, 4, 8, 15]
    spans = {(tuple(m.tokens), m.attrs["etype"]): m for m in doc.mentions}
    kim = spans[((0,), "person")]
    assert kim.attrs["name"] == "Kim_Lee" and kim.chain == "1"
    assert spans[((12,), "person")].chain == "1"                      # nested in the mouse
    assert spans[((8, 9, 10, 11, 12), "animal")].chain == "4"
    event = spans[((1, 2), "event")]
    assert event.chain == "2" and spans[((4,), "event")].chain == "2"
    assert spans[((2,), "place")].chain is None                         # a singleton: typed, no chain
    # the extraposed *it* of "It is clear that it died" is pleonastic, out of its chain
    ext = spans[((15,), "abstract")]
    assert ext.attrs["type"] == "pleonastic" and ext.chain is None


def test_gum_pronouns_and_referent_labels(tmp_path):
    write(tmp_path / "d.conll", GUM)
    [doc] = read_gum(tmp_path / "d.conll")
    gps = gold_pronouns(doc, doc.sentences(), "d")
    by = {(g.sentence, g.index): g for g in gps}
    assert not by[(3, 0)].referential and by[(3, 0)].referent == "pleonastic"
    assert by[(1, 0)].referential and (0, 1) in by[(1, 0)].chain_tokens
    assert by[(3, 4)].referent == "np:animal" and (2, 2) in by[(3, 4)].chain_tokens
    # with a parse, the antecedent *visited Spain* is a clause: an event referent
    pos = {1: ("visited", "VERB", 1), 2: ("spain", "PROPN", 1)}
    event = next(m for m in doc.mentions if m.tokens == [4])
    assert gold_referent(doc, event, lambda i: pos[i]) == "event"
    assert is_clause([1, 2], lambda i: pos[i])


def test_gum_marks_parse_run_together():
    assert parse_marks("(abstract-14(abstract-15-Old_English") == [
        (True, False, "abstract", "14", None), (True, False, "abstract", "15", "Old_English")]
    assert parse_marks("(object-5)abstract-3)") == [(True, True, "object", "5", None),
                                                     (False, True, "abstract", "3", None)]
    with pytest.raises(ValueError):
        parse_marks("(abstract-1)junk")


@pytest.mark.parametrize("bad, line, what", [
    ("0\tKim\t(person-1\n1\tran\t_\n# end document\n", 4, "never closed"),
    ("0\tKim\tperson-1)\n# end document\n", 2, "not open"),
    ("0\tKim\t(person-1)x\n# end document\n", 2, "malformed"),
    ("0\tKim\n# end document\n", 2, "3 tab-separated columns"),
])
def test_a_corrupt_gum_file_names_its_line(tmp_path, bad, line, what):
    write(tmp_path / "bad.conll", "# begin document GUM_bad\n" + bad)
    with pytest.raises(CadError) as err:
        read_gum(tmp_path / "bad.conll")
    assert f"bad.conll:{line}" in str(err.value) and what in str(err.value)


def test_sentences_cut_after_terminal_punctuation_and_closing_quotes():
    toks = ["He", "said", '"', "no", ".", '"', "Then", "?", "ok"]
    assert split_sentences(toks) == [0, 6, 8]


def test_type_scores_per_label_and_coarse():
    ts = TypeScores()
    for g, p in [("np:animal", "np:animal"), ("np:animal", "np:object"), ("event", "event"), ("pleonastic", "event")]:
        ts.add(g, p)
    rows = {r[0]: r for r in ts.table()}
    assert rows["np:animal"][1:3] == (2, 1) and rows["np:animal"][3] == 1.0 and rows["np:animal"][4] == 0.5
    assert rows["event"][3] == 0.5
    assert {r[0]: r for r in ts.merged(coarse).table()}["np"][5] == 1.0


def test_calibration_bins_and_temperature():
    from coref.calibration import Calibration, fit_temperature, with_temperature

    cal = Calibration(bins=2)
    for p, ok in [(0.9, True), (0.8, False), (0.2, False), (0.1, False)]:
        cal.add(p, ok)
    assert [(c, round(mp, 2), acc) for _, _, c, mp, acc in cal.table()] == [(2, 0.15, 0.0), (2, 0.85, 0.5)]
    assert cal.ece() == pytest.approx((2 * 0.15 + 2 * 0.35) / 4)
    # overconfident lists (the best is right 7 times in 10 at .9) want a temperature above 1
    lists = [([0.9, 0.1], [True, False])] * 7 + [([0.9, 0.1], [False, True])] * 3
    t = fit_temperature(lists)
    assert t > 1 and with_temperature([0.9, 0.1], t)[0] == pytest.approx(0.7, abs=0.01)
    assert sum(with_temperature([0.5, 0.3, 0.2], 2.0)) == pytest.approx(1.0)


def test_document_folds_deal_each_corpus_round_robin():
    from coref.english.heldout import document_folds, genre
    from coref.gold.model import GoldDocument

    docs = [("gum", GoldDocument(f"GUM_news_{i}", [], [])) for i in range(7)] + \
           [("news", GoldDocument(str(i), [], [])) for i in range(3)]
    folds = document_folds(docs, 3)
    assert folds[:7] == [0, 1, 2, 0, 1, 2, 0] and folds[7:] == [0, 1, 2]
    assert genre("GUM_news_0") == "news" and genre("GENTLE_dictionary_next") == "dictionary"
