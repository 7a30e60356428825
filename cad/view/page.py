"""The HTML page: one file with its style, script and data inline. A Content-Security-Policy
forbids every request (`default-src 'none'`): the page works offline and cannot call out."""

from __future__ import annotations

import html
import json
import os
from importlib import resources

from cad.core.textio import atomic_output
from cad.view.summary import CASE_COLOURS, CASE_LABELS

CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def _asset(name: str) -> str:
    return resources.files("cad.view").joinpath("assets", name).read_text(encoding="utf-8")


def _f(x, digits: int = 3) -> str:
    if x is None:
        return "–"
    if 0 < x < 10 ** -digits:      # a p-value too small for the digits
        return f"{x:.1e}"
    return f"{x:.{digits}f}"


def summary_html(summary: dict | None) -> str:
    if summary is None:
        return '<p class="note">No reference given: no APT category, no summary.</p>'
    full = summary["full"]
    head = ["system"] + [f"C{c}" for c in range(1, 7)] + ["APT", "C1+C2 acc."]
    if full:
        head += ["P", "R", "F", "BLEU", "chrF", "p (C1)", "p (C1+C2)"]
    cells = []
    for h in head:
        if h[0] == "C" and h[1:].isdigit():
            cells.append(f'<th class="case" style="background:{CASE_COLOURS[int(h[1]) - 1]}">{h}</th>')
        else:
            cells.append(f"<th>{html.escape(h)}</th>")
    out = [f"<h2>Pronouns: APT categories <span class=\"note\">({html.escape(summary['from'])})</span></h2>",
           '<table class="apt"><thead><tr>' + "".join(cells) + "</tr></thead><tbody>"]
    for r in summary["rows"]:
        row = [html.escape(r["system"])] + [str(r["cases"][f"C{c}"]) for c in range(1, 7)]
        row += [_f(r["apt"]), _f(r["acc_c1_c2"])]
        if full:
            row += [_f(r["precision"]), _f(r["recall"]), _f(r["f"]), _f(r["bleu"], 2), _f(r["chrf"], 2),
                    _f(r["p_c1"], 4), _f(r["p_c1_c2"], 4)]
        cls = ' class="shown"' if r.get("shown") else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>")
    out.append("</tbody></table>")
    out.append(f'<div>{summary["svg"]}</div>')
    return "".join(out)


def _toolbar(data: dict) -> str:
    systems = "".join(f'<option value="{n}">{html.escape(s["name"])}</option>' for n, s in enumerate(data["systems"]))
    chips = "".join(f'<span class="chip" data-case-chip="{c}" title="{html.escape(CASE_LABELS[c - 1])}">'
                    f'<span class="dot" style="background:{CASE_COLOURS[c - 1]}"></span>C{c}</span>'
                    for c in range(1, 7)) if data["hasRef"] else ""
    options = [("all", "every pronoun"), ("errors", "errors only (C3–C6)"), ("fem", "feminine antecedents"),
               ("femRef", "feminine in the reference (elle, elles)"), ("differ", "systems differ"),
               ("noAnte", "no antecedent")]
    if not data["hasRef"]:
        options = [o for o in options if o[0] not in ("errors", "femRef")]
    filters = "".join(f'<option value="{v}">{html.escape(t)}</option>' for v, t in options)
    return (f'<nav id="toolbar"><label>system <select id="sys">{systems}</select></label>'
            f'<label><input type="checkbox" id="side"> every system side by side</label>'
            f'<label>show <select id="filter">{filters}</select></label>'
            f'<span class="chips">{chips}</span>'
            f'<label><input type="checkbox" id="only" checked> only sentences with them</label>'
            f'<button id="prev" title="previous pronoun (k)">◀</button><button id="next" title="next pronoun (j)">▶</button>'
            f'<span id="count"></span></nav>')


def _meta(data: dict) -> str:
    n_sent = sum(len(d["src"]) for d in data["docs"])
    n_pron = sum(len(d["prons"]) for d in data["docs"])
    systems = ", ".join(f'{s["name"]}{"" if s["trace"] else " (no trace)"}' for s in data["systems"])
    n_docs = len(data["docs"])
    parts = [f"{n_docs} document{'s' if n_docs != 1 else ''}, {n_sent} sentence{'s' if n_sent != 1 else ''}, "
             f"{n_pron} source pronoun{'s' if n_pron != 1 else ''}", f"systems: {systems}"]
    if data["classes"]:
        parts.append(f"CM classes from {data['classes']}")
    if data["coref"]:
        parts.append("antecedents placed through the coreference records")
    notes = "".join(f'<p class="note">{html.escape(n)}</p>' for n in data["notes"])
    return f'<p class="meta">{html.escape(" · ".join(parts))}</p>{notes}'


def render_page(data: dict) -> str:
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    title = html.escape(data["title"])
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title} · cad view</title>", f"<style>{_asset('view.css')}</style></head>",
        f'<body><header class="top"><h1>{title}</h1>{_meta(data)}</header>',
        f'<section id="summary">{summary_html(data["summary"])}</section>',
        _toolbar(data), '<main id="docs"></main><div id="card" hidden></div>',
        f'<script type="application/json" id="cad-data">{payload}</script>',
        f"<script>{_asset('view.js')}</script>", "</body></html>", ""])


def write_page(data: dict, path: str | os.PathLike) -> int:
    """Write the page atomically; its size in bytes."""
    text = render_page(data)
    with atomic_output(path) as fh:
        fh.write(text)
    return len(text.encode("utf-8"))
