"""`cad serve`'s HTTP side, on the standard library's ThreadingHTTPServer: a thread per
connection (so /health and the page answer while a document is translated), the body's size
checked from Content-Length before a byte of it is read, every refusal a 4xx with a message, and a
stop on SIGTERM or Ctrl-C that lets the requests in flight finish.

Why the standard library and not an outside framework: the work is one CPU-bound translation at a
time behind the engine's lock, which an asynchronous framework would not make faster; what a
server needs here (routing five paths, the size limit before reading, clean 4xx, a clean stop) is
a few dozen lines on http.server, and xmlrpc.client reads and writes Moses's XML-RPC without
another package to install, pin and keep up to date.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cad import __version__
from cad.core.errors import CadError
from cad.serve.engine import Engine
from cad.serve.workers import WorkerError, Workers
from cad.serve.requests import (BadRequest, RpcFault, json_answer, parse_json_request, parse_rpc, rpc_answer,
                                rpc_fault, rpc_response, rpc_translate_params)

log = logging.getLogger(__name__)

# path -> the methods it answers
ROUTES = {"/": ("GET",), "/health": ("GET",), "/translate": ("POST",), "/RPC2": ("POST",)}
PAGE_CSP = ("default-src 'none'; connect-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
            "img-src data:; frame-src 'self'")


class Server(ThreadingHTTPServer):
    """The listening socket, the loaded engine and what every request reads."""

    daemon_threads = True           # a connection left open does not keep the process alive at exit
    allow_reuse_address = True

    def __init__(self, address, engine: Engine | Workers, *, max_body: int, raw: bool, page: str,
                 view=None, log_requests: bool = False):
        super().__init__(address, Handler)
        self.engine, self.max_body, self.raw, self.page = engine, max_body, raw, page
        self.view, self.log_requests = view, log_requests
        self.stopping = False
        self._busy = 0
        self._idle = threading.Condition()

    def begin(self) -> None:
        with self._idle:
            self._busy += 1

    def end(self) -> None:
        with self._idle:
            self._busy -= 1
            self._idle.notify_all()

    def wait_idle(self, timeout: float) -> int:
        """Wait until no request is being answered, at most `timeout` seconds; how many still are."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._busy and time.monotonic() < deadline:
                self._idle.wait(deadline - time.monotonic())
            return self._busy


class Handler(BaseHTTPRequestHandler):
    server: Server
    server_version = f"cad-serve/{__version__}"
    timeout = 60            # a client that stops sending mid-request frees its thread

    def log_message(self, format: str, *args) -> None:          # noqa: A002 (http.server's name)
        if self.server.log_requests:
            log.info("%s %s", self.address_string(), format % args)

    def log_error(self, format: str, *args) -> None:            # noqa: A002
        log.debug("%s %s", self.address_string(), format % args)

    # -- answers ---------------------------------------------------------------------------------
    def _send(self, status: int, body: bytes, content_type: str, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if self.server.stopping:
            self.close_connection = True
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, obj: dict, headers: dict | None = None) -> None:
        body = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        self._send(status, body, "application/json; charset=utf-8", headers)

    def _error(self, status: int, message: str, headers: dict | None = None) -> None:
        self._json(status, {"error": message, "status": status}, headers)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a malformed request line, a header too long) in JSON too."""
        self.close_connection = True
        if self.request_version == "HTTP/0.9":      # a line that did not parse: answer it as HTTP all the same
            self.request_version = "HTTP/1.0"
        try:
            self._error(code, message or HTTPStatus(code).phrase)
        except OSError:
            pass

    # -- routing ---------------------------------------------------------------------------------
    def _route(self) -> None:
        path = self.path.split("?", 1)[0]
        methods = ROUTES.get(path)
        if methods is None:
            self._error(404, f"no such path {path!r}: the paths are {', '.join(ROUTES)}")
            return
        method = "GET" if self.command == "HEAD" else self.command
        if method not in methods:
            self._error(405, f"{path} answers {' and '.join(methods)}, not {self.command}",
                        {"Allow": ", ".join(methods + (("HEAD",) if "GET" in methods else ()))})
            return
        self.server.begin()
        try:
            getattr(self, "_" + (path.strip("/").lower() or "page"))()
        except BadRequest as exc:
            self.close_connection = True
            self._error(exc.status, str(exc))
        except CadError as exc:
            self._error(422, f"cannot translate this document: {exc}")
        except WorkerError as exc:
            self._error(503, str(exc))
        except (ConnectionError, TimeoutError):
            self.close_connection = True
        except Exception as exc:        # a bug: logged with its traceback, the client told no more
            log.exception("%s %s failed", self.command, path)
            self._error(500, f"internal error ({type(exc).__name__}); the server log has the details")
        finally:
            self.server.end()

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _route

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding"):
            raise BadRequest(411, "send the body with a Content-Length (no Transfer-Encoding)")
        length = self.headers.get("Content-Length")
        if length is None:
            raise BadRequest(411, "a POST needs a Content-Length")
        if not length.strip().isdigit():
            raise BadRequest(400, f"Content-Length {length!r} is not a number of bytes")
        n = int(length)
        if n > self.server.max_body:
            raise BadRequest(413, f"the body has {n} bytes; this server takes at most {self.server.max_body} "
                                  "(cad serve --max-request-size)")
        body = self.rfile.read(n)
        if len(body) < n:
            raise ConnectionError("the client closed the connection mid-body")
        return body

    # -- the paths -------------------------------------------------------------------------------
    def _page(self) -> None:
        self._send(200, self.server.page.encode("utf-8"), "text/html; charset=utf-8",
                   {"Content-Security-Policy": PAGE_CSP, "Cache-Control": "no-store"})

    def _health(self) -> None:
        s = self.server.engine.settings
        self._json(200, {"status": "stopping" if self.server.stopping else "ok", "version": __version__,
                         "config": s.config, "system": s.system, "mode": s.mode if s.system == "cm" else None,
                         "src": s.src, "tgt": s.tgt, "raw": self.server.raw,
                         "max_request_size": self.server.max_body})

    def _translate(self) -> None:
        req = parse_json_request(self._body(), self.server.raw)
        got = self.server.engine.translate(req.lines, req.raw)
        html = self.server.view(got) if req.view and self.server.view is not None else None
        self._json(200, json_answer(req, got, html))

    def _rpc2(self) -> None:
        method, params = parse_rpc(self._body())
        try:
            lines, align, word_align = rpc_translate_params(method, params)
            got = self.server.engine.translate(lines, self.server.raw)
            body = rpc_response(rpc_answer(got, align, word_align))
        except RpcFault as fault:
            body = rpc_fault(fault)
        except CadError as exc:
            body = rpc_fault(RpcFault(-500, f"cannot translate this text: {exc}"))
        self._send(200, body, "text/xml; charset=utf-8")
