import math

import pytest

from cad.core.errors import CadError
from cad.eval.apt import AptSettings, evaluate, format_detail, format_score
from cad.eval.apt_config import read_apt_config, write_apt_config
from cad.eval.apt_settings import french_settings
from cad.lang import NONE, OTHER

from conftest import write

# One source sentence per case; the candidate differs from the reference as each case needs.
SRC = ["it is big .", "it is small .", "it is green .", "they sleep .", "it rains .", "it runs .", "it works ."]
REF = ["il est grand .", "c' est petit .", "elle est verte .", "ils dorment .", "pleut .", "ça marche .", "ça marche ."]
CAND = ["il est grand .", "il est petit .", "il est vert .", "dorment .", "il pleut .", "c' marche .", "cela marche ."]
AREF = ["0-0 1-1 2-2 3-3", "0-0 1-1 2-2 3-3", "0-0 1-1 2-2 3-3", "0-0 1-1 2-2", "1-0 2-1", "0-0 1-1 2-2", "0-0 1-1 2-2"]
ACAND = ["0-0 1-1 2-2 3-3", "0-0 1-1 2-2 3-3", "0-0 1-1 2-2 3-3", "1-0 2-1", "0-0 1-1 2-2", "0-0 1-1 2-2", "0-0 1-1 2-2"]


def files(tmp_path, src=SRC, ref=REF, cand=CAND, aref=AREF, acand=ACAND):
    return [write(tmp_path / n, "\n".join(lines) + "\n")
            for n, lines in (("src", src), ("ref", ref), ("cand", cand), ("aref", aref), ("acand", acand))]


def no_heuristics(**kw) -> AptSettings:
    s = french_settings(**kw)
    s.improve_alignment = False
    return s


def test_every_case_by_hand(tmp_path):
    res = evaluate(*files(tmp_path), no_heuristics(count_other=False))
    cases = [o.case for o in res.occurrences]
    # 1 il=il; 2 c'(=ce) ~ il via {ce, il}; 3 elle vs il; 4 ils vs nothing; 5 nothing vs il;
    # 1 ça vs c'? no: {ça} vs {ce} -> equivalent {ce, ça}; 1 ça vs cela (same equal group)
    assert cases == [1, 2, 3, 4, 5, 2, 1]
    assert res.counts == {1: 2, 2: 2, 3: 1, 4: 1, 5: 1, 6: 0}
    # APT = (1*2 + 0.5*2) / 7
    assert res.score == pytest.approx(3 / 7)


def test_case_6_and_discarded_cases_and_weights(tmp_path):
    paths = files(tmp_path, src=["it rains ."], ref=["pleut ."], cand=["pleut ."], aref=["1-0 2-1"], acand=["1-0 2-1"])
    res = evaluate(*paths, no_heuristics())
    assert [o.case for o in res.occurrences] == [6]
    s = no_heuristics(cases=(1, 2, 3, 4, 5, 6), weights=(1, 0.5, 0, 0, 0, 1))
    assert evaluate(*paths, s).score == 1.0
    res = evaluate(*files(tmp_path), no_heuristics(cases=(1, 2, 3, 4), weights=(1, 1, 0, 0)))
    # cases 5 are dropped from numerator and denominator: (2 + 2) / 6
    assert res.score == pytest.approx(4 / 6)
    assert "Cases: 1,2,3,4\nWeights: 1.0,1.0,0.0,0.0\nFindings per case: 2,2,1,1\nTotal findings: 6\n" in format_score(res)


def test_other_counts_as_equal_only_when_asked(tmp_path):
    paths = files(tmp_path, src=["i like it ."], ref=["je l' aime ."], cand=["je la aime ."],
                  aref=["0-0 1-2 2-1 3-3"], acand=["0-0 1-2 2-1 3-3"])
    s = no_heuristics(count_other=False)
    res = evaluate(*paths, s)
    assert res.occurrences[0].ref.words == [OTHER] and res.occurrences[0].case == 3
    assert evaluate(*paths, no_heuristics(count_other=True)).occurrences[0].case == 1


def test_without_target_list_words_are_compared_directly(tmp_path):
    s = AptSettings(source_pronouns=["it", "they"])
    res = evaluate(*files(tmp_path), s)
    assert [o.case for o in res.occurrences][:3] == [1, 3, 3]
    assert res.occurrences[0].ref.words == ["il"]


def test_heuristic_keeps_pronoun_among_multiple_alignments(tmp_path):
    # step 1: "it" aligned to "qu'" and "il": a pronoun is among them, alignment kept
    paths = files(tmp_path, src=["so that it purifies ."], ref=["si bien qu' il purifie ."],
                  cand=["si bien qu' il purifie ."], aref=["0-0 0-1 1-2 2-2 2-3 3-4 4-5"],
                  acand=["0-0 0-1 1-2 2-2 2-3 3-4 4-5"])
    res = evaluate(*paths, french_settings())
    assert res.occurrences[0].ref.positions == [2, 3] and res.occurrences[0].ref.words == ["il"]
    assert not res.occurrences[0].improved_ref


def test_heuristic_table_1_unaligned_pronoun(tmp_path):
    # Table 1: "it" unaligned; markers: "that" -> qu' (7), "purifies" -> purifie (9);
    # range [6, 10]; candidates in range that are pronouns: il (8) and l' (10); closest to the centre 8: il
    src = "the system is so healthy that it purifies the water ."
    ref = "le système est si sain qu' il purifie l' eau ."
    al = "0-0 1-1 2-2 3-3 4-4 5-5 7-7 8-8 9-9 10-10"
    paths = files(tmp_path, src=[src], ref=[ref], cand=[ref], aref=[al], acand=[al])
    res = evaluate(*paths, french_settings())
    occ = res.occurrences[0]
    assert occ.improved_ref and occ.ref.positions == [6] and occ.ref.words == ["il"]
    assert occ.case == 1
    s = french_settings()
    s.improve_alignment = False
    assert evaluate(*paths, s).occurrences[0].case == 6


def test_heuristic_aligned_to_non_pronoun_and_other_pronouns_protected(tmp_path):
    # "it" aligned to "purifie": range around it [1, 3] contains "il" (2), added to the alignment
    paths = files(tmp_path, src=["it purifies"], ref=["qu' il purifie"], cand=["qu' il purifie"],
                  aref=["0-2 1-2"], acand=["0-2 1-2"])
    occ = evaluate(*paths, french_settings()).occurrences[0]
    assert occ.ref.positions == [1, 2] and occ.ref.words == ["il"]
    # the only candidate pronoun in range translates another source pronoun ("they"): not taken
    paths = files(tmp_path, src=["they say it purifies"], ref=["ils disent purifie"], cand=["ils disent purifie"],
                  aref=["0-0 1-1 3-2"], acand=["0-0 1-1 3-2"])
    res = evaluate(*paths, french_settings())
    it = [o for o in res.occurrences if o.pronoun == "it"][0]
    assert it.ref is None and it.case == 6


def test_score_and_detail_files_in_tool_layout(tmp_path):
    res = evaluate(*files(tmp_path), no_heuristics(count_other=False))
    score = format_score(res).splitlines()
    assert score[0] == "Score: 0.4286"
    header = score[5].split("\t")
    assert header[0] == "" and header[-1] == "-sum-" and NONE in header
    assert score[-1].startswith("-sum-\t") and score[-1].endswith("\t7")
    detail = format_detail(res).splitlines()
    assert detail[0] == "SENT.\tPOS. SOURCE\tSOURCE\tPOS. REF.\tREF.\tPOS. TARGET\tTARGET\tCASE"
    assert detail[4] == "3\t0\tthey\t0\tils\t-\t-\t4"


def test_matrix_truncation_with_ellipsis(tmp_path):
    s = no_heuristics(count_other=False)
    s.max_matrix = 2
    lines = format_score(evaluate(*files(tmp_path), s)).splitlines()
    assert lines[5].split("\t") == ["", lines[5].split("\t")[1], lines[5].split("\t")[2], "...", "-sum-"]
    assert lines[-1].split("\t")[-1] == "7"


INI = """[lang]
source: en
target: fr
source_word_separator:
target_word_separator:

[files]
source: {src}
reference: {ref}
target: {cand}
alignment_source_reference: {aref}
alignment_source_target: {acand}
list_source_pronouns: {slist}
input_type: word
list_target_pronouns: {tlist}

[dictionary]
equal: {equal}
similar: {similar}
source_pronouns:
target_pronouns:

[cases]
cases_to_use: 1,2,3,4,5,6
weigths_per_case: 1,0.5,0,0,0,0
count_OTHER_as_equal: false

[output]
output_file: {out}
counting_multiword_in_matrix: false
max_length_matrix = 10
"""


def make_ini(tmp_path, **over):
    src, ref, cand, aref, acand = files(tmp_path)
    values = dict(src=src, ref=ref, cand=cand, aref=aref, acand=acand,
                  slist=write(tmp_path / "slist", "it\nthey\n"),
                  tlist=write(tmp_path / "tlist", "il\nelle\nils\nelles\nce\nc'\non\nça\nç'\ncela\n"),
                  equal=write(tmp_path / "equal", "ce, c'\nça, ç', cela\n"),
                  similar=write(tmp_path / "similar", "ce,il\nce,ça\n"), out=tmp_path / "out")
    values.update(over)
    return write(tmp_path / "config.ini", INI.format(**values))


def test_ini_config_runs_like_the_flags(tmp_path):
    job = read_apt_config(make_ini(tmp_path))
    res = job.run()
    assert res.score == pytest.approx(3 / 7)
    assert (tmp_path / "out.score").read_text().startswith("Score: 0.4286\n")
    assert len((tmp_path / "out.detail").read_text().splitlines()) == 8
    # round trip: write the configuration back and read it again
    write_apt_config(job, tmp_path / "again.ini", {"list_source_pronouns": str(tmp_path / "slist"),
                                                   "list_target_pronouns": str(tmp_path / "tlist"),
                                                   "equal": str(tmp_path / "equal"),
                                                   "similar": str(tmp_path / "similar")})
    again = read_apt_config(tmp_path / "again.ini")
    assert again.settings == job.settings and again.source == job.source


def test_ini_position_input(tmp_path):
    pos = write(tmp_path / "positions", "0 0\n2 0\n")
    ini = make_ini(tmp_path, slist=pos)
    ini.write_text(ini.read_text().replace("input_type: word", "input_type: possition"))
    res = read_apt_config(ini).run()
    assert [(o.sentence, o.position) for o in res.occurrences] == [(0, 0), (2, 0)]


@pytest.mark.parametrize("edit, message, line", [
    (lambda t: t.replace("[cases]", "[cases"), "malformed", None),
    (lambda t: t.replace("input_type: word", "input_type: words"), "input_type must be", 14),
    (lambda t: t.replace("weigths_per_case: 1,0.5,0,0,0,0", "weigths_per_case: 1,0.5"), "6 cases but 2 weights", 25),
    (lambda t: t.replace("count_OTHER_as_equal: false", "count_OTHER_as_equal: maybe"), "true or false", 26),
    (lambda t: t.replace("[output]", "[outputs]"), "missing section", None),
])
def test_malformed_ini(tmp_path, edit, message, line):
    ini = make_ini(tmp_path)
    ini.write_text(edit(ini.read_text()))
    with pytest.raises(CadError, match=message) as err:
        read_apt_config(ini)
    assert err.value.path == str(ini)
    if line:
        assert err.value.line == line


def test_missing_files_and_bad_alignments(tmp_path):
    ini = make_ini(tmp_path, ref=tmp_path / "nope")
    with pytest.raises(CadError, match="does not exist") as err:
        read_apt_config(ini)
    assert err.value.line == 9
    paths = files(tmp_path, aref=AREF[:-1] + ["0-9"])
    with pytest.raises(CadError, match="out of range") as err:
        evaluate(*paths, french_settings())
    assert err.value.line == 7 and err.value.path.endswith("aref")
    paths = files(tmp_path, cand=CAND[:-1])
    with pytest.raises(CadError, match="lines but the source") as err:
        evaluate(*paths, french_settings())
    assert err.value.path.endswith("cand")


def test_no_findings_gives_nan_score(tmp_path):
    res = evaluate(*files(tmp_path, src=["hello ."], ref=["salut ."], cand=["salut ."], aref=["0-0"], acand=["0-0"]),
                   french_settings())
    assert math.isnan(res.score) and format_score(res).startswith("Score: nan")


def test_strict_and_feminine_counts():
    from cad.eval.apt import AptResult, Occurrence, Side
    from cad.eval.apt_settings import french_settings
    from cad.eval.report import strict_counts

    def side(*tokens):
        return Side(list(range(len(tokens))), list(tokens), list(tokens)) if tokens else None

    occ = [Occurrence(0, 0, "it", "it", side("elle"), side("elle")),        # feminine, right
           Occurrence(0, 1, "it", "it", side("elles"), side("ils")),        # feminine, wrong gender
           Occurrence(0, 2, "it", "it", side("c'"), side("ce")),            # strict: ce = c'
           Occurrence(0, 3, "it", "it", side("le"), side("la")),            # APT's OTHER = OTHER, not strict
           Occurrence(0, 4, "it", "it", None, None)]                        # NONE = NONE
    res = AptResult(french_settings(), occ, {c: 0 for c in range(1, 7)}, [], [])
    assert strict_counts(res) == {"strict": 3, "feminine": 1, "feminine_references": 2}


def _hand_worked_files(tmp_path):
    """Nine pronouns, their references and a candidate, with both alignments, as files: s, r, c, ar, ac."""
    src = ["it is big .", "it is a cat .", "it works .", "it is red .", "they sleep .", "they sleep .",
           "i saw it .", "it rains .", "i like it ."]
    # the last reference left the pronoun out and says so with the DiscoMT references' NONE
    ref = ["il est grand .", "c' est un chat .", "ça marche .", "elle est rouge .", "elles dorment .",
           "ils dorment .", "je l' ai vu .", "il pleut .", "j' aime NONE ."]
    cand = ["c' est grand .", "c' est un chat .", "c' marche .", "elle est rouge .", "ils dorment .",
            "ils dorment .", "je la ai vu .", "pleut .", "j' aime ."]
    aligns = ["0-0 1-1 2-2 3-3", "0-0 1-1 2-2 3-3 3-4", "0-0 1-1 2-2", "0-0 1-1 2-2 3-3", "0-0 1-1 2-2",
              "0-0 1-1 2-2", "0-0 2-1 1-2 1-3 3-4", "0-0 1-1 2-2", "0-0 1-1 2-2 3-3"]
    cand_al = aligns[:7] + ["1-0 2-1", "0-0 1-1 3-2"]
    files = {}
    for name, lines in (("s", src), ("r", ref), ("c", cand), ("ar", aligns), ("ac", cand_al)):
        files[name] = tmp_path / name
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return files


def test_strict_agreement_and_recall_by_reference_class_by_hand(tmp_path):
    """Nine pronouns counted by hand: strict agreement 4/9; recall per reference class; APT gives
    *ce* for *il* and for *ça* the C2 that strict agreement does not."""
    from cad.eval.report import System, build_report, class_agreement, to_markdown

    files = _hand_worked_files(tmp_path)
    report = build_report(str(files["s"]), str(files["r"]), str(files["ar"]),
                          [System("sys", str(files["c"]), str(files["ac"]))])
    row = report["systems"][0]
    rec = {g: (v["right"], v["references"]) for g, v in row["class_recall"].items()}
    # il: "il est grand" -> c' (wrong), "il pleut" -> nothing (wrong): 0/2; ce 1/1; ça -> c' 0/1;
    # elle 1/1; elles -> ils 0/1; ils 1/1; the clitic l' -> la 0/1 (APT's OTHER = OTHER, not strict)
    # and the pronoun both left out agrees: 1/1
    assert rec == {"il": (0, 2), "elle": (1, 1), "ils": (1, 1), "elles": (0, 1), "ce": (1, 1), "ça": (0, 1),
                   "clitic": (0, 1), "on": (0, 0), "other": (0, 0), "none": (1, 1)}
    assert row["strict"] == 4 and row["strict_agreement"] == pytest.approx(4 / 9)
    # C1: ce, elle, ils, the clitic (OTHER = OTHER); C2: ce for il, ce for ça; APT's C4 for the
    # candidate that left out what the reference left out (APT reads its NONE as a word)
    assert (row["cases"]["C1"], row["cases"]["C2"], row["cases"]["C4"]) == (4, 2, 2)
    assert row["acc_c1_c2"] == pytest.approx(6 / 9)
    assert math.isnan(class_agreement(type("R", (), {"occurrences": []})())["strict_agreement"])    # no pronoun
    md = to_markdown(report)
    head = md.splitlines()[0]
    assert head.index("strict agr.") < head.index("| il |") < head.index("| APT |") < head.index("C1+C2")
    assert "| sys | 0.444 (4) | 0/2 | 1/1 | 1/1 | 0/1 | 1/1 | 0/1 | 0/1 | 0/0 | 0/0 | 1/1 | 1/2 |" in md


def test_mcnemar_on_strict_agreement_and_the_feminine_references_by_hand(tmp_path):
    """The hand-worked example above against the reference itself: the reference is right on the
    five pronouns the candidate gets wrong and on none the other way, so McNemar's exact test gives
    2 × 0.5^5; over the two feminine references (elle right on both sides, elles → ils) one discordant
    pair, p = 1."""
    from cad.eval.report import System, build_report, to_markdown

    f = _hand_worked_files(tmp_path)
    report = build_report(str(f["s"]), str(f["r"]), str(f["ar"]),
                          [System("ref", str(f["r"]), str(f["ar"])), System("sys", str(f["c"]), str(f["ac"]))])
    base, row = report["systems"]
    assert base["strict"] == 9 and row["strict"] == 4
    mc = row["mcnemar_vs_ref"]
    assert mc["strict"] == pytest.approx(2 * 0.5 ** 5) and mc["feminine"] == 1.0
    md = to_markdown(report)
    assert "| p (strict) | p (elle/elles) | p (C1) | p (C1+C2) |" in md.splitlines()[0]
    assert "| 0.0625 | 1.0000 |" in md
