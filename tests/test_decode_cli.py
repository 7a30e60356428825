import subprocess
import sys

import pytest

from cad.core.errors import CadError
from cad.decoder.moses_runner import find_moses, parse_features, parse_segmented

from conftest import NO_MOSES, write
from decoder_fixtures import random_model


def run(args, stdin=""):
    return subprocess.run([sys.executable, "-m", "cad", *args], input=stdin, capture_output=True, text=True)


def test_decode_stdin_nbest_alignment_and_threads(tmp_path):
    ini, sents = random_model(tmp_path, 31)
    text = "\n".join(sents[:8]) + "\n"
    one = run(["decode", "-f", str(ini), "-n-best-list", str(tmp_path / "nb"), "5", "distinct",
               "-alignment-output-file", str(tmp_path / "al"), "-include-alignment-in-n-best"], text)
    assert one.returncode == 0, one.stderr
    assert len(one.stdout.splitlines()) == 8 and one.stderr == ""
    nb = (tmp_path / "nb").read_text().splitlines()
    assert nb[0].startswith("0 ||| ") and len(nb[0].split(" ||| ")) == 5
    assert {int(l.split(" ||| ")[0]) for l in nb} == set(range(8))
    assert len((tmp_path / "al").read_text().splitlines()) == 8
    two = run(["decode", "-f", str(ini), "-threads", "2", "-search-algorithm", "1"], text)
    cube = run(["decode", "-f", str(ini), "-search-algorithm", "1"], text)
    assert two.stdout == cube.stdout
    write(tmp_path / "in.txt", text)
    from_file = run(["decode", "-f", str(ini), "-input-file", str(tmp_path / "in.txt"), "-s", "50", "-b", "0.001",
                     "-dl", "3", "-ttable-limit", "5", "-cube-pruning-pop-limit", "500",
                     "-weight-overwrite", "LM0= 0.7 Distortion0= 0.1"])
    assert from_file.returncode == 0, from_file.stderr


def test_decode_errors(tmp_path):
    ini, _ = random_model(tmp_path, 32)
    r = run(["decode", "-f", str(ini), "-no-such-option"], "a\n")
    assert r.returncode == 2 and "unknown option" in r.stderr
    r = run(["decode", "-f", str(ini), "-weight-overwrite", "LM0= 1 2"], "a\n")
    assert r.returncode == 1 and "LM0 has 1 scores" in r.stderr
    r = run(["decode", "-f", str(ini), "-tot", "2"], "a\n")
    assert r.returncode == 1 and "-translation-option-threshold is a probability ratio" in r.stderr
    r = run(["decode", "-f", str(ini), "-max-trans-opt-per-coverage", "x"], "a\n")
    assert r.returncode == 1 and "needs an integer" in r.stderr
    r = run(["decode", "-f", str(tmp_path / "missing.ini")], "a\n")
    assert r.returncode == 1 and "missing.ini" in r.stderr
    r = run(["decode", "-f", str(ini), "--decoder", "moses", "--moses-bin", str(tmp_path / "nope")], "a\n")
    if find_moses() is None:
        assert r.returncode == 1 and "no Moses binary" in r.stderr


def test_moses_output_parsers():
    names, values = parse_features("LM0= -10.5 TranslationModel0= -1 -2 -3 -4 Distortion0= 0")
    assert names == [("LM0", 0, 1), ("TranslationModel0", 1, 4), ("Distortion0", 5, 1)]
    assert values == [-10.5, -1, -2, -3, -4, 0]
    words, steps = parse_segmented("le chat |0-1| dort |2-2|")
    assert words == ["le", "chat", "dort"]
    assert [(s.src_start, s.src_end, s.tgt_start, s.tgt_end) for s in steps] == [(0, 2, 0, 2), (2, 3, 2, 3)]


@pytest.mark.skipif(find_moses() is None, reason=NO_MOSES)
def test_real_moses_agrees_with_cad(tmp_path):
    ini, sents = random_model(tmp_path, 33)
    cad_out = run(["decode", "-f", str(ini)], "\n".join(sents[:5]) + "\n")
    moses_out = run(["decode", "-f", str(ini), "--decoder", "moses"], "\n".join(sents[:5]) + "\n")
    assert moses_out.returncode == 0, moses_out.stderr
    assert cad_out.stdout == moses_out.stdout


def test_command_line_distortion_limit_overrides_the_moses_ini(tmp_path):
    """-dl (and -distortion-limit) win over the moses.ini's [distortion-limit], as in Moses, read
    from a file or from standard input: with -dl 0 every translation is monotone."""
    ini, sents = random_model(tmp_path, 44, n_sentences=30, weights={"Distortion0": [0.0]})   # [distortion-limit] 6
    text = "\n".join(sents) + "\n"
    inp = write(tmp_path / "in", text)

    def spans(out: str) -> list[list[tuple[int, int]]]:
        return [[(s.src_start, s.src_end) for s in parse_segmented(line)[1]] for line in out.splitlines()]

    free = run(["decode", "-f", str(ini), "-input-file", str(inp), "-t"])
    assert any(s != sorted(s) for s in spans(free.stdout))                 # the model reorders at limit 6
    for args, stdin in ((["-input-file", str(inp), "-dl", "0"], ""), (["-distortion-limit", "0"], text),
                        (["-input-file", str(inp), "-dl", "0", "-search-algorithm", "1"], "")):
        r = run(["decode", "-f", str(ini), "-t", *args], stdin)
        assert r.returncode == 0, r.stderr
        assert all(s == sorted(s) for s in spans(r.stdout)) and len(r.stdout.splitlines()) == len(sents)


def test_nbest_with_segmentation_in_moses_layout_and_alignment_order(tmp_path):
    """-report-segmentation marks the n-best entries' phrases too (as Moses does), the entry's own
    alignment is spelt -print-alignment-info-in-n-best (Moses's switch) and printed in Moses's
    order: phrase by phrase in target order, each phrase's points by source then target position."""
    ini, sents = random_model(tmp_path, 45, weights={"Distortion0": [0.0]})
    inp = write(tmp_path / "in", "\n".join(sents) + "\n")
    r = run(["decode", "-f", str(ini), "-input-file", str(inp), "-t", "-n-best-list", str(tmp_path / "nb"), "5",
             "-print-alignment-info-in-n-best", "-alignment-output-file", str(tmp_path / "al")])
    assert r.returncode == 0, r.stderr
    lines = (tmp_path / "nb").read_text().splitlines()
    firsts = {}
    for line in lines:
        sid, text, _, _, points = line.split(" ||| ")
        words, steps = parse_segmented(text)
        assert steps and sum(len(s.words) for s in steps) == len(words)
        pts = [tuple(map(int, p.split("-"))) for p in points.split()]
        # each point falls in its phrase; phrases in target order, points by (source, target) inside one
        groups = [[p for p in pts if st.tgt_start <= p[1] < st.tgt_end] for st in steps]
        assert [p for g in groups for p in g] == pts
        assert all(g == sorted(g) and all(st.src_start <= s < st.src_end for s, _ in g) for g, st in zip(groups, steps))
        firsts.setdefault(sid, (words, points))
    best = r.stdout.splitlines()
    assert [parse_segmented(b)[0] for b in best] == [firsts[str(k)][0] for k in range(len(sents))]
    assert (tmp_path / "al").read_text().splitlines() == [firsts[str(k)][1] for k in range(len(sents))]
    # the older spelling is the same switch
    old = run(["decode", "-f", str(ini), "-input-file", str(inp), "-t", "-n-best-list", str(tmp_path / "nb2"), "5",
               "-include-alignment-in-n-best"])
    assert old.returncode == 0 and (tmp_path / "nb2").read_text().splitlines() == lines


def test_the_options_are_declared_once_and_every_spelling_parses_alike():
    from cad.cli.decode_options import OPTIONS, USAGE, DecodeArgs, parse_args

    values = {"N": "3", "X": "0.5", "0|1": "1", "cad|moses": "moses", "native|python": "python",
              "split|pass": "pass", "FILE N [distinct]": ["nb", "4", "distinct"]}
    for o in OPTIONS:
        assert all(name in USAGE for name in o.names), o.names
        got = []
        for name in o.names:
            v = values.get(o.values, "x") if o.values else None
            args = [name, *(v if isinstance(v, list) else [v] if v is not None else [])]
            a = parse_args(["-f", "m.ini", *args] if o.names[0] != "-f" else args)
            got.append(vars(a))
        # each spelling sets the same fields to the same values, and changes them from the default
        assert all(g == got[0] for g in got), o.names
        assert got[0] != vars(DecodeArgs(config="m.ini")) or o.names[0] == "-f"
    with pytest.raises(CadError, match="unknown option -nope"):
        parse_args(["-f", "m.ini", "-nope"])
    with pytest.raises(CadError, match="option -s needs a value"):
        parse_args(["-f", "m.ini", "-s"])


def test_decoding_loads_no_numpy(tmp_path):
    """Plain decoding imports neither numpy nor what comes with it: OpenBLAS's threads, started by
    the import, competed with the search for the cores (a fifth of a 2-core run's samples)."""
    ini, sents = random_model(tmp_path, 33, n_sentences=2)
    write(tmp_path / "in", "\n".join(sents) + "\n")
    code = ("import sys; from cad.cli import main; "
            f"main(['-q', 'decode', '-f', {str(ini)!r}, '-input-file', {str(tmp_path / 'in')!r}]); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'scipy', 'sklearn', 'torch')), "
            "file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stderr.strip() == "[]", out.stderr
    assert len(out.stdout.splitlines()) == 2
