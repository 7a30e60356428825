"""The page's data: every input read once and checked, APT run over each system against the
reference, every pronoun's entry per system, the summary."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from cad.core.alignment import format_alignment
from cad.core.errors import CadError
from cad.eval.apt import AptResult, evaluate, find_source_pronouns
from cad.eval.apt_settings import settings_for
from cad.lang.pairs import Pair, pair_named
from cad.view.inputs import (Document, SystemSpec, check_length, read_alignments, read_coref, read_documents,
                             read_report, read_texts, read_trace)
from cad.view.pronouns import ShownSystem, assign_chains, pronoun_entry, reference_side
from cad.view.summary import apt_rows, chart_svg, report_rows


@dataclass
class ViewInputs:
    source: str
    systems: list[SystemSpec]
    docs: str | None = None
    raw: bool = False
    lang: str = ""                  # the language pair, "en-fr" (cad/lang/pairs.py; "": the default pair)
    reference: str | None = None
    align_ref: str | None = None
    coref: str | None = None
    report: str | None = None
    classes: str | None = None
    title: str | None = None
    notes: list[str] = field(default_factory=list)


def _tokenizer(lang: str):
    from cad.corpus.prepare import Tokenizer, clean_tokens

    tok = Tokenizer(lang)
    return lambda line: clean_tokens(tok(line))


def _write(path: Path, lines) -> str:
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.writelines(x + "\n" for x in lines)
    return str(path)


def run_apt(pair: Pair, src, ref, ref_align, systems: list[ShownSystem]) -> dict[str, AptResult]:
    """APT of each system, on the tokens read (a tokenized --raw source, standard input) written
    to a temporary folder: APT reads files."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="cad-view-") as tmp:
        d = Path(tmp)
        files = [_write(d / "src", (" ".join(s) for s in src)), _write(d / "ref", (" ".join(s) for s in ref)),
                 _write(d / "aref", (format_alignment(a) for a in ref_align))]
        for n, system in enumerate(systems):
            cand = _write(d / f"cand{n}", (" ".join(s) for s in system.tgt))
            acand = _write(d / f"acand{n}", (format_alignment(a) for a in system.align))
            out[system.spec.name] = evaluate(files[0], files[1], cand, files[2], acand, settings_for(pair))
    return out


def _read_system(spec: SystemSpec, src, docs: list[Document], source: str) -> ShownSystem:
    tgt = read_texts(spec.translation)
    check_length(spec.translation, len(tgt), source, len(src))
    align = read_alignments(spec.alignment, src, tgt, source)
    trace = read_trace(spec.trace, docs, src) if spec.trace else None
    return ShownSystem(spec, tgt, align, trace)


def _class_table(path: str, pair: Pair):
    """The class CM of the pair: the table of bundles read from the translations (P(class) and
    expected credit), or where the source states the antecedents' features, the source-feature
    table (P(class))."""
    from cad.cm.models import load_pronoun_model

    return load_pronoun_model(path, "source-table" if pair.source_features else "table", pair)


def _class_of(pair: Pair):
    """What a system's words are in the pair's target classes (none where the source-feature table
    reads its own)."""
    if pair.source_features:
        return None
    from cad.cm.classes import pronoun_class

    return lambda words: pronoun_class(words, pair)


def _document(doc: Document, src, ref, ref_align, systems: list[ShownSystem], coref, classes, class_of,
              settings, marked: frozenset[str]) -> dict:
    rng = range(doc.first, doc.first + doc.size)
    keys: set[tuple[int, int]] = set()
    for system in systems:
        keys.update(k for k in (system.trace or {}) if k[0] in rng)
        keys.update(k for k in (system.apt or {}) if k[0] in rng)
    keys.update(k for k in coref if k[0] in rng)
    # and every word of APT's source list (it, they), with or without a reference
    keys.update((k, pos) for k in rng for pos, _, _ in find_source_pronouns([t.lower() for t in src[k]], settings))
    prons = []
    for k, i in sorted(keys):
        occ = next((s.apt[k, i] for s in systems if s.apt and (k, i) in s.apt), None)
        refside = reference_side(occ)
        entries = [pronoun_entry(s, doc, src, k, i, coref.get((k, i)), classes, class_of, settings) for s in systems]
        prons.append({"s": k - doc.first, "i": i, "tok": src[k][i], "ref": refside,
                      "femRef": bool(refside and marked & {w.lower() for w in refside["words"].split()}),
                      "fem": any(e["fem"] for e in entries), "sys": entries})
    assign_chains(prons, len(systems))
    return {"index": doc.index, "id": doc.id, "first": doc.first,
            "src": [" ".join(src[k]) for k in rng],
            "ref": [" ".join(ref[k]) for k in rng] if ref is not None else None,
            "refAl": [format_alignment(ref_align[k]) for k in rng] if ref is not None else None,
            "tgt": [[" ".join(s.tgt[k]) for k in rng] for s in systems],
            "al": [[format_alignment(s.align[k]) for k in rng] for s in systems],
            "prons": prons}


def build_view(inp: ViewInputs) -> dict:
    """The data the page renders (JSON-ready)."""
    from cad.lang.pairs import default_pair

    pair = pair_named(inp.lang) if inp.lang else default_pair()
    if not inp.systems:
        raise CadError("no translation to show: give --translation and --alignment, or --system")
    names = [s.name for s in inp.systems]
    if len(set(names)) != len(names):
        raise CadError(f"two systems have one name: {', '.join(names)}")
    if (inp.reference is None) != (inp.align_ref is None):
        raise CadError("--reference and --align-ref go together")
    src = read_texts(inp.source, _tokenizer(pair.src) if inp.raw else None)
    if not src:
        raise CadError("no sentence to show", inp.source)
    docs = read_documents(inp.docs, len(src))
    ref = ref_align = None
    if inp.reference is not None:
        ref = read_texts(inp.reference)
        check_length(inp.reference, len(ref), inp.source, len(src))
        ref_align = read_alignments(inp.align_ref, src, ref, inp.source)
    systems = [_read_system(spec, src, docs, inp.source) for spec in inp.systems]
    coref = read_coref(inp.coref, docs, src) if inp.coref else {}
    classes = _class_table(inp.classes, pair) if inp.classes else None
    results = run_apt(pair, src, ref, ref_align, systems) if ref is not None else {}
    for system in systems:
        if system.spec.name in results:
            system.apt = {(o.sentence, o.position): o for o in results[system.spec.name].occurrences}
    class_of = _class_of(pair)
    settings = settings_for(pair)
    # the reference's words the page marks: the target's marked classes (French elle, elles)
    marked = frozenset(w for w, c in pair.target.class_of.items() if c in pair.target.marked) | \
        frozenset(pair.target.marked)
    documents = [_document(d, src, ref, ref_align, systems, coref, classes, class_of, settings, marked)
                 for d in docs]
    summary = None
    if inp.report:
        report = read_report(inp.report)
        summary = {"from": f"{os.path.basename(inp.report)} (cad eval report)", "full": True,
                   "rows": report_rows(report, names)}
    elif results:
        summary = {"from": "APT over the systems shown", "full": False, "rows": apt_rows(results)}
    if summary is not None:
        summary["svg"] = chart_svg(summary["rows"])
    return {"title": inp.title or os.path.basename(inp.source), "lang": pair.name,
            "systems": [{"name": s.spec.name, "trace": s.trace is not None, "apt": s.apt is not None}
                        for s in systems],
            "hasRef": ref is not None, "coref": bool(inp.coref),
            "classes": os.path.basename(inp.classes) if inp.classes else None,
            "summary": summary, "notes": inp.notes, "docs": documents}
