"""`cad serve`: a configuration loaded once and documents translated over HTTP (a JSON API, Moses's
XML-RPC `translate`, a page to try it), as `cad translate` translates them."""

from __future__ import annotations

import argparse

from cad.cli.coref_model import add_coref_model_argument, coref_model
from cad.cli.lexicons import add_spanish_lexicons
from cad.cli.translate import add_pair_arguments
from cad.core.cliargs import add_input_argument as add_in
from cad.core.segments import LONG_LINES
from cad.defaults import COREF_BACKEND
from coref.backends import BACKENDS

DEFAULT_MAX_REQUEST = "1M"


def _size(text: str) -> int:
    """A size in bytes: a number, or one with K or M (powers of 1024)."""
    units = {"K": 1 << 10, "M": 1 << 20}
    t = text.strip().upper()
    n = t[:-1] if t[-1:] in units else t
    if not n.isdigit() or int(n) == 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size: give bytes, or a number with K or M, e.g. 1M")
    return int(n) * units.get(t[-1:], 1)


def _settings(a: argparse.Namespace):
    """The engine's settings, checked as `cad translate` checks its options."""
    from cad.cli.translate import _cm_mode, pair_of
    from cad.cm.config import CM_NAME
    from cad.core.errors import CadError
    from cad.moses.ini import parse_config
    from cad.serve.engine import EngineSettings
    from cad.translate.decoders import model_truecaser

    if a.no_lowercase and a.truecase_model not in ("auto", "none"):
        raise CadError(f"--no-lowercase gives the decoder the input as it is: it cannot be truecased with "
                       f"--truecase-model {a.truecase_model} too")
    if a.port < 0 or a.port > 65535:
        raise CadError(f"--port {a.port}: give 0 (any free port) to 65535")
    cfg = parse_config(a.config)
    source_features = pair_of(a).source_features
    a.decoder, a.classes = "cad", None          # what _cm_mode reads of cad translate's options
    mode = _cm_mode(a, any(f.type == "CoreferenceModel" for f in cfg.features),
                    any(f.name == CM_NAME for f in cfg.features), source_features)
    return EngineSettings(
        a.config, system=a.system, mode=mode, src=a.src, tgt=a.tgt, backend=a.backend, coref_model=coref_model(a),
        human_lexicon=a.human_lexicon, gender_lexicon=a.gender_lexicon, humanness=a.humanness,
        truecase_model=None if a.no_lowercase else model_truecaser(a.truecase_model, cfg, a.src),
        lowercase=not a.no_lowercase, engine=a.engine, search_algorithm=a.search_algorithm,
        max_sentence_length=a.max_sentence_length, long_sentences=a.long_sentences, source_features=source_features)


def _serve(a: argparse.Namespace) -> int:
    import functools
    import logging

    from cad.core.errors import CadError
    from cad.serve.engine import Engine
    from cad.serve.workers import Workers
    from cad.serve.page import page_html
    from cad.serve.run import bind, serve_until_stopped
    from cad.serve.view import class_table, view_page

    if a.workers < 1:
        raise CadError(f"--workers {a.workers}: give 1 or more")
    settings = _settings(a)
    if not a.verbose:
        # quiet by default: the model's loading and each request's lines only with --verbose
        logging.getLogger("cad").setLevel(logging.WARNING)
        logging.getLogger("coref").setLevel(logging.WARNING)
    engine = Workers(settings, a.workers) if a.workers > 1 else Engine(settings)
    view = functools.partial(view_page, settings=settings, classes=class_table(settings))
    server = bind(a.host, a.port, engine=engine, max_body=a.max_request_size, raw=a.raw,
                  page=page_html(settings, a.max_request_size), view=view, log_requests=a.verbose)
    return serve_until_stopped(server, a.grace)


def add_serve_parser(sub, command: str | None = None) -> None:
    s = sub.add_parser("serve", help="an HTTP server: a configuration loaded once, documents translated on request "
                                     "(JSON API, Moses's XML-RPC translate, a page to try it)")
    s.add_argument("--config", required=True,
                   help="moses.ini: any moses_configs/*.ini (the CM as back-off table or CoreferenceModel feature, "
                        "which decides the mode) or a plain moses.ini (with --system baseline)")
    s.add_argument("--host", default="127.0.0.1",
                   help="address to listen on; 0.0.0.0 (or ::) for every interface (default: %(default)s)")
    s.add_argument("--port", type=int, default=8080,
                   help="port to listen on; 0: any free port (the address is printed on stderr) (default: %(default)s)")
    s.add_argument("--max-request-size", type=_size, default=DEFAULT_MAX_REQUEST, metavar="SIZE",
                   help="the largest request body, in bytes or with K or M; a larger one is refused with 413 "
                        "(default: %(default)s)")
    s.add_argument("--raw", action="store_true",
                   help="requests are raw text (tokenized, the output detruecased and detokenized) unless a JSON "
                        "request says \"raw\": false; without it they are tokenized text unless it says \"raw\": true; "
                        "XML-RPC requests always follow this option (default: tokenized, as mosesserver)")
    s.add_argument("--workers", type=int, default=1, metavar="N",
                   help="translate up to N documents at once, each in a worker process of its own that loads the "
                        "configuration itself (N times the memory; N cores at most help); 1: one document at a time, "
                        "in the server's process (default: %(default)s)")
    s.add_argument("--grace", type=float, default=30.0, metavar="SECONDS",
                   help="on SIGTERM or Ctrl-C, how long the requests in flight may take to finish before the server "
                        "exits anyway (default: %(default)s)")
    s.add_argument("-v", "--verbose", action="store_true",
                   help="log the loading and one line per request on stderr (default: only the address, warnings "
                        "and errors)")
    s.add_argument("--system", choices=["cm", "baseline", "pe"], default="cm",
                   help="as cad translate's: cm (the mode from --config), baseline, pe (default: %(default)s)")
    s.add_argument("--cm-mode", choices=["auto", "backoff", "feature"], default="auto",
                   help="as cad translate's (reranking is not served): feature if --config has the CoreferenceModel "
                        "feature, else backoff (default: %(default)s)")
    add_pair_arguments(s, "target language, the pair's with --src, and for detokenizing")
    s.add_argument("--backend", default=COREF_BACKEND, choices=[b for b in BACKENDS if b not in ("corzu", "gold")],
                   help=f"coreference backend (default: {COREF_BACKEND})")
    add_coref_model_argument(s)
    add_spanish_lexicons(s, add_in)
    s.add_argument("--humanness", action="store_true", help="the CM's bundles carry source-side humanness")
    s.add_argument("--truecase-model", default="auto",
                   help="as cad translate's: the source truecasing model, auto (truecase-model.<src> beside the "
                        "config's first phrase table) or none (lowercase) (default: %(default)s)")
    s.add_argument("--no-lowercase", action="store_true",
                   help="give the decoder the input's case as it is (default: truecased or lowercased)")
    s.add_argument("--engine", choices=("native", "python"), default="native",
                   help="cad's search: the compiled core or the Python reference (default: %(default)s)")
    s.add_argument("--search-algorithm", type=int, choices=[0, 1], default=1,
                   help="0 normal stack search, 1 cube pruning (default: 1, as cad translate)")
    s.add_argument("--max-sentence-length", type=int, default=0, metavar="N",
                   help="a line of more than N words is cut into pieces, as cad translate's (default 0: no limit)")
    s.add_argument("--long-sentences", choices=LONG_LINES, default="split",
                   help="what --max-sentence-length does to a longer line (default: %(default)s)")
    s.set_defaults(func=_serve)
