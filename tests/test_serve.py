"""cad serve: a server started as a user starts it (`cad serve --port 0`, its address read from
stderr) on a model trained here from the sample corpus with the CM as decoder feature, asked over
real HTTP: the same output, alignment and trace as `cad translate` on the same configuration; two
documents at once, each answered with its own; every bad request refused with a 4xx and the next
one served; Moses's XML-RPC `translate`; SIGTERM and Ctrl-C mid-request leaving cleanly; and the
page in headless Chromium, a pronoun's card a click away."""

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import xmlrpc.client
from pathlib import Path

import pytest

from cad.cli import main
from cad.sample import SAMPLE_PREFIX
from cad.serve.requests import BadRequest, parse_json_request, text_lines
from cad.serve.sentences import split_sentences

REPO = Path(__file__).resolve().parents[1]
# a pronoun whose antecedent is in the sentence before: the mouse makes it elle, the cat il
MOUSE = ["i saw the mouse yesterday .", "it is expensive ."]
CAT = ["i saw the cat yesterday .", "it is expensive ."]
RAW = "I saw the mouse yesterday. It is expensive."
START_TIMEOUT = 180


@pytest.fixture(scope="module")
def feature_config(tmp_path_factory) -> Path:
    """The sample corpus's model with the class CM as CoreferenceModel feature (as `make` builds
    moses_configs/baseline.feature.ini), built from the embedded sample: about 10 s."""
    out = tmp_path_factory.mktemp("serve-model")
    assert main(["-q", "train", "--corpus", str(SAMPLE_PREFIX), "--out", str(out / "model")]) == 0
    assert main(["-q", "cm", "build", "--corpus", str(out / "model" / "corpus"), "--align",
                 str(out / "model" / "aligned.grow-diag-final-and"), "--backend", "sieve", "--out", str(out / "cm")]) == 0
    assert main(["-q", "cm", "config", "--mode", "feature", "--base", str(out / "model" / "moses.ini"), "--cm",
                 str(out / "cm" / "classes.gz"), "--out", str(out / "feature.ini")]) == 0
    return out / "feature.ini"


class Served:
    """A `cad serve` process and its address."""

    def __init__(self, proc: subprocess.Popen, err: Path, host: str, port: int):
        self.proc, self.err, self.host, self.port = proc, err, host, port
        self.url = f"http://{host}:{port}/"

    def stderr(self) -> str:
        return self.err.read_text(encoding="utf-8", errors="replace")

    def stop(self, sig=signal.SIGTERM, timeout: float = 60) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout)


def start_server(config: Path, tmp: Path, *args: str) -> Served:
    err = tmp / f"serve-{time.monotonic_ns()}.err"
    with open(err, "w") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "cad", "serve", "--config", str(config), "--port", "0", *args],
                                stdout=subprocess.DEVNULL, stderr=fh, stdin=subprocess.DEVNULL,
                                env={**os.environ, "PYTHONPATH": str(REPO)})
    deadline = time.time() + START_TIMEOUT
    while time.time() < deadline:
        m = re.search(r"listening on http://([\d.]+):(\d+)/", err.read_text())
        if m:
            return Served(proc, err, m.group(1), int(m.group(2)))
        if proc.poll() is not None:
            pytest.fail(f"cad serve exited with {proc.returncode}:\n{err.read_text()}")
        time.sleep(0.1)
    proc.kill()
    pytest.fail(f"cad serve did not listen within {START_TIMEOUT} s:\n{err.read_text()}")


@pytest.fixture(scope="module")
def server(feature_config, tmp_path_factory):
    s = start_server(feature_config, tmp_path_factory.mktemp("serve"), "--max-request-size", "4K")
    yield s
    assert s.stop() == 0
    assert "Traceback" not in s.stderr()


def request(s: Served, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
            timeout: float = 120) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection(s.host, s.port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, dict(r.getheaders()), r.read()
    finally:
        conn.close()


def translate(s: Served, payload: dict, **kw) -> dict:
    status, headers, body = request(s, "POST", "/translate", json.dumps(payload).encode("utf-8"),
                                    {"Content-Type": "application/json"}, **kw)
    assert status == 200, body
    assert headers["Content-Type"].startswith("application/json")
    return json.loads(body)


def cad_translate(config: Path, tmp: Path, lines: list[str], *extra: str) -> dict:
    """`cad translate` on the same configuration: its output, alignment and trace lines."""
    (tmp / "in.en").write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    assert main(["-q", "translate", "--config", str(config), "--input", str(tmp / "in.en"), "--out",
                 str(tmp / "out.fr"), "--alignment-out", str(tmp / "out.align"), "--trace", str(tmp / "trace.jsonl"),
                 "--tokens-out", str(tmp / "out.tok"), *extra]) == 0
    read = lambda name: (tmp / name).read_text(encoding="utf-8").splitlines()      # noqa: E731
    return {"lines": read("out.fr"), "alignment": read("out.align"), "tokens": read("out.tok"),
            "trace": [json.loads(x) for x in read("trace.jsonl")]}


# -- the same output as cad translate -----------------------------------------------------------

@pytest.mark.parametrize("raw", [False, True])
def test_a_document_gives_what_cad_translate_gives(server, feature_config, tmp_path, raw):
    lines = [RAW] if raw else MOUSE
    got = translate(server, {"lines": lines, "raw": raw})
    want = cad_translate(feature_config, tmp_path, lines, *(["--raw"] if raw else []))
    assert {k: got[k] for k in want} == want
    assert got["translation"] == "\n".join(want["lines"])
    # the pronoun took its antecedent from the first sentence
    if not raw:
        (rec,) = got["trace"]
        assert (rec["sentence"], rec["antecedent"], rec["antecedent_sentence"]) == (1, "the mouse", 0)
        assert rec["target"] == "elle" and got["lines"][1].split()[0] == "elle"


def test_text_with_sentences_found_and_health(server):
    got = translate(server, {"text": "I saw the mouse yesterday. It is expensive.\n", "raw": True, "split": True})
    assert got["source"] == ["I saw the mouse yesterday.", "It is expensive."]
    assert got["lines"][1].lower().startswith("elle")
    status, _, body = request(server, "GET", "/health")
    health = json.loads(body)
    assert status == 200 and health["status"] == "ok" and (health["system"], health["mode"]) == ("cm", "feature")


def test_two_documents_at_once_each_get_their_own(server):
    alone = {tuple(d): translate(server, {"lines": d})["lines"] for d in (MOUSE, CAT)}
    assert alone[tuple(MOUSE)][1].split()[0] == "elle" and alone[tuple(CAT)][1].split()[0] == "il"
    for _ in range(3):
        barrier, got, errors = threading.Barrier(2), {}, []

        def client(doc):
            try:
                barrier.wait(10)
                got[tuple(doc)] = translate(server, {"lines": doc * 3})["lines"]
            except Exception as exc:          # noqa: BLE001 (reported below, in the test's thread)
                errors.append(exc)

        threads = [threading.Thread(target=client, args=(d,)) for d in (MOUSE, CAT)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors
        for doc in (MOUSE, CAT):
            assert got[tuple(doc)][:2] == alone[tuple(doc)]


def test_worker_processes_translate_documents_side_by_side(server, feature_config, tmp_path):
    s = start_server(feature_config, tmp_path, "--workers", "2")
    try:
        alone = {tuple(d): translate(server, {"lines": d}) for d in (MOUSE, CAT)}
        got: dict = {}
        threads = [threading.Thread(target=lambda d=d: got.setdefault(tuple(d), translate(s, {"lines": d})))
                   for d in (MOUSE, CAT) * 2]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        for doc in (MOUSE, CAT):
            want = alone[tuple(doc)]
            assert {k: got[tuple(doc)][k] for k in ("lines", "alignment", "trace")} == \
                {k: want[k] for k in ("lines", "alignment", "trace")}
    finally:
        assert s.stop() == 0
    assert "Traceback" not in s.stderr()


# -- bad requests ---------------------------------------------------------------------------------

def _raw_http(s: Served, data: bytes) -> tuple[int, bytes]:
    """A request written byte for byte (what http.client would not send)."""
    with socket.create_connection((s.host, s.port), timeout=30) as sock:
        sock.sendall(data)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    answer = b"".join(chunks)
    return int(answer.split(b" ", 2)[1]), answer.partition(b"\r\n\r\n")[2]


BAD = [
    ("too large", "POST", "/translate", b'{"text": "' + b"x " * 3000 + b'"}', 413, "at most 4096"),
    ("malformed JSON", "POST", "/translate", b'{"text": "it sleeps .",', 400, "malformed JSON"),
    ("bad UTF-8", "POST", "/translate", b'{"text": "caf\xe9 ."}', 400, "not UTF-8"),
    ("missing field", "POST", "/translate", b'{"raw": true}', 400, 'missing field "text"'),
    ("wrong type", "POST", "/translate", b'{"text": ["it"]}', 400, "must be a string"),
    ("unknown field", "POST", "/translate", b'{"text": "it", "nbest": 3}', 400, "unknown field 'nbest'"),
    ("not an object", "POST", "/translate", b'["it sleeps ."]', 400, "JSON object"),
    ("unknown path", "GET", "/translate.php", None, 404, "no such path"),
    ("wrong method", "GET", "/translate", None, 405, "answers POST"),
    ("wrong method on the page", "DELETE", "/", None, 405, "answers GET"),
    ("not XML-RPC", "POST", "/RPC2", b"<methodCall><methodName>translate", 400, "not an XML-RPC call"),
]


@pytest.mark.parametrize("name,method,path,body,status,message", BAD, ids=[b[0] for b in BAD])
def test_a_bad_request_is_refused_and_the_next_one_served(server, name, method, path, body, status, message):
    got, headers, answer = request(server, method, path, body, {"Content-Type": "application/json"})
    assert got == status, answer
    err = json.loads(answer)
    assert message in err["error"] and err["status"] == status
    assert b"Traceback" not in answer
    if status == 405:
        assert headers["Allow"]
    assert translate(server, {"lines": MOUSE})["lines"][1].split()[0] == "elle"


@pytest.mark.parametrize("data,status", [
    (b"POST /translate HTTP/1.1\r\nHost: x\r\n\r\n", 411),                              # no Content-Length
    (b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Length: many\r\n\r\n", 400),
    (b"POST /translate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 411),
    (b"this is not HTTP\r\n\r\n", 400),
])
def test_malformed_http_is_refused(server, data, status):
    got, body = _raw_http(server, data)
    assert got == status and b"Traceback" not in body and "error" in json.loads(body)
    assert translate(server, {"lines": CAT})["lines"][1].split()[0] == "il"


def test_the_server_never_printed_a_traceback(server):
    assert "Traceback" not in server.stderr()


# -- Moses's XML-RPC ------------------------------------------------------------------------------

def test_xmlrpc_translate_as_mosesserver(server, feature_config, tmp_path):
    proxy = xmlrpc.client.ServerProxy(f"{server.url}RPC2")
    got = proxy.translate({"text": "\n".join(MOUSE), "align": "true", "word-align": "true"})
    want = cad_translate(feature_config, tmp_path, MOUSE)
    assert got["text"] == "\n".join(want["lines"])
    # word alignments numbered through the text, as if its words were one sequence
    first = len(MOUSE[0].split())
    out_first = len(want["tokens"][0].split())
    points = [(int(p.split("-")[0]), int(p.split("-")[1])) for p in want["alignment"][1].split()]
    assert [(a["source-word"] - first, a["target-word"] - out_first) for a in got["word-align"]
            if a["source-word"] >= first] == points
    phrases = got["align"]
    assert phrases[0]["src-start"] == 0 and phrases[0]["tgt-start"] == 0
    assert all(p["src-end"] >= p["src-start"] for p in phrases)
    assert sorted(i for p in phrases for i in range(p["src-start"], p["src-end"] + 1)) == \
        list(range(sum(len(x.split()) for x in MOUSE)))
    plain = proxy.translate({"text": MOUSE[0]})
    assert plain == {"text": want["lines"][0]}
    with pytest.raises(xmlrpc.client.Fault, match="Missing source text"):
        proxy.translate({"txt": "it sleeps ."})
    with pytest.raises(xmlrpc.client.Fault, match="no such method"):
        proxy.system.listMethods()
    with pytest.raises(xmlrpc.client.Fault, match="nbest"):
        proxy.translate({"text": "it sleeps .", "nbest": 10})


# -- stopping -------------------------------------------------------------------------------------

@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_mid_request_stops_cleanly(feature_config, tmp_path, sig):
    # the Python search: a document long enough to be still translating when the signal comes
    s = start_server(feature_config, tmp_path, "--engine", "python")
    doc = (MOUSE + CAT) * 40
    answer: dict = {}

    def client():
        answer["got"] = translate(s, {"lines": doc})
        answer["at"] = time.time()

    t = threading.Thread(target=client)
    t.start()
    time.sleep(1.0)
    sent = time.time()
    code = s.stop(sig)
    t.join(60)
    assert code == 0
    err = s.stderr()
    assert "Traceback" not in err and f"stopped ({signal.Signals(sig).name})" in err
    # the request in flight was answered whole, after the signal: the server waited for it
    assert len(answer["got"]["lines"]) == len(doc) and answer["at"] > sent
    with pytest.raises(OSError):
        request(s, "GET", "/health", timeout=5)


def test_a_bad_config_names_the_file_and_exits_non_zero(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "cad", "serve", "--config", str(tmp_path / "nosuch.ini"), "--port", "0"],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 1 and "nosuch.ini" in proc.stderr and "Traceback" not in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "cad", "serve", "--config", "x.ini", "--max-request-size", "lots"],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 2 and "not a size" in proc.stderr


# -- the page in a real browser ------------------------------------------------------------------



def test_the_page_translates_typed_text_and_shows_a_pronouns_card(server, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    outside = []
    page.on("request", lambda r: None if r.url.startswith(server.url) else outside.append(r.url))
    page.goto(server.url)
    page.wait_for_selector("body[data-ready]")
    page.fill("#src", RAW)                      # typed: sent after the pause, sentences found by the server
    page.wait_for_selector('#out[data-sentences="2"]', timeout=60_000)
    lines = page.locator("#out li .fr").all_inner_texts()
    assert lines[1].lower().startswith("elle") and "2 sentences" in page.inner_text("#status")
    # the pronoun, marked in cad view's page, and its card on a click
    view = page.frame_locator("#view")
    view.locator("body[data-ready]").wait_for()
    pron = view.locator("[data-pron]")
    assert pron.count() == 1 and pron.inner_text() == "It"
    assert " ".join(view.locator("[data-ante-of]").all_inner_texts()) == "the mouse"
    pron.click()
    card = view.locator("#card")
    assert card.is_visible() and "the mouse" in card.inner_text() and "souris" in card.inner_text()
    assert view.locator("svg.arrows path.arrow").count() == 1
    # a document edited: the next request answers the new text
    page.fill("#src", "I saw the cat yesterday. It is expensive.")
    deadline = time.time() + 60
    # polled with evaluate: wait_for_function evaluates strings, which the page's CSP forbids
    while not page.evaluate("() => !cadServe.busy() && [...document.querySelectorAll('#out li .en')]"
                            ".some(e => e.textContent.includes('cat'))"):
        assert time.time() < deadline, "the edited text was never translated"
        page.wait_for_timeout(50)
    assert page.locator("#out li .fr").all_inner_texts()[1].lower().startswith("il")
    page.screenshot(path=str(tmp_path / "page.png"))
    assert (tmp_path / "page.png").stat().st_size > 10_000
    assert outside == []
    page.close()


# -- the request's parts, without a server --------------------------------------------------------

def test_text_lines_as_a_file_reads_them():
    assert text_lines("") == [] and text_lines("a\n") == ["a"] and text_lines("a\r\n\nb") == ["a", "", "b"]


def test_json_request_fields():
    req = parse_json_request(b'{"text": "It sleeps. It is a cat.", "split": true}', raw_default=True)
    assert req.lines == ["It sleeps.", "It is a cat."] and req.raw and not req.view
    with pytest.raises(BadRequest, match="not both"):
        parse_json_request(b'{"text": "a", "lines": ["a"]}', False)
    with pytest.raises(BadRequest, match="without line feeds"):
        parse_json_request(b'{"lines": ["a\\nb"]}', False)
    with pytest.raises(BadRequest, match="nested too deeply"):
        parse_json_request(b"[" * 100000 + b"]" * 100000, False)


def test_sentences_of_typed_prose():
    assert split_sentences("My cat caught a mouse. It was not dead! Was it? Mr. Smith saw J. R. Tolkien.") == \
        ["My cat caught a mouse.", "It was not dead!", "Was it?", "Mr. Smith saw J. R. Tolkien."]
    assert split_sentences('He said "Go." Then it left... "Why?" she asked.') == \
        ['He said "Go."', "Then it left...", '"Why?" she asked.']
    assert split_sentences("   ") == [] and split_sentences("no end") == ["no end"]
