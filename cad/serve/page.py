"""The page `GET /` serves: one self-contained HTML file (its style and script inline, no outside
request: the server's Content-Security-Policy allows only the page's own requests to /translate)
where a person types English and sees the French and `cad view`'s page of its pronouns."""

from __future__ import annotations

import html
import json
import os
from importlib import resources

from cad import __version__
from cad.serve.engine import EngineSettings
from cad.serve.view import system_name

EXAMPLE = ("My cat brought home a mouse that he hunted, and it was not dead but it was mortally wounded. "
           "What is the best way to kill it humanely?")
PAUSE_MS = 700          # typing pause before the text is sent


def _asset(name: str) -> str:
    return resources.files("cad.serve").joinpath("assets", name).read_text(encoding="utf-8")


def page_html(settings: EngineSettings, max_request: int) -> str:
    config = json.dumps({"translate": "translate", "pause": PAUSE_MS, "maxRequest": max_request})
    about = (f"{os.path.basename(settings.config)} · {system_name(settings)} · {settings.src}→{settings.tgt} · "
             f"coreference: {settings.backend} · cad {__version__}")
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>cad serve</title>", f"<style>{_asset('serve.css')}</style></head><body>",
        f'<header><h1>cad serve</h1><p id="about">{html.escape(about)}</p></header>',
        '<section id="work"><div><h2>English</h2>',
        f'<textarea id="src" spellcheck="false" placeholder="{html.escape(EXAMPLE)}"></textarea>',
        '<div class="controls"><button id="go" type="button">Translate</button>',
        '<label><input type="checkbox" id="live" checked> as I type</label>',
        '<label><input type="checkbox" id="split" checked> find the sentences (else one a line)</label>',
        '<span class="hint">Ctrl+Enter translates now</span></div></div>',
        '<div><h2>French</h2><div id="out" aria-live="polite"></div><p id="status"></p></div></section>',
        '<section id="pronouns"><h2>Pronouns</h2>',
        '<p id="view-hint">Each <i>it</i> and <i>they</i> appears here, marked, with an arrow to its antecedent: '
        "hover over one (click pins it) for its card, as <code>cad view</code> draws it.</p>",
        '<iframe id="view" title="the pronouns, as cad view shows them" sandbox="allow-scripts" hidden></iframe>'
        "</section>",
        f'<script type="application/json" id="serve-config">{config}</script>',
        f"<script>{_asset('serve.js')}</script>", "</body></html>", ""])
