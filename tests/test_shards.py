"""Corpus stages in shards (issue 19): the same bytes from one process, from a LocalCluster of
--workers 2 and from an existing dask.distributed cluster (--scheduler); a killed or failed run
resumes from its finished shards; a shard whose input changed is run again; errors are CadErrors
that name the shard, the file and the line."""

import gzip
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cad.cli import main
from cad.core.errors import CadError
from cad.core.shards import Parallel, plan_shards
from cad.train.lexical import write_lexical_tables
from cad.train.phrase_scoring import build_phrase_tables

from conftest import REPO, SHARED, write

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    """An existing Dask cluster on this machine, as --scheduler finds one: two worker processes."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as c:
        yield c.scheduler_address


def _corpus(d: Path, n: int, seed: int = 7) -> Path:
    """A made-up aligned corpus (PREFIX.en, PREFIX.fr, PREFIX.al) of n pairs, with its lexical tables
    (PREFIX.lex.f2e, PREFIX.lex.e2f)."""
    rng = random.Random(seed)
    en, fr, al = [], [], []
    for k in range(n):
        m = rng.randint(3, 9)
        src = [f"e{rng.randint(0, 40)}" for _ in range(m)]
        tgt = [f"f{rng.randint(0, 40)}" for _ in range(m + rng.randint(-1, 2))]
        pts = sorted({(i, min(len(tgt) - 1, i + rng.randint(-1, 1) if i else 0)) for i in range(m)
                      if rng.random() < 0.85})
        en.append(" ".join(src))
        fr.append(" ".join(tgt))
        al.append(" ".join(f"{i}-{j}" for i, j in pts))
    prefix = d / "corpus"
    write(d / "corpus.en", "\n".join(en) + "\n")
    write(d / "corpus.fr", "\n".join(fr) + "\n")
    write(d / "corpus.al", "\n".join(al) + "\n")
    write_lexical_tables(f"{prefix}.en", f"{prefix}.fr", f"{prefix}.al", f"{prefix}.lex")
    return prefix


def _break(prefix: Path, lineno: int, fix: bool = False) -> None:
    """Give line `lineno` (1-based) of the alignment a point outside its sentence, or take it away."""
    path = Path(f"{prefix}.al")
    lines = path.read_text().splitlines()
    lines[lineno - 1] = lines[lineno - 1].removesuffix(" 99-0") if fix else lines[lineno - 1] + " 99-0"
    path.write_text("\n".join(lines) + "\n")


def _extract_args(prefix: Path, out: Path, *extra: str) -> list[str]:
    return ["-q", "extract", "--src", f"{prefix}.en", "--tgt", f"{prefix}.fr", "--align", f"{prefix}.al",
            "--lex", f"{prefix}.lex", "--phrase-table", str(out / "pt.gz"), "--reordering-table",
            str(out / "ro.gz"), *extra]


def _tables(out: Path) -> tuple[bytes, bytes]:
    # the tables' text: the gzip bytes also depend on the blocks each engine writes
    return gzip.decompress((out / "pt.gz").read_bytes()), gzip.decompress((out / "ro.gz").read_bytes())


def _reference_tables(prefix: Path, out: Path) -> tuple[bytes, bytes]:
    """The tables of one process without shards (the code path that existed before them)."""
    build_phrase_tables(f"{prefix}.en", f"{prefix}.fr", f"{prefix}.al", f"{prefix}.lex", str(out / "pt.gz"),
                        str(out / "ro.gz"))
    return _tables(out)


# -- the plan ------------------------------------------------------------------------------------

def test_shards_are_whole_documents_cut_by_the_corpus_alone():
    starts = [0, 3, 4, 10, 11, 12, 20]
    shards = plan_shards(25, starts, 5)
    assert [(s.first_doc, s.end_doc, s.first_line, s.end_line) for s in shards] == [
        (0, 3, 0, 10), (3, 6, 10, 20), (6, 7, 20, 25)]
    assert all(s.end_line in starts + [25] for s in shards)     # never inside a document
    assert [s.describe() for s in shards][0] == "documents 0-2, lines 1-10"
    # a document longer than a shard is one shard; without documents, shards of N lines
    assert [(s.first_line, s.end_line) for s in plan_shards(9, [0, 1], 3)] == [(0, 9)]
    assert [(s.first_line, s.end_line) for s in plan_shards(7, None, 3)] == [(0, 3), (3, 6), (6, 7)]
    assert plan_shards(0, [], 3) == [] and plan_shards(0, None, 3) == []


def test_document_starts_read_as_a_compact_array(tmp_path):
    """The sharded stages keep only the documents' first lines (an array), and cut the same shards
    and refuse the same files as from read_docs's records."""
    from array import array

    from cad.core.docs import doc_starts, read_docs

    docs = write(tmp_path / "c.docs", "0\ta\n3\tb\n4\n10 d\n11\te\n12\tf\n20\tg\n")
    starts = doc_starts(docs, 25)
    assert isinstance(starts, array) and list(starts) == [d.first_line for d in read_docs(docs, 25)]
    assert read_docs(docs)[2].doc_id == "2" and read_docs(docs)[3].doc_id == "d"
    assert plan_shards(25, starts, 5) == plan_shards(25, list(starts), 5)
    for text, n, message in (("0\ta\n3\tb\n3\tc\n", None, "not after the previous one (3)"),
                             ("1\ta\n", None, "must start at line 0"),
                             ("0\ta\n30\tb\n", 25, "past the corpus end")):
        bad = write(tmp_path / "bad.docs", text)
        for reader in (doc_starts, read_docs):
            with pytest.raises(CadError, match=message.replace("(", r"\(").replace(")", r"\)")):
                reader(bad, n)


# -- phrase extraction (made-up corpus) ----------------------------------------------------------

def test_extraction_same_tables_from_one_two_workers_and_a_cluster(tmp_path, cluster, caplog):
    caplog.set_level("INFO")
    prefix = _corpus(tmp_path, 400)
    ref = _reference_tables(prefix, tmp_path / "ref")
    runs = {"1 worker": ("--workers", "1"), "2 workers": ("--workers", "2"), "cluster": ("--scheduler", cluster)}
    for name, opts in runs.items():
        out = tmp_path / name.replace(" ", "-")
        assert main(_extract_args(prefix, out, *opts, "--shard-lines", "60")) == 0, name
        assert _tables(out) == ref, name
        assert sorted(p.name for p in out.iterdir()) == ["pt.gz", "ro.gz"], name   # shards removed
        # the fixture's cluster keeps Dask's profiler on, and the user is told what it costs
        warned = [r for r in caplog.records if "profiler is on in 2 of the workers" in r.getMessage()]
        assert bool(warned) == (name == "cluster"), name
        caplog.clear()
    # the Python engine's shards (text runs of its own) give the same tables again
    out = tmp_path / "python"
    assert main(_extract_args(prefix, out, "--workers", "1", "--shard-lines", "130", "--engine", "python")) == 0
    assert _tables(out) == ref


def _busy(seconds: float) -> int:
    t, n = time.time(), 0
    while time.time() - t < seconds:
        n += sum(range(100))
    return n


def test_local_workers_keep_no_profile():
    """Dask's profiler keeps a call tree for every second a task ran; over a long stage that was
    hundreds of MiB a worker. The cluster --workers starts has it off; a plain LocalCluster has it on."""
    from distributed import Client, LocalCluster

    from cad.core.shards.run import local_cluster

    def history(dask_worker):
        return len(dask_worker.profile_history)

    for make, expect_profile in ((local_cluster, False),
                                 (lambda n: LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                                         dashboard_address=":0"), True)):
        with make(1) as c, Client(c) as client:
            client.submit(_busy, 2.5, pure=False).result()
            time.sleep(1.2)    # the profiler files a second's tree at the end of that second
            (n,) = client.run(history).values()
            assert (n > 0) == expect_profile, (make, n)


def _stats(caplog, desc: str) -> str:
    lines = [r.getMessage() for r in caplog.records if r.name == "cad.core.shards" and " shards in " in r.getMessage()]
    assert lines, caplog.text
    return lines[-1]


def test_failed_shard_names_itself_and_rerun_reuses_the_finished_ones(tmp_path, caplog):
    caplog.set_level("INFO")
    prefix = _corpus(tmp_path, 300)
    ref = _reference_tables(prefix, tmp_path / "ref")
    _break(prefix, 230)
    out = tmp_path / "out"
    args = ["--workers", "1", "--shard-lines", "50"]
    with pytest.raises(CadError) as err:
        build_phrase_tables(f"{prefix}.en", f"{prefix}.fr", f"{prefix}.al", f"{prefix}.lex", str(out / "pt.gz"),
                            str(out / "ro.gz"), parallel=Parallel(1, None, 50))
    assert err.value.path == f"{prefix}.al" and err.value.line == 230
    assert "shard 4 (lines 201-250)" in err.value.message and "a rerun resumes" in err.value.message
    assert not (out / "pt.gz").exists() and not (out / "ro.gz").exists()
    shards = out / "pt.gz.shards"
    assert sorted(p.name for p in shards.glob("*.done")) == [f"{i:06d}.done" for i in range(4)]
    # the user fixes the line: the four finished shards are not run again
    _break(prefix, 230, fix=True)
    assert main(_extract_args(prefix, out, *args)) == 0
    assert "(2 computed, 4 reused" in _stats(caplog, "extract")
    assert _tables(out) == ref
    assert not shards.exists()


def test_a_shard_whose_input_changed_is_run_again(tmp_path, caplog):
    caplog.set_level("INFO")
    prefix = _corpus(tmp_path, 300)
    _break(prefix, 290)
    out = tmp_path / "out"
    args = ["--workers", "1", "--shard-lines", "50"]
    assert main(_extract_args(prefix, out, *args)) == 1                 # shards 0-4 finished
    # one word changed in shard 1, the bad line fixed in shard 5: shards 0, 2, 3, 4 are reused
    lines = (tmp_path / "corpus.fr").read_text().splitlines()
    lines[60] = "changed " + lines[60]
    (tmp_path / "corpus.fr").write_text("\n".join(lines) + "\n")
    _break(prefix, 290, fix=True)
    caplog.clear()
    assert main(_extract_args(prefix, out, *args)) == 0
    assert "(2 computed, 4 reused" in _stats(caplog, "extract")
    assert _tables(out) == _reference_tables(prefix, tmp_path / "ref")


def test_an_option_change_reuses_nothing(tmp_path, caplog):
    caplog.set_level("INFO")
    prefix = _corpus(tmp_path, 200)
    _break(prefix, 190)
    out = tmp_path / "out"
    args = ["--workers", "1", "--shard-lines", "50"]
    assert main(_extract_args(prefix, out, *args)) == 1                 # shards 0-2 finished
    caplog.clear()
    assert main(_extract_args(prefix, out, *args, "--max-phrase-length", "3")) == 1
    assert "extract: 4 shards (0 reused so far)" in caplog.text


def test_a_worker_error_crosses_the_cluster_whole(tmp_path, cluster, capsys):
    prefix = _corpus(tmp_path, 200)
    _break(prefix, 120)
    out = tmp_path / "out"
    assert main(_extract_args(prefix, out, "--scheduler", cluster, "--shard-lines", "50")) == 1
    err = capsys.readouterr().err
    assert f"cad: error: {prefix}.al:120: shard 2 (lines 101-150): alignment point" in err
    assert not (out / "pt.gz").exists()


def test_killed_run_resumes_from_its_finished_shards(tmp_path, caplog):
    """The stage's process is killed (SIGKILL: nothing cleans up) after a few shards; the rerun
    computes only the rest and writes the tables of an uninterrupted run."""
    prefix = _corpus(tmp_path, 1500)
    out = tmp_path / "out"
    # the Python engine: slow enough per shard to be killed halfway
    args = _extract_args(prefix, out, "--workers", "1", "--shard-lines", "50", "--engine", "python")
    proc = subprocess.Popen([sys.executable, "-m", "cad", *args], cwd=REPO, stderr=subprocess.DEVNULL)
    shards = out / "pt.gz.shards"
    deadline = time.time() + 60
    while len(list(shards.glob("*.done"))) < 3 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert not (out / "pt.gz").exists()
    finished = len(list(shards.glob("*.done")))
    assert 3 <= finished < 30
    caplog.set_level("INFO")
    assert main(args) == 0
    assert f"({30 - finished} computed, {finished} reused" in _stats(caplog, "extract")
    assert _tables(out) == _reference_tables(prefix, tmp_path / "ref")


def test_bad_options_and_progress(tmp_path, capsys, monkeypatch):
    prefix = _corpus(tmp_path, 120)
    assert main(_extract_args(prefix, tmp_path / "a", "--workers", "0")) == 1
    assert "--workers must be at least 1" in capsys.readouterr().err
    assert main(_extract_args(prefix, tmp_path / "a", "--shard-lines", "0")) == 1
    assert "--shard-lines must be at least 1" in capsys.readouterr().err
    # files of different lengths fail before any shard runs
    fr = Path(f"{prefix}.fr")
    full = fr.read_text()
    fr.write_text("".join(full.splitlines(keepends=True)[:-1]))
    assert main(_extract_args(prefix, tmp_path / "a", "--workers", "1", "--shard-lines", "30")) == 1
    assert (f"{prefix}.fr:120: has 119 lines but {prefix}.en has 120: parallel files must have the same number "
            "of lines") in capsys.readouterr().err
    assert not (tmp_path / "a" / "pt.gz.shards").exists()
    fr.write_text(full)
    # the stage's progress (shards done / total, rate) when asked for off a terminal
    monkeypatch.setenv("CAD_PROGRESS", "1")
    assert main(_extract_args(prefix, tmp_path / "b", "--workers", "1", "--shard-lines", "30")) == 0
    err = capsys.readouterr().err
    assert "extract" in err and "4/4" in err and ("shard/s" in err or "s/shard" in err)


def test_train_passes_the_scheduler_to_extraction(tmp_path, cluster):
    from cad.sample import SAMPLE_PREFIX

    out = tmp_path / "model"
    assert main(["-q", "train", "--corpus", str(SAMPLE_PREFIX), "--out", str(out), "--until", "phrases",
                 "--scheduler", cluster, "--shard-lines", "80"]) == 0
    ref = tmp_path / "ref"
    build_phrase_tables(out / "corpus.en", out / "corpus.fr", out / "aligned.grow-diag-final-and",
                        str(out / "lex"), str(ref / "pt.gz"), str(ref / "ro.gz"), tmpdir=str(tmp_path))
    assert (out / "phrase-table.gz").read_bytes() == (ref / "pt.gz").read_bytes()
    assert (out / "reordering-table.wbe-msd-bidirectional-fe.gz").read_bytes() == (ref / "ro.gz").read_bytes()
    assert "workers" not in (out / "train.json").read_text()     # not a setting: the tables do not depend on it


# -- coreference and the CM (a slice of the TED dev talks) ---------------------------------------

@pytest.fixture(scope="module")
def ted(shared_data_module):
    """120 lines of the dev talks, cut into 12 documents of 10 lines (ids a:k / b:k), and aligned."""
    d = shared_data_module
    prefix = d / "c"
    for src, name in (("dev.en", "c.en"), ("dev.fr", "c.fr"), ("dev.en-fr.alig", "c.al")):
        lines = (SHARED / "en-fr" / src).read_text(encoding="utf-8").splitlines()[:120]
        write(d / name, "\n".join(lines) + "\n")
    write(d / "c.docs", "".join(f"{i}\t{'ab'[(i // 10) % 2]}:{i // 10}\n" for i in range(0, 120, 10)))
    return prefix


@pytest.fixture(scope="module")
def shared_data_module(tmp_path_factory):
    if not (SHARED / "en-fr" / "dev.en").exists():
        pytest.skip(f"shared data not found at {SHARED} (set CAD_SHARED_DATA)")
    pytest.importorskip("spacy")
    return tmp_path_factory.mktemp("ted")


def _coref_args(prefix: Path, out: Path, *extra: str) -> list[str]:
    return ["-q", "coref", "--input", f"{prefix}.en", "--docs", f"{prefix}.docs", "--out", str(out), *extra]


@pytest.fixture(scope="module")
def ted_coref(ted):
    """The records of one process without shards: the code path that existed before them."""
    from coref.backends import documents, get_backend, resolve_documents
    from coref.records import write_jsonl

    out = ted.parent / "ref.jsonl"
    write_jsonl(resolve_documents(get_backend("ranker"), documents(f"{ted}.en", f"{ted}.docs")), out)
    return out


def test_coref_same_records_from_one_two_workers_and_a_cluster(ted, ted_coref, cluster, tmp_path):
    ref = ted_coref.read_bytes()
    assert ref.count(b"\n") > 20
    for name, opts in {"1": ("--workers", "1"), "2": ("--workers", "2"), "cluster": ("--scheduler", cluster)}.items():
        out = tmp_path / f"{name}.jsonl"
        assert main(_coref_args(ted, out, *opts, "--shard-lines", "30")) == 0, name
        assert out.read_bytes() == ref, name
        assert not Path(f"{out}.shards").exists()
    # gzipped output: the same records
    out = tmp_path / "records.jsonl.gz"
    assert main(_coref_args(ted, out, "--workers", "1", "--shard-lines", "50")) == 0
    assert gzip.decompress(out.read_bytes()) == ref


def test_coref_error_names_the_shard_and_line(ted, tmp_path):
    text = (Path(f"{ted}.en").read_text(encoding="utf-8")).splitlines()
    text[64] = "   "
    bad = write(tmp_path / "bad.en", "\n".join(text) + "\n")
    with pytest.raises(CadError) as err:
        from coref.corpus import BackendSpec, resolve_corpus

        resolve_corpus(bad, f"{ted}.docs", tmp_path / "out.jsonl", BackendSpec("ranker"), Parallel(1, None, 30))
    assert (err.value.path, err.value.line) == (str(bad), 65)
    assert "shard 2 (documents 6-8, lines 61-90): empty line" in err.value.message
    assert not (tmp_path / "out.jsonl").exists()


def _cm_args(prefix: Path, coref: Path, out: Path, *extra: str) -> list[str]:
    return ["-q", "cm", "build", "--corpus", str(prefix), "--align", f"{prefix}.al", "--coref", str(coref),
            "--em-iterations", "2", "--domain-weight", "b=2", "--out", str(out), *extra]


def test_cm_build_same_tables_from_one_two_workers_and_a_cluster(ted, ted_coref, cluster, tmp_path):
    from cad.cm.build import build_cm
    from cad.cm.collect import collect_in_process, collect_in_shards
    from cad.core.shards import ShardStore

    # the collection every table is estimated from, all of it (the classifier's positions and
    # held-out halves included): in one process, in shards here and on the cluster
    doc_ids = [(int(line.split("\t")[0]), line.split("\t")[1]) for line in Path(f"{ted}.docs").read_text().splitlines()]
    args = (str(ted), f"{ted}.al", "en", "fr")
    opts = (str(ted_coref), "ranker", False, False, {"b": 2.0})
    whole = collect_in_process(*args, f"{ted}.docs", doc_ids, *opts)
    assert len(whole.triples) > 50 and len(set(whole.halves)) == 2
    for name, parallel in {"1": Parallel(1, None, 25), "cluster": Parallel(1, cluster, 25)}.items():
        store = ShardStore(tmp_path / f"{name}.shards")
        assert collect_in_shards(*args, doc_ids, 120, *opts, parallel, store) == whole, name
    # and the tables, through the command line
    ref = tmp_path / "ref"
    build_cm(str(ted), f"{ted}.al", ref, coref=str(ted_coref), em_iterations=2, domain_weights={"b": 2.0},
             classifier=False)
    files = ["classes.gz", "cm.gz", "other-words.gz", "provenance.json"]
    assert sorted(p.name for p in ref.iterdir()) == files
    for name, how in {"1": ("--workers", "1"), "2": ("--workers", "2")}.items():
        out = tmp_path / name
        assert main(_cm_args(ted, ted_coref, out, *how, "--shard-lines", "25", "--no-classifier")) == 0, name
        assert sorted(p.name for p in out.iterdir()) == files, name             # the shards removed
        for f in files:
            assert (out / f).read_bytes() == (ref / f).read_bytes(), (name, f)
    # records not in document order (another tool's file) are routed to their shards all the same
    lines = ted_coref.read_text(encoding="utf-8").splitlines()
    random.Random(3).shuffle(lines)
    shuffled = write(tmp_path / "shuffled.jsonl", "\n".join(lines) + "\n")
    again = collect_in_shards(*args, doc_ids, 120, str(shuffled), *opts[1:], Parallel(1, None, 25),
                              ShardStore(tmp_path / "shuffled.shards"))
    assert again == collect_in_process(*args, f"{ted}.docs", doc_ids, str(shuffled), *opts[1:])
    assert again != whole           # a document's records in another order: other candidates' order


def test_cm_build_error_in_a_worker(ted, ted_coref, cluster, tmp_path, capsys):
    al = Path(f"{ted}.al").read_text().splitlines()
    al[99] = "0-99"
    prefix = tmp_path / "c"
    for ext in ("en", "fr", "docs"):
        write(Path(f"{prefix}.{ext}"), Path(f"{ted}.{ext}").read_text(encoding="utf-8"))
    write(Path(f"{prefix}.al"), "\n".join(al) + "\n")
    out = tmp_path / "out"
    assert main(_cm_args(prefix, ted_coref, out, "--scheduler", cluster, "--shard-lines", "25")) == 1
    err = capsys.readouterr().err
    assert f"{prefix}.al:100: shard 3 (documents 9-11, lines 91-120): alignment point 0-99 out of range" in err
    assert not (out / "cm.gz").exists()
