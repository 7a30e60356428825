"""The original APT tool's INI configuration, read so that existing experiment configs run unchanged.

Sections and keys (the tool's spellings, including `possition` and `weigths_per_case`):
[lang] source, target, source_word_separator, target_word_separator
[files] source, reference, target, alignment_source_reference, alignment_source_target,
        list_source_pronouns, input_type (word|possition), list_target_pronouns
[dictionary] equal, similar, source_pronouns, target_pronouns
[cases] cases_to_use, weigths_per_case, count_OTHER_as_equal
[output] output_file, counting_multiword_in_matrix, max_length_matrix
Optional files left empty (or missing, as the tool tolerates) are simply not used.
"""

from __future__ import annotations

import configparser
import os
from dataclasses import dataclass

from cad.core.errors import CadError
from cad.core.textio import atomic_output, is_uint, read_lines
from cad.eval.apt import AptResult, AptSettings, evaluate, write_outputs
from cad.eval.lists import read_groups, read_word_list

REQUIRED = {
    "lang": ["source", "target"],
    "files": ["source", "reference", "target", "alignment_source_reference", "alignment_source_target",
              "list_source_pronouns", "input_type"],
    "cases": ["cases_to_use", "weigths_per_case"],
    "output": ["output_file"],
}


@dataclass
class AptJob:
    source: str
    reference: str
    target: str
    align_ref: str
    align_cand: str
    settings: AptSettings
    output: str
    positions: list[tuple[int, int]] | None = None

    def run(self) -> AptResult:
        result = evaluate(self.source, self.reference, self.target, self.align_ref, self.align_cand,
                          self.settings, self.positions)
        write_outputs(result, self.output)
        return result


def _line_of(path: str, section: str, key: str | None = None) -> int | None:
    current = None
    for lineno, line in enumerate(read_lines(path), 1):
        s = line.strip()
        if s.startswith("[") and s.endswith("]"):
            current = s[1:-1].strip()
            if key is None and current == section:
                return lineno
        elif current == section and key and s.lower().split("=")[0].split(":")[0].strip() == key.lower():
            return lineno
    return None


class _Ini:
    """An APT configuration parsed as the tool parses it; its errors name the file and the line."""

    def __init__(self, path: str):
        self.path = path
        self.parser = configparser.RawConfigParser(inline_comment_prefixes=None)
        try:
            self.parser.read_string("\n".join(read_lines(path)), source=path)
        except configparser.MissingSectionHeaderError as exc:
            raise CadError("expected a [section] header before the first setting", path, exc.lineno) from None
        except configparser.ParsingError as exc:
            lineno = exc.errors[0][0] if exc.errors else None
            raise CadError("malformed line in APT configuration", path, lineno) from None
        except configparser.Error as exc:
            raise CadError(f"malformed APT configuration: {exc.message}", path,
                           getattr(exc, "lineno", None)) from None
        for section, keys in REQUIRED.items():
            if not self.parser.has_section(section):
                raise CadError(f"missing section [{section}]", path)
            for key in keys:
                if not self.parser.has_option(section, key):
                    raise CadError(f"missing key '{key}' in [{section}]", path, _line_of(path, section))

    def error(self, message: str, section: str, key: str | None = None) -> CadError:
        return CadError(message, self.path, _line_of(self.path, section, key))

    def get(self, section: str, key: str, default: str = "") -> str:
        return self.parser.get(section, key).strip() if self.parser.has_option(section, key) else default

    def need_file(self, section: str, key: str) -> str:
        value = self.get(section, key)
        if not value or not os.path.isfile(value):
            raise self.error(f"[{section}] {key}: file {value!r} does not exist", section, key)
        return value

    def optional_file(self, section: str, key: str) -> str | None:
        value = self.get(section, key)
        return value if value and os.path.isfile(value) else None

    def boolean(self, section: str, key: str, default: bool) -> bool:
        if not self.parser.has_option(section, key) or not self.get(section, key):
            return default
        try:
            return self.parser.getboolean(section, key)
        except ValueError:
            raise self.error(f"[{section}] {key} must be true or false", section, key) from None

    def separator(self, key: str) -> str | None:
        value = self.get("lang", key)
        return value if value.strip() else None


def _source_side(ini: _Ini) -> tuple[list[str], list[tuple[int, int]] | None]:
    """The source pronouns to search for (input_type word), or the positions to evaluate
    (input_type possition: `sentence position` lines, 0-based)."""
    input_type = ini.get("files", "input_type")
    if input_type not in ("word", "possition"):
        raise ini.error(f"input_type must be 'word' or 'possition', not {input_type!r}", "files", "input_type")
    list_source = ini.need_file("files", "list_source_pronouns")
    if input_type == "word":
        return read_word_list(list_source), None
    positions = []
    for lineno, line in enumerate(read_lines(list_source), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2 or not all(is_uint(x) for x in parts):
            raise CadError("expected 'sentence position'", list_source, lineno)
        positions.append((int(parts[0]), int(parts[1])))
    return [], positions


def _cases(ini: _Ini) -> tuple[list[int], list[float]]:
    """The cases used (those outside 1-6 dropped) and the weights, one per case used or six."""
    try:
        cases = [int(c) for c in ini.get("cases", "cases_to_use").split(",") if c.strip()]
        weights = [float(w) for w in ini.get("cases", "weigths_per_case").split(",") if w.strip()]
    except ValueError:
        raise ini.error("cases_to_use and weigths_per_case must be comma-separated numbers", "cases") from None
    cases = [c for c in cases if 1 <= c <= 6]
    if not cases or not weights:
        raise ini.error("the list of cases to use and of weights must not be empty", "cases")
    if len(weights) not in (len(cases), 6):
        raise ini.error(f"{len(cases)} cases but {len(weights)} weights", "cases", "weigths_per_case")
    return cases, weights


def read_apt_config(path: str | os.PathLike) -> AptJob:
    """The job a configuration of the original tool describes, checked as far as the tool would
    fail on it: errors name the file and the line."""
    ini = _Ini(str(path))
    files = {k: ini.need_file("files", k) for k in ("source", "reference", "target", "alignment_source_reference",
                                                     "alignment_source_target")}
    source_pronouns, positions = _source_side(ini)
    target_list_file = ini.optional_file("files", "list_target_pronouns")
    cases, weights = _cases(ini)
    max_len = ini.get("output", "max_length_matrix", "10") or "10"
    if not is_uint(max_len):
        raise ini.error("max_length_matrix must be a number", "output", "max_length_matrix")

    equal_file, similar_file = ini.optional_file("dictionary", "equal"), ini.optional_file("dictionary", "similar")
    sdict = ini.optional_file("dictionary", "source_pronouns")
    tdict = ini.optional_file("dictionary", "target_pronouns")
    settings = AptSettings(
        source_pronouns=source_pronouns,
        target_list=read_word_list(target_list_file) if target_list_file else None,
        equal=read_groups(equal_file) if equal_file else [],
        similar=read_groups(similar_file) if similar_file else [],
        source_dict=read_word_list(sdict) if sdict else [],
        target_dict=read_word_list(tdict) if tdict else [],
        cases=cases,
        weights=weights if len(weights) == len(cases) else [weights[c - 1] for c in cases],
        count_other=ini.boolean("cases", "count_OTHER_as_equal", False),
        source_sep=ini.separator("source_word_separator"),
        target_sep=ini.separator("target_word_separator"),
        count_multiword=ini.boolean("output", "counting_multiword_in_matrix", False),
        max_matrix=int(max_len),
    )
    output = ini.get("output", "output_file")
    if not output:
        raise ini.error("output_file is empty", "output", "output_file")
    return AptJob(files["source"], files["reference"], files["target"], files["alignment_source_reference"],
                  files["alignment_source_target"], settings, output, positions)


def write_apt_config(job: AptJob, path: str | os.PathLike, files: dict[str, str]) -> None:
    """Write a configuration the original tool reads; `files` maps dictionary keys to list files."""
    s = job.settings
    with atomic_output(path) as fh:
        fh.write("[lang]\nsource: en\ntarget: fr\n")
        fh.write(f"source_word_separator: {s.source_sep or ''}\ntarget_word_separator: {s.target_sep or ''}\n\n")
        fh.write(f"[files]\nsource: {job.source}\nreference: {job.reference}\ntarget: {job.target}\n")
        fh.write(f"alignment_source_reference: {job.align_ref}\nalignment_source_target: {job.align_cand}\n")
        fh.write(f"list_source_pronouns: {files.get('list_source_pronouns', '')}\n")
        fh.write(f"input_type: {'possition' if job.positions is not None else 'word'}\n")
        fh.write(f"list_target_pronouns: {files.get('list_target_pronouns', '')}\n\n")
        fh.write("[dictionary]\n")
        for key in ("equal", "similar", "source_pronouns", "target_pronouns"):
            fh.write(f"{key}: {files.get(key, '')}\n")
        fh.write(f"\n[cases]\ncases_to_use: {','.join(map(str, s.cases))}\n")
        fh.write(f"weigths_per_case: {','.join(str(w) for w in s.weights)}\n")
        fh.write(f"count_OTHER_as_equal: {'true' if s.count_other else 'false'}\n\n")
        fh.write(f"[output]\noutput_file: {job.output}\n")
        fh.write(f"counting_multiword_in_matrix: {'true' if s.count_multiword else 'false'}\n")
        fh.write(f"max_length_matrix = {s.max_matrix}\n")
