"""The bodies `cad serve` reads and writes: the JSON API's request checked field by field and its
answer, and Moses's `translate` over XML-RPC (mosesserver's request and response structs).

Every way a body can be wrong is a `BadRequest` with a message that says what to send instead;
the HTTP layer answers it with its status and never with a traceback."""

from __future__ import annotations

import json
import xml.parsers.expat
import xmlrpc.client
from dataclasses import dataclass

from cad.serve.engine import Served
from cad.serve.sentences import split_sentences
from cad.translate.trace import trace_json

# JSON fields: name -> type
FIELDS = {"text": str, "lines": list, "raw": bool, "split": bool, "view": bool}


class BadRequest(Exception):
    """A request the server refuses: `status` (4xx) and a message for the client."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


@dataclass
class JsonRequest:
    lines: list[str]
    raw: bool
    view: bool = False


def decode_utf8(body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRequest(400, f"the body is not UTF-8: byte 0x{body[exc.start]:02x} at offset {exc.start} "
                              f"({exc.reason})") from None


def text_lines(text: str) -> list[str]:
    """A text's lines as `cad translate` reads a file's: split at line feeds, a carriage return
    before one dropped, a final line feed ending the last line rather than starting another."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [x[:-1] if x.endswith("\r") else x for x in lines]


def parse_json_request(body: bytes, raw_default: bool) -> JsonRequest:
    """The JSON API's request: {"text": "one sentence a line", or "lines": [...]; "raw", "split",
    "view": booleans, all optional}."""
    text = decode_utf8(body)
    try:
        req = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadRequest(400, f"malformed JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise BadRequest(400, "malformed JSON: nested too deeply") from None
    if not isinstance(req, dict):
        raise BadRequest(400, 'the body must be a JSON object, e.g. {"text": "It sleeps."}')
    unknown = sorted(set(req) - set(FIELDS))
    if unknown:
        raise BadRequest(400, f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}: "
                              f"the fields are {', '.join(FIELDS)}")
    for name, kind in FIELDS.items():
        if name in req and not isinstance(req[name], kind):
            raise BadRequest(400, f"field {name!r} must be a {'string' if kind is str else kind.__name__}")
    if ("text" in req) == ("lines" in req):
        raise BadRequest(400, 'missing field "text" (the document, one sentence a line), or give "lines" '
                              '(a list of sentences) instead' if "text" not in req
                              else 'give "text" or "lines", not both')
    if "lines" in req and not all(isinstance(x, str) and "\n" not in x for x in req["lines"]):
        raise BadRequest(400, 'field "lines" must be a list of strings without line feeds')
    lines = list(req["lines"]) if "lines" in req else text_lines(req["text"])
    if req.get("split"):
        lines = [s for line in lines for s in split_sentences(line)]
    return JsonRequest(lines, req.get("raw", raw_default), req.get("view", False))


def json_answer(req: JsonRequest, got: Served, view_html: str | None = None) -> dict:
    ans = {"translation": "\n".join(got.lines.outputs), "lines": got.lines.outputs, "source": req.lines,
           "source_tokens": [" ".join(t) for t in got.source_tokens], "tokens": got.lines.tokens,
           "alignment": got.lines.alignments, "trace": [json.loads(trace_json(tr)) for tr in got.lines.traces],
           "raw": req.raw, "seconds": round(got.seconds, 4)}
    if view_html is not None:
        ans["view_html"] = view_html
    return ans


# -- Moses's XML-RPC -----------------------------------------------------------------------------
# mosesserver (moses/server/TranslationRequest.cpp) takes one struct: "text" the source, and flags
# whose presence alone counts ("align", "word-align", "report-all-factors", "nbest", "sg", "topt",
# ...). It answers a struct: "text", with "align" a list of {"tgt-start", "src-start", "src-end"}
# (one per phrase) and "word-align" a list of {"source-word", "target-word"}.

class RpcFault(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


# xmlrpc-c's fault codes, which mosesserver's faults carry
PARSE_ERROR, NO_SUCH_METHOD, TYPE_ERROR = -503, -506, -501
UNSUPPORTED = ("nbest", "nbest-distinct", "sg", "topt", "lambda", "model_name")


def parse_rpc(body: bytes) -> tuple[str, tuple]:
    """(method, params) of an XML-RPC call; a body that is not one is a BadRequest."""
    try:
        params, method = xmlrpc.client.loads(body, use_builtin_types=True)
    except (xml.parsers.expat.ExpatError, ValueError, TypeError, IndexError, KeyError) as exc:
        raise BadRequest(400, f"not an XML-RPC call: {exc}") from None
    except xmlrpc.client.ResponseError as exc:
        raise BadRequest(400, f"not an XML-RPC call: {exc}") from None
    if method is None:
        raise BadRequest(400, "not an XML-RPC call: no <methodName>")
    return method, params


def rpc_translate_params(method: str, params: tuple) -> tuple[list[str], bool, bool]:
    """(lines, align, word_align) of mosesserver's `translate` call, or an RpcFault as it would
    answer. Guessed, as mosesserver reads one sentence: a text of several lines is translated as
    one document, a line a sentence."""
    if method != "translate":
        raise RpcFault(NO_SUCH_METHOD, f"no such method {method!r}: cad serve has translate")
    if len(params) != 1 or not isinstance(params[0], dict):
        raise RpcFault(TYPE_ERROR, "translate takes one struct, e.g. {text: 'it sleeps .'}")
    p = params[0]
    if "text" not in p:
        raise RpcFault(PARSE_ERROR, "Missing source text")          # mosesserver's own message
    if not isinstance(p["text"], str):
        raise RpcFault(TYPE_ERROR, "text must be a string")
    asked = [k for k in UNSUPPORTED if k in p and p[k] not in (0, False, "", "false")]
    if asked:
        raise RpcFault(TYPE_ERROR, f"cad serve does not answer {', '.join(asked)}: it translates documents "
                                   "(text, align, word-align)")
    return text_lines(p["text"]), "align" in p, "word-align" in p


def rpc_answer(got: Served, align: bool, word_align: bool) -> dict:
    """mosesserver's answer struct. The lines of a multi-line text are joined by line feeds and
    their alignments numbered through the whole text, as if its words were one sequence (guessed:
    mosesserver never answers more than one sentence)."""
    ans: dict = {"text": "\n".join(got.lines.outputs)}
    src_shift = tgt_shift = 0
    words, phrases = [], []
    for k, al in enumerate(got.lines.alignments):
        for p in al.split():
            s, t = p.split("-")
            words.append({"source-word": int(s) + src_shift, "target-word": int(t) + tgt_shift})
        for tgt_start, src_start, src_end in got.phrases[k]:
            phrases.append({"tgt-start": tgt_start + tgt_shift, "src-start": src_start + src_shift,
                            "src-end": src_end + src_shift})
        src_shift += len(got.source_tokens[k])
        tgt_shift += len(got.lines.tokens[k].split())
    if align:
        ans["align"] = phrases
    if word_align:
        ans["word-align"] = words
    return ans


def rpc_response(result: dict) -> bytes:
    return xmlrpc.client.dumps((result,), methodresponse=True, allow_none=False, encoding="utf-8").encode("utf-8")


def rpc_fault(fault: RpcFault) -> bytes:
    return xmlrpc.client.dumps(xmlrpc.client.Fault(fault.code, str(fault)), methodresponse=True,
                               encoding="utf-8").encode("utf-8")
