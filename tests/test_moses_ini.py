import pytest

from cad.core.errors import CadError
from cad.moses.check import check_config
from cad.moses.ini import baseline_config, format_config, parse_config, write_config

from conftest import write

REAL = """#########################
### MOSES CONFIG FILE ###
#########################

# input factors
[input-factors]
0

# mapping steps
[mapping]
0 T 0
1 T 1

[decoding-graph-backoff]
0
1

[distortion-limit]
6

[threads]
2

# feature functions
[feature]
UnknownWordPenalty
WordPenalty
PhrasePenalty
PhraseDictionaryMemory name=TranslationModel0 num-features=4 path=/m/phrase-table.gz input-factor=0 output-factor=0 table-limit=20
PhraseDictionaryMemory name=TranslationModel1 num-features=1 path=/m/cm.gz input-factor=0 output-factor=0
LexicalReordering name=LexicalReordering0 num-features=6 type=wbe-msd-bidirectional-fe-allff input-factor=0 output-factor=0 path=/m/reordering-table.wbe-msd-bidirectional-fe.gz
Distortion
KENLM lazyken=0 name=LM0 factor=0 path=/m/lm.arpa order=5

# dense weights for feature functions
[weight]
UnknownWordPenalty0= 1
WordPenalty0= -1
PhrasePenalty0= 0.2
TranslationModel0= 0.2 0.2 0.2 0.2
TranslationModel1= 0.8
LexicalReordering0= 0.3 0.3 0.3 0.3 0.3 0.3
Distortion0= 0.3
LM0= 0.5
"""


def test_parse_real_config(tmp_path):
    cfg = parse_config(write(tmp_path / "moses.ini", REAL))
    assert [f.name for f in cfg.features][:3] == ["UnknownWordPenalty0", "WordPenalty0", "PhrasePenalty0"]
    assert cfg.mapping == [(0, "T", 0), (1, "T", 1)] and cfg.backoff == [0, 1]
    assert cfg.feature("TranslationModel1").path == "/m/cm.gz"
    assert cfg.weights["TranslationModel1"] == [0.8]
    assert cfg.distortion_limit == 6 and cfg.other["threads"] == ["2"]
    # writing it back and parsing again is a fixed point
    again = parse_config(write(tmp_path / "again.ini", format_config(cfg)))
    assert format_config(again) == format_config(cfg)


def test_baseline_round_trip_matches_train_model_layout(tmp_path):
    cfg = baseline_config("/m/pt.gz", "/m/ro.gz", "/m/lm.arpa", 5)
    write_config(cfg, tmp_path / "moses.ini")
    text = (tmp_path / "moses.ini").read_text()
    assert "\nUnknownWordPenalty\nWordPenalty\nPhrasePenalty\n" in text
    assert "PhraseDictionaryMemory name=TranslationModel0 table-limit=20 num-features=4 path=/m/pt.gz" in text
    assert "KENLM name=LM0 lazyken=0" not in text and "KENLM lazyken=0 name=LM0 factor=0 path=/m/lm.arpa order=5" in text
    assert "[weight]\nUnknownWordPenalty0= 1\nWordPenalty0= -1\nPhrasePenalty0= 0.2\n" in text
    assert format_config(parse_config(tmp_path / "moses.ini")) == text


@pytest.mark.parametrize("bad, message, line", [
    (REAL.replace("TranslationModel0= 0.2 0.2 0.2 0.2", "TranslationModel0= 0.2 0.2"), "4 scores but 2 weights", 40),
    (REAL.replace("LM0= 0.5", "LM0= abc"), "non-numeric weight", 44),
    (REAL.replace("Distortion0= 0.3", "Distortion7= 0.3"), "not a feature", 43),
    (REAL.replace("0 T 0\n1 T 1", "0 X 0\n1 T 1"), "is not 'path T|G index'", 11),
    (REAL.replace("[distortion-limit]\n6", "[distortion-limit]\nsix"), "not an integer", 19),
    (REAL.replace("num-features=1 path=/m/cm.gz", "num-features path=/m/cm.gz"), "not key=value", 30),
    ("junk before sections\n" + REAL, r"outside any \[section\]", 1),
    (REAL.replace("[mapping]", "[ttable-file]"), "old-style", 10),
])
def test_malformed_configs_name_the_line(tmp_path, bad, message, line):
    path = write(tmp_path / "bad.ini", bad)
    with pytest.raises(CadError, match=message) as err:
        parse_config(path)
    assert err.value.path == str(path) and err.value.line == line


def test_check_finds_missing_files_and_wrong_score_counts(tmp_path):
    pt = write(tmp_path / "pt", "a ||| x ||| 1 1 1 1 ||| 0-0 ||| 1 1 1 ||| |||\n")
    lm = write(tmp_path / "lm.arpa", "\\data\\\nngram 1=3\n\n\\1-grams:\n-1\t<unk>\n-99\t<s>\n-0.5\ta\n\n\\end\\\n")
    cfg = baseline_config(str(pt), None, str(lm), 1)
    write_config(cfg, tmp_path / "moses.ini")
    report = check_config(str(tmp_path / "moses.ini"))
    assert any("1 phrase pairs" in r for r in report)
    write(tmp_path / "pt", "a ||| x ||| 1 1 1 ||| 0-0\n")
    with pytest.raises(CadError, match="3 scores where the moses.ini declares 4") as err:
        check_config(str(tmp_path / "moses.ini"))
    assert err.value.line == 1
    write(tmp_path / "pt", "a ||| x ||| 1 1 1 1\n")
    (tmp_path / "lm.arpa").unlink()
    with pytest.raises(CadError, match="missing file"):
        check_config(str(tmp_path / "moses.ini"))


def test_reweight_takes_tuned_weights_at_the_base_scale(tmp_path, capsys):
    """MERT's weights (L1 1, UnknownWordPenalty fixed at 1) scaled by hand to the untuned config's
    L1 norm; --absolute keeps them; a weights file missing a feature or with a wrong count is refused
    naming the file and line, and nothing is written."""
    from cad.cli import main

    cfg = baseline_config("pt.gz", "ro.gz", "lm.arpa", 5)
    base = tmp_path / "moses.ini"
    write_config(cfg, base)
    # the untuned L1 norm: 0.3 (distortion) + 6 * 0.3 + 0.5 (LM) + 1 (word penalty) + 0.2 + 4 * 0.2 = 4.6
    assert sum(abs(x) for k, v in cfg.weights.items() if k != "UnknownWordPenalty0" for x in v) == pytest.approx(4.6)
    tuned = {"UnknownWordPenalty0": [1.0], "WordPenalty0": [-0.1], "PhrasePenalty0": [0.05],
             "TranslationModel0": [0.05, 0.05, 0.1, 0.05], "LexicalReordering0": [0.05] * 6,
             "Distortion0": [0.1], "LM0": [0.2]}
    text = "# tuned\n[weight]\n" + "".join(f"{k}= {' '.join(str(x) for x in v)}\n" for k, v in tuned.items())
    write(tmp_path / "w.ini", text)
    assert main(["-q", "moses-ini", "reweight", "--config", str(base), "--weights", str(tmp_path / "w.ini"),
                 "--out", str(tmp_path / "scaled.ini")]) == 0
    got = parse_config(tmp_path / "scaled.ini").weights
    assert got["UnknownWordPenalty0"] == [1.0] and got["LM0"] == [pytest.approx(0.92)]
    assert got["WordPenalty0"] == [pytest.approx(-0.46)] and got["TranslationModel0"][2] == pytest.approx(0.46)
    assert main(["-q", "moses-ini", "reweight", "--config", str(base), "--weights", str(tmp_path / "w.ini"),
                 "--absolute", "--out", str(tmp_path / "abs.ini")]) == 0
    assert parse_config(tmp_path / "abs.ini").weights == tuned
    write(tmp_path / "bad.ini", text.replace("LM0= 0.2\n", ""))
    assert main(["-q", "moses-ini", "reweight", "--config", str(base), "--weights", str(tmp_path / "bad.ini"),
                 "--out", str(tmp_path / "x.ini")]) == 1
    assert "no weights for feature LM0" in capsys.readouterr().err and not (tmp_path / "x.ini").exists()
    write(tmp_path / "bad.ini", text.replace("Distortion0= 0.1", "Distortion0= 0.1 0.2"))
    assert main(["-q", "moses-ini", "reweight", "--config", str(base), "--weights", str(tmp_path / "bad.ini"),
                 "--out", str(tmp_path / "x.ini")]) == 1
    err = capsys.readouterr().err
    assert "bad.ini:8" in err and "Distortion0 has 1 scores but 2 weights" in err and not (tmp_path / "x.ini").exists()
