import pytest

from cad.core.errors import CadError
from coref.gold.brat import read_brat
from coref.gold.conll import read_conll
from coref.gold.mmax import read_mmax
from coref.gold.model import token_map
from coref.gold.oracle import resolve_with_gold
from coref.records import Candidate, PronounResolution, keep_likely, read_jsonl, write_jsonl

from conftest import write

WORDS = ["My", "cat", "brought", "home", "a", "mouse", "that", "he", "hunted", ",", "and", "it", "was", "not",
         "dead", ".", "It", "is", "raining", "."]


def mmax_doc(tmp_path, coref_markables: str):
    words = "".join(f'<word id="word_{i + 1}">{w}</word>\n' for i, w in enumerate(WORDS))
    write(tmp_path / "Basedata" / "d_words.xml", f'<?xml version="1.0"?>\n<words>\n{words}</words>\n')
    write(tmp_path / "Markables" / "d_sentence_level.xml",
          '<?xml version="1.0"?>\n<markables xmlns="www.eml.org/NameSpaces/sentence">\n'
          '<markable id="markable_0" span="word_1..word_16" mmax_level="sentence"/>\n'
          '<markable id="markable_1" span="word_17..word_20" mmax_level="sentence"/>\n</markables>\n')
    write(tmp_path / "Markables" / "d_coref_level.xml",
          '<?xml version="1.0"?>\n<markables xmlns="www.eml.org/NameSpaces/coref">\n' + coref_markables + "</markables>\n")
    write(tmp_path / "d.mmax", "<mmax/>")
    return read_mmax(tmp_path, "d")


def test_mmax_reader_with_discontinuous_spans(tmp_path):
    doc = mmax_doc(tmp_path,
                   '<markable id="m1" span="word_1..word_2" coref_class="set_1" mention="np"/>\n'
                   '<markable id="m2" span="word_5..word_6,word_9" coref_class="set_2" mention="np"/>\n'
                   '<markable id="m3" span="word_8" coref_class="set_1" mention="pronoun"/>\n'
                   '<markable id="m4" span="word_12" coref_class="set_2" mention="pronoun" type="anaphoric"/>\n'
                   '<markable id="m5" span="word_17" coref_class="empty" mention="pronoun" type="pleonastic"/>\n')
    assert doc.sentence_starts == [0, 16] and len(doc.tokens) == 20
    mouse = next(m for m in doc.mentions if m.id == "m2")
    assert mouse.tokens == [4, 5, 8] and mouse.chain == "set_2"
    assert next(m for m in doc.mentions if m.id == "m5").chain is None
    assert {k: [m.id for m in v] for k, v in doc.chains().items()} == {"set_1": ["m1", "m3"], "set_2": ["m2", "m4"]}


def test_gold_oracle_links_it_to_the_mouse_and_marks_pleonastic(tmp_path):
    """Seed 004's example: 'My cat brought home a mouse ... it was not dead'."""
    doc = mmax_doc(tmp_path,
                   '<markable id="m1" span="word_1..word_2" coref_class="set_1" mention="np"/>\n'
                   '<markable id="m2" span="word_5..word_6" coref_class="set_2" mention="np"/>\n'
                   '<markable id="m3" span="word_8" coref_class="set_1" mention="pronoun"/>\n'
                   '<markable id="m4" span="word_12" coref_class="set_2" mention="pronoun"/>\n'
                   '<markable id="m5" span="word_17" coref_class="empty" mention="pronoun" type="pleonastic"/>\n')
    # cad's own tokenization of the same text (lowercased, "cannot"-style differences do not matter)
    ours = [["my", "cat", "brought", "home", "a", "mouse", "that", "he", "hunted", ",", "and", "it", "was", "not",
             "dead", "."], ["it", "is", "raining", "."]]
    recs = resolve_with_gold(doc, ours, "d")
    assert [(r.sentence, r.index, r.referential) for r in recs] == [(0, 11, True), (1, 0, False)]
    c = recs[0].best
    assert (c.sentence, c.start, c.end, c.head, c.text) == (0, 4, 6, 5, "a mouse")
    assert recs[1].candidates == []


def test_token_map_bridges_different_tokenizations():
    assert token_map(["ca", "n't", "go"], ["can't", "go"]) == [[0], [0], [1]]
    assert token_map(["The", "Cat"], ["the", "cat"]) == [[0], [1]]
    assert token_map(["``", "hi", "''"], ['"', "hi", '"']) == [[], [1], []]


def test_conll_reader(tmp_path):
    text = ("#begin document (x); part 0\n"
            "x\t0\t0\tThe\t_\t_\t_\t_\t_\t_\t_\t_\t(0\n"
            "x\t0\t1\tcat\t_\t_\t_\t_\t_\t_\t_\t_\t0)\n"
            "x\t0\t2\tsleeps\t_\t_\t_\t_\t_\t_\t_\t_\t_\n\n"
            "x\t0\t0\tIt\t_\t_\t_\t_\t_\t_\t_\t_\t(0)|(1)\n"
            "#end document\n")
    docs = read_conll(write(tmp_path / "x.conll", text))
    d = docs[0]
    assert d.sentence_starts == [0, 3]
    assert [(m.tokens, m.chain) for m in d.mentions] == [([0, 1], "0"), ([3], "0"), ([3], "1")]
    write(tmp_path / "bad.conll", text.replace("0)\n", "5)\n", 1))
    with pytest.raises(CadError, match="not open") as err:
        read_conll(tmp_path / "bad.conll")
    assert err.value.line == 3


def test_brat_reader_with_coref_equivalences(tmp_path):
    write(tmp_path / "b.txt", "The cat sleeps .\nIt dreams .\n")
    write(tmp_path / "b.ann", "T1\tNOM_PER 0 7\tThe cat\nT2\tPRON_PER 17 19\tIt\nT3\tNOM_FAC 30 31\tx\n*\tCoref T1 T2\n")
    with pytest.raises(CadError, match="covers no token"):
        read_brat(tmp_path / "b.ann")
    write(tmp_path / "b.ann", "T1\tNOM_PER 0 7\tThe cat\nT2\tPRON_PER 17 19\tIt\n*\tCoref T1 T2\n")
    d = read_brat(tmp_path / "b.ann")
    assert d.sentence_starts == [0, 4]
    assert [(m.tokens, m.chain is not None) for m in d.mentions] == [([0, 1], True), ([4], True)]


def test_shared_parcorfull_and_litbank_readers(shared_data):
    from coref.gold.mmax import list_mmax

    ted = shared_data / "coref" / "parcorfull" / "corpus" / "TED" / "EN"
    names = list_mmax(ted)
    assert len(names) >= 10
    doc = read_mmax(ted, names[0])
    assert doc.tokens[:3] == ["Everybody", "talks", "about"] and len(doc.chains()) > 50
    lit = read_conll(shared_data / "coref" / "litbank" / "coref" / "conll" / "105_persuasion_brat.conll")
    assert lit[0].tokens[:3] == ["Chapter", "1", "Sir"] and lit[0].chains()


def test_probability_list_keeps_one_percent_and_two_candidates(tmp_path):
    c = [Candidate(0, i, i + 1, i) for i in range(5)]
    kept = keep_likely([(c[0], 10.0), (c[1], 0.05), (c[2], 2.0), (c[3], 0.09), (c[4], 0.2)])
    # 1% of the best (10) is 0.1: 10, 2, 0.2 are kept; 0.09 and 0.05 are not
    assert [k.start for k in kept] == [0, 2, 4]
    assert sum(k.probability for k in kept) == pytest.approx(1.0)
    assert kept[0].probability == pytest.approx(10 / 12.2)
    # at least two where available, even below 1%
    two = keep_likely([(c[0], 100.0), (c[1], 0.001)])
    assert len(two) == 2 and two[1].probability == pytest.approx(0.001 / 100.001)
    assert [k.probability for k in keep_likely([(c[0], 3.0)])] == [1.0]
    recs = [PronounResolution("d", 1, 2, "it", True, two), PronounResolution("d", 2, 0, "it", False, [])]
    write_jsonl(recs, tmp_path / "r.jsonl")
    assert list(read_jsonl(tmp_path / "r.jsonl")) == recs
    write(tmp_path / "bad.jsonl", '{"doc": "d"}\n{oops\n')
    with pytest.raises(CadError) as err:
        list(read_jsonl(tmp_path / "bad.jsonl"))
    assert err.value.line == 1


def test_evaluation_of_gold_against_gold_and_a_wrong_backend(tmp_path):
    from coref.evaluate import gold_pronouns, score

    doc = mmax_doc(tmp_path,
                   '<markable id="m1" span="word_1..word_2" coref_class="set_1" mention="np"/>\n'
                   '<markable id="m2" span="word_5..word_6" coref_class="set_2" mention="np"/>\n'
                   '<markable id="m4" span="word_12" coref_class="set_2" mention="pronoun"/>\n'
                   '<markable id="m5" span="word_17" coref_class="empty" mention="pronoun" type="pleonastic"/>\n')
    ours = [[w.lower() for w in WORDS[:16]], [w.lower() for w in WORDS[16:]]]
    gold = gold_pronouns(doc, ours, "d")
    pred = resolve_with_gold(doc, ours, "d")
    sc = score(pred, gold)
    assert (sc.total, sc.correct, sc.precision, sc.recall) == (2, 2, 1.0, 1.0)
    # a backend that links "it" to the cat and "It is raining" to the mouse gets both wrong
    wrong = [PronounResolution("d", 0, 11, "it", True, [Candidate(0, 0, 2, 1)]),
             PronounResolution("d", 1, 0, "It", True, [Candidate(0, 4, 6, 5)])]
    sc = score(wrong, gold)
    assert (sc.correct, sc.tp, sc.fp, sc.fn) == (0, 1, 1, 0)



def test_evaluate_documents_scores_each_document_with_its_resolver_and_reports(tmp_path):
    from coref.evaluate import Evaluation, evaluate_documents

    doc = mmax_doc(tmp_path,
                   '<markable id="m1" span="word_1..word_2" coref_class="set_1" mention="np"/>\n'
                   '<markable id="m2" span="word_5..word_6" coref_class="set_2" mention="np"/>\n'
                   '<markable id="m4" span="word_12" coref_class="set_2" mention="pronoun"/>\n'
                   '<markable id="m5" span="word_17" coref_class="empty" mention="pronoun" type="pleonastic"/>\n')
    sents = [WORDS[:16], WORDS[16:]]

    class Oracle:
        def __init__(self):
            self.seen = []

        def resolve(self, doc_id, sentences):
            self.seen.append(sentences)
            return resolve_with_gold(doc, sentences, doc_id)

    oracle = Oracle()
    pairs = [("a", doc, 10, sents), ("b", doc, 9, sents)]
    ev = evaluate_documents(pairs, {"a": oracle, "b": oracle}, lowercase=True)
    assert oracle.seen == [[[w.lower() for w in s] for s in sents]] * 2
    assert (ev.documents, ev.sentences, ev.scores.total, ev.scores.correct) == (2, 4, 4, 4)
    assert [r.doc for r in ev.records] == ["10", "10", "9", "9"]
    assert [r.doc for r in ev.sorted_records()] == ["9", "9", "10", "10"]     # by number, not as text
    # the report: one name<TAB>value line each, the seconds last
    ev = Evaluation(ev.scores, [], 2, 4, 0.002)
    assert ev.report("gold").split("\n") == [
        "backend\tgold", "documents\t2", "sentences\t4", "pronouns\t4", "anaphoricity precision\t1.000",
        "anaphoricity recall\t1.000", "anaphoricity F\t1.000", "antecedent accuracy\t1.000 (4/4)",
        "accuracy it\t1.000 (4/4)", "seconds per 1,000 sentences\t0.5"]

def test_gold_backend_on_ted_dev_talks(shared_data):
    from coref.evaluate import gold_pronouns, pair_documents, score

    d = shared_data / "en-fr"
    pairs = pair_documents(shared_data / "coref" / "parcorfull" / "corpus" / "TED" / "EN", d / "dev.en", d / "dev.docs")
    assert len({k for _, _, k, _ in pairs}) == len(pairs)       # each gold talk finds its own document
    total = correct = 0
    for name, gdoc, k, sents in pairs:
        g = gold_pronouns(gdoc, sents, str(k))
        sc = score(resolve_with_gold(gdoc, sents, str(k)), g)
        total += sc.total
        correct += sc.correct
    assert total > 500 and correct / total > 0.97   # the oracle agrees with the gold it reads
