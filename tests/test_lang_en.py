import pytest

from cad.eval.apt import classify, evaluate, find_source_pronouns
from cad.eval.apt_settings import english_settings
from cad.lang import en, es

from conftest import write

# Three hand-made Spanish→English sentences (seed 003's "su escuela": her school vs his school).
SRC = ["ella dice que su escuela es suya .",
       "él les dio sus libros .",
       "ellos votan por su partido ."]
REF = ["she says that her school is hers .",
       "he gave them his books .",
       "voters back the party ."]
CAND = ["it says that his school is her own .",
        "gave them their books .",
        "they vote for party ."]
AREF = ["0-0 1-1 2-2 3-3 4-4 5-5 6-6 7-7",
        "0-0 1-2 2-1 3-3 4-4 5-5",
        "1-0 1-1 4-3 5-4"]            # ellos and su unaligned, no English pronoun near them
ACAND = ["0-0 1-1 2-2 3-3 4-4 5-5 6-6 6-7 7-8",
         "1-1 2-0 3-2 4-3 5-4",       # él unaligned
         "0-0 1-1 2-2 4-3 5-4"]       # su unaligned
# (pronoun, case): ella she/it C3; su her/his C3; suya hers/"her own" C1 (her ≡ hers);
# él he/– C4: the heuristics look at gave/them/their but them and their translate les and sus;
# les them/them C1; sus his/their C3; ellos –/they C5; su –/– C6
EXPECTED = [("ella", 3), ("su", 3), ("suya", 1), ("él", 4), ("les", 1), ("sus", 3), ("ellos", 5), ("su", 6)]


def example(tmp_path, ref=REF, cand=CAND, aref=AREF, acand=ACAND):
    return [write(tmp_path / n, "\n".join(lines) + "\n")
            for n, lines in (("src", SRC), ("ref", ref), ("cand", cand), ("aref", aref), ("acand", acand))]


@pytest.mark.parametrize("words, cls", [
    ([], en.NONE), (["He"], "he"), (["to", "him"], "him"), (["his", "own"], "his"), (["her", "own"], "her"),
    (["hers"], "hers"), (["of", "theirs"], "theirs"), (["themselves"], "themselves"), (["the"], en.OTHER),
    (["the", "its"], "its"), (["we"], en.OTHER), (["it", "they"], "it"),
])
def test_pronoun_class(words, cls):
    assert en.pronoun_class(words) == cls
    assert cls in en.TARGET_CLASSES


def test_classes_and_lists_agree():
    # every English pronoun is a class of its own, and APT's list is the same words
    assert set(en.TARGET_CLASSES) == set(en.PRONOUNS) | {en.OTHER, en.NONE}
    assert en.EN_TARGET_PRONOUNS == list(en.PRONOUNS)
    assert all(w in en.EN_TARGET_PRONOUNS for g in en.EN_EQUAL for w in g)
    assert set(es.SEED003) <= set(en.ES_SOURCE_PRONOUNS) <= set(en.ES_PRONOUN_DICT)
    s = english_settings()
    # articles are not found by spelling; the accent tells él from el
    assert find_source_pronouns("la casa de el país y lo que él y ella le dan".split(), s) == \
        [(8, "él", "él"), (10, "ella", "ella"), (11, "le", "le")]
    assert classify(["his", "own"], s) == ["his"] and classify(["own"], s) == [en.OTHER]


def test_apt_on_hand_made_example(tmp_path):
    res = evaluate(*example(tmp_path), english_settings())
    assert [(o.pronoun, o.case) for o in res.occurrences] == EXPECTED
    assert res.counts == {1: 2, 2: 0, 3: 3, 4: 1, 5: 1, 6: 1}
    assert res.score == pytest.approx(2 / 8)
    el = res.occurrences[3]
    assert el.ref.words == ["he"] and el.cand is None and not el.improved_cand


def test_her_and_hers_are_identical_only_through_the_equal_groups(tmp_path):
    s = english_settings()
    s.equal = []
    res = evaluate(*example(tmp_path), s)
    assert res.occurrences[2].case == 3 and res.counts[1] == 1


def test_heuristics_find_an_unaligned_english_pronoun(tmp_path):
    # él unaligned; its neighbour les is aligned to "gave them" (markers 1, 2, range 0..3): of the
    # pronouns in range, them and their translate les and sus, he is free
    cand = CAND[:1] + ["he gave them their books ."] + CAND[2:]
    acand = ACAND[:1] + ["1-1 1-2 2-1 3-3 4-4 5-5"] + ACAND[2:]
    res = evaluate(*example(tmp_path, cand=cand, acand=acand), english_settings())
    el = res.occurrences[3]
    assert el.improved_cand and el.cand.positions == [0] and el.case == 1
    s = english_settings()
    s.improve_alignment = False
    assert evaluate(*example(tmp_path, cand=cand, acand=acand), s).occurrences[3].case == 4


def test_reference_against_itself(tmp_path):
    res = evaluate(*example(tmp_path, cand=REF, acand=AREF), english_settings())
    assert {o.case for o in res.occurrences} == {1, 6}
    # OTHER = OTHER counts as identical by default, as for French
    other = ["she says that the school is good ."] + REF[1:]     # su → the: OTHER on both sides
    paths = example(tmp_path, ref=other, cand=other, acand=AREF)
    assert evaluate(*paths, english_settings()).occurrences[1].case == 1
    assert evaluate(*paths, english_settings(count_other=False)).occurrences[1].case == 3
