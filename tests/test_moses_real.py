"""cad's decoder against the real Moses (the shared build, ../shared/tools/moses, or $MOSES): Moses
reads the tables and moses.ini cad writes, and under the same moses.ini both decoders give the same
1-best, n-best lists, segmentations and word alignments, with model scores within 1e-4 of what
Moses prints. Skipped where there is no Moses binary.

Moses prints scores with C++'s default stream precision, six significant digits (-123.333), and has
no switch for more; a score is compared to within 1e-4 plus half a unit of the last digit Moses
printed. Two documented differences of layout are allowed, not more: Moses leaves the
non-tuneable UnknownWordPenalty out of its n-best feature lists (cad prints it), and Moses ends the
text and the alignment fields with a space."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from cad.decoder.moses_runner import find_moses, parse_features

from conftest import NO_MOSES, REPO, write
from decoder_fixtures import random_model

MOSES = find_moses()
pytestmark = pytest.mark.skipif(MOSES is None, reason=NO_MOSES)
FLAGS = ["-report-segmentation", "-print-alignment-info-in-n-best"]


@dataclass
class Entry:
    sent: int
    text: str
    features: dict[str, list[float]]
    total: float
    alignment: str


def read_nbest(path: Path) -> list[Entry]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        f = line.split(" ||| ")
        names, values = parse_features(f[2])
        out.append(Entry(int(f[0]), f[1].strip(), {n: values[s:s + k] for n, s, k in names}, float(f[3]),
                         f[4].strip() if len(f) > 4 else ""))
    return out


def printed(x: float) -> float:
    """Half a unit of the last of the six significant digits Moses prints x with."""
    return 0.5 * 10 ** (math.floor(math.log10(abs(x))) - 5) if x else 0.0


def close(cad: float, moses: float) -> bool:
    return abs(cad - moses) <= 1e-4 + printed(moses)


def decode(tmp: Path, tag: str, ini: Path, inp: Path, nbest: int, extra: list[str], moses: bool) -> dict:
    """One run of the real Moses or of `cad decode`, with the same command line."""
    args = ["-f", str(ini), "-input-file", str(inp), *FLAGS, "-alignment-output-file", str(tmp / f"{tag}.al"),
            "-n-best-list", str(tmp / f"{tag}.nb"), str(nbest), *extra]
    cmd = [MOSES, *args] if moses else [sys.executable, "-m", "cad", "decode", *args]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    return {"out": r.stdout.splitlines(), "al": [l.rstrip() for l in (tmp / f"{tag}.al").read_text().splitlines()],
            "nb": read_nbest(tmp / f"{tag}.nb")}


@dataclass
class Agreement:
    sentences: int = 0
    same_best: int = 0
    moses_search_errors: int = 0     # Moses's 1-best scores below cad's
    cad_search_errors: int = 0       # cad's 1-best scores below Moses's
    ties: int = 0                    # different 1-best, the same model score


def compare(cad: dict, moses: dict) -> Agreement:
    """Where the 1-best agree, the segmentation, the alignment and the whole n-best list must agree
    (texts, alignments, every feature Moses prints, totals); where they differ, the better model
    score says which decoder made a search error."""
    a = Agreement(sentences=len(moses["out"]))
    assert len(cad["out"]) == a.sentences
    best = {e.sent: e for e in reversed(moses["nb"])}, {e.sent: e for e in reversed(cad["nb"])}
    by_sent_m, by_sent_c = {}, {}
    for e in moses["nb"]:
        by_sent_m.setdefault(e.sent, []).append(e)
    for e in cad["nb"]:
        by_sent_c.setdefault(e.sent, []).append(e)
    for k in range(a.sentences):
        m, c = best[0][k], best[1][k]
        if cad["out"][k] != moses["out"][k]:
            if close(c.total, m.total):
                a.ties += 1
            elif c.total > m.total:
                a.moses_search_errors += 1
            else:
                a.cad_search_errors += 1
            continue
        a.same_best += 1
        assert cad["al"][k] == moses["al"][k], k
        assert len(by_sent_c[k]) == len(by_sent_m[k]), k
        for ec, em in zip(by_sent_c[k], by_sent_m[k]):
            assert (ec.text, ec.alignment) == (em.text, em.alignment), (k, ec.text, em.text)
            assert close(ec.total, em.total), (k, ec.total, em.total)
            assert set(ec.features) - set(em.features) == {"UnknownWordPenalty0"}
            for name, values in em.features.items():
                assert len(values) == len(ec.features[name])
                assert all(close(x, y) for x, y in zip(ec.features[name], values)), (k, name)
    return a


@pytest.mark.parametrize("seed,extra", [(41, []), (42, ["-search-algorithm", "1"]),
                                        (43, ["-search-algorithm", "1", "-cube-pruning-pop-limit", "50"]),
                                        (44, ["-dl", "2"])])
def test_moses_reads_cads_tables_and_decodes_as_cad(tmp_path, seed, extra):
    """A random model written by cad (plain phrase and reordering tables, cad's ARPA, cad's moses.ini):
    the real Moses loads it and both decoders write the same 1-best (byte for byte, with Moses's
    segmentation layout), word alignments and 20-best lists, with either search algorithm."""
    ini, sents = random_model(tmp_path, seed)
    inp = write(tmp_path / "in", "".join(s + "\n" for s in sents))
    cad = decode(tmp_path, "cad", ini, inp, 20, extra, moses=False)
    moses = decode(tmp_path, "moses", ini, inp, 20, extra, moses=True)
    assert cad["out"] == moses["out"]
    a = compare(cad, moses)
    assert a.same_best == a.sentences == len(sents)


@pytest.mark.parametrize("seed,extra", [(51, []), (52, ["-search-algorithm", "1"]), (53, ["-dl", "2"])])
def test_moses_decodes_a_model_with_two_lms_as_cad(tmp_path, seed, extra):
    """Two language models (LM0, and LM1 of another order and vocabulary, as `cad moses-ini add-lm`
    writes it): the real Moses reads the moses.ini, scores each LM as a feature of its own, and both
    decoders write the same 1-best, alignments and 20-best lists, LM0= and LM1= in the same place."""
    ini, sents = random_model(tmp_path, seed, extra_lms=1, weights={"LM1": [0.35]})
    inp = write(tmp_path / "in", "".join(s + "\n" for s in sents))
    cad = decode(tmp_path, "cad", ini, inp, 20, extra, moses=False)
    moses = decode(tmp_path, "moses", ini, inp, 20, extra, moses=True)
    assert cad["out"] == moses["out"]
    a = compare(cad, moses)
    assert a.same_best == a.sentences == len(sents)
    # Moses lists its stateful features first (cad: moses.ini order); the two LMs side by side either way
    for run in (moses, cad):
        for e in run["nb"]:
            names = list(e.features)
            assert names.index("LM1") == names.index("LM0") + 1


@pytest.fixture(scope="module")
def dev_slice(tmp_path_factory, request):
    """The trained baseline (make train; models/baseline) filtered to the first 12 dev sentences,
    truecased as cad translate would."""
    from conftest import SHARED

    ini = REPO / "models" / "baseline" / "moses.ini"
    if not ini.exists():
        pytest.skip(f"no trained model at {ini} (make train, or a link to one)")
    if not (SHARED / "en-fr" / "dev.en").exists():
        pytest.skip(f"no dev talks at {SHARED / 'en-fr'} (set CAD_SHARED_DATA)")
    from cad.corpus.truecase import ModelCase
    from cad.moses.filter import filter_model

    tmp = tmp_path_factory.mktemp("dev")
    case = ModelCase.of(ini, "en", "fr")
    with open(SHARED / "en-fr" / "dev.en", encoding="utf-8") as fh:
        sents = [case.source_line(next(fh)) for _ in range(12)]
    inp = write(tmp / "in", "".join(s + "\n" for s in sents))
    return Path(filter_model(ini, inp, tmp / "model").source), inp, sents


def test_moses_route_on_dev_sentences_equals_cad_decode(dev_slice, tmp_path):
    """The dev model, cube pruning with pop limit 1000 (the bench's settings): Moses and cad give the
    same 1-best, alignments and 10-best lists with scores within 1e-4 (no search error on these
    sentences); `cad decode --decoder moses` reads Moses's output back into the same lines."""
    ini, inp, sents = dev_slice
    extra = ["-search-algorithm", "1", "-cube-pruning-pop-limit", "1000"]
    cad = decode(tmp_path, "cad", ini, inp, 10, extra, moses=False)
    moses = decode(tmp_path, "moses", ini, inp, 10, extra, moses=True)
    a = compare(cad, moses)
    assert a == Agreement(sentences=12, same_best=12), a
    assert cad["out"] == moses["out"]
    # the route through cad: the same lines, the same alignments; its n-best list carries Moses's scores
    r = subprocess.run([sys.executable, "-m", "cad", "decode", "--decoder", "moses", "-f", str(ini),
                        "-input-file", str(inp), "-alignment-output-file", str(tmp_path / "route.al"),
                        "-n-best-list", str(tmp_path / "route.nb"), "10", "-print-alignment-info-in-n-best",
                        *extra], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    plain = subprocess.run([sys.executable, "-m", "cad", "decode", "-f", str(ini), "-input-file", str(inp), *extra],
                           capture_output=True, text=True)
    assert r.stdout == plain.stdout and len(r.stdout.splitlines()) == 12
    assert (tmp_path / "route.al").read_text().splitlines() == cad["al"]
    route = read_nbest(tmp_path / "route.nb")
    assert [(e.sent, e.text, e.alignment) for e in route] == \
           [(e.sent, " ".join(w for w in e.text.split() if not w.startswith("|")), e.alignment) for e in moses["nb"]]
    assert all(e.total == m.total for e, m in zip(route, moses["nb"]))
    # the reranker (cad cm rerank) reads Moses's own list: its words without the |i-j| marks
    from cad.decoder.moses_runner import parse_segmented
    from cad.translate.rerank import read_nbest as read_for_rerank

    hyps = read_for_rerank(tmp_path / "moses.nb")
    assert [h.words for hs in hyps for h in hs] == [parse_segmented(e.text)[0] for e in moses["nb"]]
    assert [sorted(h.alignment) for hs in hyps for h in hs] == \
        [sorted(tuple(map(int, p.split("-"))) for p in e.alignment.split()) for e in moses["nb"]]


def test_moses_decodes_the_dev_model_with_an_in_domain_lm_as_cad(dev_slice, tmp_path):
    """The dev model with a second LM as Moses users add one for the domain: LM1 of order 5 on the
    TED talks of the model's corpus (cad lm, cad moses-ini add-lm). Moses and cad, cube pruning with
    pop limit 1000, give the same 1-best, alignments and 10-best lists with LM0 and LM1 within print
    precision; a sentence whose two best derivations score the same to Moses's six digits may end on
    either (a tie), neither decoder finds a better-scoring one than the other."""
    from cad.lm.train import train_lm

    ini, inp, sents = dev_slice
    model = REPO / "models" / "baseline"
    lines = (model / "corpus.fr").read_text(encoding="utf-8").splitlines()
    docs = [row.split("\t") for row in (model / "corpus.docs").read_text(encoding="utf-8").splitlines()]
    ted = [line for k, (first, doc) in enumerate(docs) if doc.startswith("sated:")
           for line in lines[int(first):int(docs[k + 1][0]) if k + 1 < len(docs) else len(lines)]]
    assert len(ted) > 1000
    train_lm(write(tmp_path / "ted.fr", "".join(f"{line}\n" for line in ted)), tmp_path / "lm.ted.arpa", 5)
    two = tmp_path / "two.ini"
    r = subprocess.run([sys.executable, "-m", "cad", "moses-ini", "add-lm", "--config", str(ini), "--lm",
                        str(tmp_path / "lm.ted.arpa"), "--out", str(two)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    extra = ["-search-algorithm", "1", "-cube-pruning-pop-limit", "1000"]
    cad = decode(tmp_path, "cad", two, inp, 10, extra, moses=False)
    moses = decode(tmp_path, "moses", two, inp, 10, extra, moses=True)
    a = compare(cad, moses)
    assert a.same_best + a.ties == a.sentences == 12 and a.same_best >= 10, a
    assert all("LM1" in e.features for e in moses["nb"] + cad["nb"])


def arpa_entries(path: Path) -> dict[tuple[int, str], tuple[float, float]]:
    """{(order, n-gram): (log10 probability, log10 back-off, 0 where none is written)}."""
    out, n = {}, 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("\\") and line.endswith("-grams:"):
            n = int(line[1:line.index("-")])
        elif n and line and not line.startswith("\\"):
            f = line.split("\t")
            out[(n, f[1])] = (float(f[0]), float(f[2]) if len(f) > 2 else 0.0)
    return out


def test_cad_lm_equals_lmplz_on_a_slice_of_the_corpus(shared_data, tmp_path):
    """cad lm --order 5 and KenLM's lmplz -o 5 (beside the Moses binary) on the first 3,000 French
    lines of the shared corpus: the same n-grams, <s> and <unk> included, every log10 probability and
    back-off equal to the precision lmplz prints (8 significant digits; cad prints 9)."""
    from cad.cli import main

    lmplz = Path(MOSES).with_name("lmplz")
    if not lmplz.exists():
        pytest.skip(f"no lmplz beside {MOSES}")
    with open(shared_data / "en-fr" / "train.fr", encoding="utf-8") as fh:
        text = write(tmp_path / "text", "".join(next(fh) for _ in range(3000)))
    assert main(["-q", "lm", "--text", str(text), "--order", "5", "--out", str(tmp_path / "cad.arpa")]) == 0
    with open(text, encoding="utf-8") as fh, open(tmp_path / "lmplz.arpa", "w", encoding="utf-8") as out:
        r = subprocess.run([str(lmplz), "-o", "5", "-S", "200M", "-T", str(tmp_path)], stdin=fh, stdout=out,
                           stderr=subprocess.PIPE, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    ours, theirs = arpa_entries(tmp_path / "cad.arpa"), arpa_entries(tmp_path / "lmplz.arpa")
    assert ours.keys() == theirs.keys() and (1, "<s>") in ours and (1, "<unk>") in ours
    assert len(ours) > 50_000
    for key, (p, b) in theirs.items():
        q, c = ours[key]
        assert abs(p - q) <= 1e-6 + 1e-7 * abs(p) and abs(b - c) <= 1e-6 + 1e-7 * abs(b), (key, ours[key], theirs[key])


def moses_tables(tmp: Path, src: Path, tgt: Path, align: Path, lex: str) -> tuple[Path, Path]:
    """Steps 5-7 of Moses's train-model.perl with the real programs, on cad's alignment and lexical
    tables: extract (max phrase length 7, wbe-msd orientation), LC_ALL=C sort, score both ways,
    consolidate, lexical-reordering-score (wbe-msd-bidirectional-fe, smoothing 0.5)."""
    bin_dir = Path(MOSES).parent
    env = {"LC_ALL": "C", "PATH": "/usr/bin:/bin"}

    def call(*cmd: str) -> None:
        r = subprocess.run([str(c) for c in cmd], cwd=tmp, capture_output=True, text=True, env=env)
        assert r.returncode == 0, (cmd, r.stderr[-2000:])

    call(bin_dir / "extract", tgt, src, align, "extract", "7", "orientation", "--model", "wbe-msd")
    for name in ("extract", "extract.inv", "extract.o"):
        call("sort", "-o", f"{name}.sorted", name)
    call(bin_dir / "score", "extract.sorted", f"{lex}.f2e", "half.f2e")
    call(bin_dir / "score", "extract.inv.sorted", f"{lex}.e2f", "half.e2f", "--Inverse")
    call("sort", "-o", "half.e2f.sorted", "half.e2f")
    call(bin_dir / "consolidate", "half.f2e", "half.e2f.sorted", "phrase-table")
    call(bin_dir / "lexical-reordering-score", "extract.o.sorted", "0.5", "reordering-table.", "--model",
         "wbe msd wbe-msd-bidirectional-fe")
    return tmp / "phrase-table", tmp / "reordering-table.wbe-msd-bidirectional-fe.gz"


def table(path: Path) -> dict[tuple[str, str], list[str]]:
    import gzip

    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return {tuple(f[:2]): [x.strip() for x in f[2:]] for f in (line.rstrip("\n").split(" ||| ") for line in fh)}


def test_phrase_and_reordering_tables_equal_moses_training_on_a_slice(tmp_path):
    """cad lex + cad extract against Moses's extract, score, consolidate and lexical-reordering-score
    on the first 1,500 pairs of the trained model's corpus, with cad's alignment and lexical tables:
    the same phrase pairs, word alignments and counts, the four scores equal to the precision Moses
    prints (six significant digits; Moses computes in single precision), the six reordering
    probabilities within 1e-6 (Moses prints six decimals)."""
    from cad.cli import main

    model = REPO / "models" / "baseline"
    if not (model / "aligned.grow-diag-final-and").exists():
        pytest.skip(f"no trained model at {model} (make train, or a link to one)")
    names = {"c.en": "corpus.en", "c.fr": "corpus.fr", "c.al": "aligned.grow-diag-final-and"}
    for mine, theirs in names.items():
        with open(model / theirs, encoding="utf-8") as fh:
            write(tmp_path / mine, "".join(next(fh) for _ in range(1500)))
    src, tgt, al = tmp_path / "c.en", tmp_path / "c.fr", tmp_path / "c.al"
    assert main(["-q", "lex", "--src", str(src), "--tgt", str(tgt), "--align", str(al), "--out",
                 str(tmp_path / "lex")]) == 0
    assert main(["-q", "extract", "--src", str(src), "--tgt", str(tgt), "--align", str(al), "--lex",
                 str(tmp_path / "lex"), "--phrase-table", str(tmp_path / "cad.pt.gz"), "--reordering-table",
                 str(tmp_path / "cad.ro.gz")]) == 0
    moses_dir = tmp_path / "moses"
    moses_dir.mkdir()
    moses_pt, moses_ro = moses_tables(moses_dir, src, tgt, al, str(tmp_path / "lex"))
    ours, theirs = table(tmp_path / "cad.pt.gz"), table(moses_pt)
    assert ours.keys() == theirs.keys() and len(ours) > 100_000
    for key, (scores, alignment, counts, *_) in theirs.items():
        mine = ours[key]
        assert (mine[1], mine[2]) == (alignment, counts), key
        for x, y in zip(map(float, mine[0].split()), map(float, scores.split())):
            assert abs(x - y) <= printed(x) + printed(y) + 2e-7 * abs(y), (key, mine[0], scores)
    ours, theirs = table(tmp_path / "cad.ro.gz"), table(moses_ro)
    assert ours.keys() == theirs.keys()
    worst = max(abs(float(x) - float(y)) for k, v in theirs.items() for x, y in zip(ours[k][0].split(), v[0].split()))
    assert worst <= 1e-6, worst


@pytest.mark.slow
def test_translate_through_the_real_moses_on_two_dev_talks_equals_cads_decoder(shared_data, tmp_path):
    """cad translate on the first 60 dev sentences cut into two documents, with the trained model:
    --system baseline and --system cm --cm-mode rerank (the class CM of make cm, coreference by the
    sieve), through the real Moses (one persistent process, n-best lists for the reranking) and
    through cad's decoder: the same translations and word alignments."""
    from cad.cli import main

    ini, classes = REPO / "models" / "baseline" / "moses.ini", REPO / "tables" / "baseline" / "classes.gz"
    if not ini.exists() or not classes.exists():
        pytest.skip(f"needs the trained model {ini} and the class CM {classes} (make train cm, or links)")
    with open(shared_data / "en-fr" / "dev.en", encoding="utf-8") as fh:
        inp = write(tmp_path / "in", "".join(next(fh) for _ in range(60)))
    docs = write(tmp_path / "docs", "0\ta\n30\tb\n")
    got = {}
    for system, extra in (("baseline", []), ("cm", ["--cm-mode", "rerank", "--classes", str(classes)])):
        for decoder in ("cad", "moses"):
            out, al = tmp_path / f"{system}.{decoder}", tmp_path / f"{system}.{decoder}.al"
            assert main(["-q", "translate", "--config", str(ini), "--input", str(inp), "--docs", str(docs),
                         "--system", system, "--backend", "sieve", "--decoder", decoder, "--out", str(out),
                         "--alignment-out", str(al), *extra]) == 0
            got[system, decoder] = (out.read_text(encoding="utf-8"), al.read_text(encoding="utf-8"))
        assert got[system, "moses"] == got[system, "cad"], system
    assert len(got["cm", "cad"][0].splitlines()) == 60
    assert got["cm", "cad"][0] != got["baseline", "cad"][0]          # the CM changed some pronoun


def test_a_kenlm_binary_from_build_binary_decodes_as_its_arpa(tmp_path):
    """KenLM's build_binary (beside the Moses binary) turns cad's ARPA file into KenLM's binary
    format: cad decode and Moses read it and translate as with the ARPA file."""
    build_binary = Path(MOSES).with_name("build_binary")
    if not build_binary.exists():
        pytest.skip(f"no build_binary beside {MOSES}")
    ini, sents = random_model(tmp_path, 46)
    r = subprocess.run([str(build_binary), str(tmp_path / "lm.arpa"), str(tmp_path / "lm.bin")], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    binary_ini = write(tmp_path / "bin.ini", ini.read_text().replace(str(tmp_path / "lm.arpa"), str(tmp_path / "lm.bin")))
    assert "lm.bin" in binary_ini.read_text()
    inp = write(tmp_path / "in", "".join(s + "\n" for s in sents))
    runs = {(name, moses): decode(tmp_path, f"{name}.{moses}", path, inp, 5, [], moses)
            for name, path in (("arpa", ini), ("bin", binary_ini)) for moses in (False, True)}
    for moses in (False, True):
        assert runs["bin", moses]["out"] == runs["arpa", moses]["out"]
        assert [e.total for e in runs["bin", moses]["nb"]] == pytest.approx([e.total for e in runs["arpa", moses]["nb"]],
                                                                           abs=1e-4)
    assert compare(runs["bin", False], runs["bin", True]).same_best == len(sents)
