"""The documentation holds together: every relative link in README.md and docs/*.md reaches a file
(and a heading, by GitHub's anchor rules), every command `cad --help` lists has an example in
docs/usage.md, and every example there parses with the options the command really has."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from cad import cli
from cad.cli.decode import parse_args as decode_parse_args
from conftest import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
USAGE = REPO / "docs" / "usage.md"

_FENCE = re.compile(r"^(```|~~~)")
_LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def _prose(text: str) -> list[tuple[int, str]]:
    """(line number, line) outside fenced code blocks, inline code spans blanked."""
    out, fenced = [], False
    for n, line in enumerate(text.split("\n"), 1):
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            out.append((n, re.sub(r"`[^`]*`", lambda m: " " * len(m.group()), line)))
    return out


def github_anchor(heading: str) -> str:
    """The id GitHub gives a heading: its rendered text lowercased, every character that is not a
    letter, mark, digit, underscore, hyphen or space dropped, spaces made hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)      # a link renders as its text
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = "".join(c for c in text if c in "- " or c == "_" or c.isalnum() or _is_mark(c))
    return text.replace(" ", "-")


def _is_mark(c: str) -> bool:
    import unicodedata
    return unicodedata.category(c).startswith("M")


def anchors(path: Path) -> set[str]:
    """Every heading's id in a Markdown file, a repeated one numbered -1, -2, ... as GitHub does."""
    seen: dict[str, int] = {}
    ids = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").split("\n"):
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        m = None if fenced else _HEADING.match(line)
        if not m:
            continue
        base = github_anchor(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        ids.add(base if n == 0 else f"{base}-{n}")
    return ids


def broken_links(path: Path) -> list[str]:
    bad = []
    for n, line in _prose(path.read_text(encoding="utf-8")):
        for target in _LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, flags=re.I):      # http:, https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            where = f"{path.relative_to(REPO)}:{n}: {target}"
            if not dest.exists():
                bad.append(f"{where} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                bad.append(f"{where} (no heading #{anchor} in {dest.name})")
    return bad


def test_the_anchor_rules():
    assert github_anchor("Spanish→English pronouns (seed 003, `make es-en`)") == \
        "spanishenglish-pronouns-seed-003-make-es-en"
    assert github_anchor("Large corpora: corpus stages in shards (`--workers`, `--scheduler`)") == \
        "large-corpora-corpus-stages-in-shards---workers---scheduler"
    assert github_anchor("The Coreference Model's tables") == "the-coreference-models-tables"
    assert github_anchor("moses.ini files and feature functions") == "mosesini-files-and-feature-functions"


def test_the_checker_finds_a_broken_link(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    (tmp_path / "a.md").write_text("# Top\n\n## Second part\n\n## Second part\n", encoding="utf-8")
    doc = tmp_path / "b.md"
    doc.write_text("[ok](a.md#second-part) [ok](a.md#second-part-1) [ok](#here) [web](https://x.org/y)\n"
                   "# Here\n`[code](nowhere.md)`\n```\n[fenced](nowhere.md)\n```\n"
                   "[gone](missing.md) [no heading](a.md#third) ![img](missing.png)\n", encoding="utf-8")
    bad = broken_links(doc)
    assert len(bad) == 3 and all(":7:" in b for b in bad), bad


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(path):
    assert path.exists()
    assert not broken_links(path), "broken links:\n" + "\n".join(broken_links(path))


def test_the_docs_folder_holds_the_guides():
    names = {p.name for p in DOCS}
    assert {"usage.md", "models.md", "results.md", "benchmarks.md", "design.md"} <= names
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for name in ("usage", "models", "results", "benchmarks", "design"):
        assert f"(docs/{name}.md" in readme, f"the README does not link docs/{name}.md"
    assert len(readme.split("\n")) <= 120, "the README is meant to stay short: move the detail to docs/"


# -- the examples -------------------------------------------------------------------------------

def examples(path: Path = USAGE) -> list[tuple[int, list[str]]]:
    """Each command line in a fenced block that starts with `cad ` or `.venv/bin/cad ` (continuation
    lines joined), as its arguments after `cad`, up to a pipe or redirection."""
    out, fenced, pending, start = [], False, "", 0
    for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            continue
        if not pending:
            start = n
        pending += line
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        command, pending = pending.strip(), ""
        if not re.match(r"^(\.venv/bin/)?cad ", command):
            continue
        words = []
        for w in shlex.split(command, comments=True)[1:]:
            if w in ("|", "<", ">", ">>", "2>", "&&", ";"):
                break
            words.append(w)
        out.append((start, words))
    return out


def _listed_commands() -> list[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-m", "cad", "--help"], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr
    body = proc.stdout.split("COMMAND\n", 2)[-1].split("\noptions:")[0]
    names = re.findall(r"^    ([a-z][a-z0-9-]*)", body, flags=re.M)
    assert len(names) > 20, proc.stdout
    return names


def _nested(parser, path=()):
    """(cad's command path, parser) for every command and every action of a command group."""
    import argparse
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, sp in a.choices.items():
                yield path + (name,), sp
                yield from _nested(sp, path + (name,))


def test_every_command_of_cad_help_has_an_example():
    shown = {tuple(words[:1]) for _, words in examples()}
    missing = [c for c in _listed_commands() if (c,) not in shown]
    assert not missing, "docs/usage.md has no example line (`cad CMD ...` in a fenced block) for: " + \
        ", ".join(missing)


def test_every_action_of_a_command_group_has_an_example():
    shown = [tuple(words) for _, words in examples()]
    paths = [path for path, _ in _nested(cli.build_parser())]
    leaves = [path for path in paths if not any(len(p) > len(path) and p[:len(path)] == path for p in paths)]
    missing = [" ".join(p) for p in leaves if not any(s[:len(p)] == p for s in shown)]
    assert not missing, "docs/usage.md has no example for: " + ", ".join(f"cad {m}" for m in missing)


def test_every_example_parses(capsys):
    parser = cli.build_parser()
    wrong = []
    for n, words in examples():
        try:
            if words[:1] == ["decode"]:
                decode_parse_args(words[1:])
            else:
                parser.parse_args(words)
        except SystemExit:
            wrong.append(f"docs/usage.md:{n}: cad {' '.join(words)}\n    {capsys.readouterr().err.strip()}")
        except Exception as e:                      # cad decode's own parser raises CadError
            wrong.append(f"docs/usage.md:{n}: cad {' '.join(words)}\n    {e}")
    assert len(examples()) > 40
    assert not wrong, "examples that cad's command line refuses:\n" + "\n".join(wrong)


def test_the_readme_keeps_the_user_guide_block():
    """tests/test_user_guide.py runs this block (when a trained model is there); here, without a
    model, its commands at least exist as written."""
    readme = REPO / "README.md"
    m = re.search(r"<!-- user-guide:[^\n]*-->\n```sh\n(.*?)```", readme.read_text(encoding="utf-8"), flags=re.S)
    assert m, "the README lost its user-guide block"
    cads = [words for _, words in examples(readme) if words[:1] == ["translate"]]
    assert cads, "the user-guide block no longer runs `.venv/bin/cad translate`"
    for words in cads:
        cli.build_parser().parse_args(words)
