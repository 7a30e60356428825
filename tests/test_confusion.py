from cad.eval.apt import AptSettings, evaluate
from cad.eval.apt_settings import english_settings
from cad.eval.confusion import confusion, seed003_tables, to_markdown
from cad.lang import en

from test_lang_en import example


def test_confusion_of_the_hand_made_example(tmp_path):
    res = evaluate(*example(tmp_path), english_settings())
    su = confusion(res, {"su", "sus"})
    # su: her → his (C3), su: – → – (C6); sus: his → their (C3)
    assert su.total == 3 and su.get("her", "his") == 1 and su.get("his", "their") == 1
    assert su.get(en.NONE, en.NONE) == 1 and su.diagonal == 1
    el = confusion(res, ["él", "ella"])
    # ella: she → it (C3); él: he → – (C4)
    assert el.total == 2 and el.get("she", "it") == 1 and el.get("he", en.NONE) == 1 and el.diagonal == 0
    # hers is merged into her, as in APT's own matrix
    assert "hers" not in su.labels and confusion(res, ["suya"]).get("her", "her") == 1


def test_matrices_of_a_partition_add_up_to_apts(tmp_path):
    for s in (english_settings(), AptSettings(source_pronouns=list(en.ES_SOURCE_PRONOUNS))):
        res = evaluate(*example(tmp_path), s)
        parts = [confusion(res, ps) for ps in (["su", "sus", "suya"], ["él", "ella"], ["les", "ellos"])]
        assert all(p.labels == res.labels for p in parts)
        n = len(res.labels)
        assert [[sum(p.counts[i][j] for p in parts) for j in range(n)] for i in range(n)] == res.matrix
        assert sum(p.total for p in parts) == 8


def test_markdown(tmp_path):
    res = evaluate(*example(tmp_path), english_settings())
    lines = to_markdown(confusion(res, ["su", "sus"])).splitlines()
    # only the classes seen, in APT's order; rows reference, columns candidate, with totals
    assert lines[0] == "| su, sus (ref. \\ cand.) | her | his | their | NONE | total |"
    assert lines[2] == "| her | 0 | 1 | 0 | 0 | 1 |"
    assert lines[3] == "| his | 0 | 0 | 1 | 0 | 1 |"
    assert lines[-3] == "| total | 0 | 1 | 1 | 1 | 3 |"
    assert lines[-1] == "Diagonal: 1 of 3 (33.3%)."
    tables = seed003_tables(res)
    assert tables.index("| su, sus (ref.") < tables.index("| él, ella (ref.")
