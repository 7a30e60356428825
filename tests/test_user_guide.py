"""The README's "Translate your own text" block, run exactly as written (in a scratch copy of its
working directory's relevant parts): it needs the model `make` trains, and skips without it."""

import re
import shutil
import subprocess

import pytest

from conftest import REPO


def _block() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- user-guide:[^\n]*-->\n```sh\n(.*?)```", text, flags=re.S)
    assert m, "the README lost its user-guide block"
    return m.group(1)


def test_the_readme_block_translates_text(tmp_path):
    if not (REPO / "moses_configs" / "baseline.feature.ini").exists() or not (REPO / ".venv" / "bin" / "cad").exists():
        pytest.skip("no trained model or .venv here: run `make` first")
    script = _block()
    # the block writes my.en and my.fr in the current folder: run it in a scratch folder that
    # sees the repository's .venv and moses_configs through links
    for name in (".venv", "moses_configs", "models", "tables"):
        (tmp_path / name).symlink_to(REPO / name)
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = (tmp_path / "my.fr").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and all(line.strip() for line in lines)
    assert proc.stdout.splitlines() == lines                          # `cat my.fr`
    # detokenized, cased French: a capital at the start, the final full stop attached
    assert all(line[0].isupper() and line.endswith(".") and not line.endswith(" .") for line in lines)
