"""`cad serve` warm: one sentence and one 20-sentence document through the server's JSON API, the
median and 95th percentile over 50 requests each, then requests per second with 4 clients at once.

    python bench/serve_bench.py [--config moses_configs/baseline.feature.ini] [--data ../shared/data]
                                [--requests 50] [--clients 4] [--json OUT]

The server is started as a user starts it (`cad serve --config ... --port 0`, a free local port)
and its loading timed up to the address it prints; a few requests warm it up (the tables' pages,
the decoder's kept phrases). Inputs: the TED dev talks (tokenized, as `make pronoun-eval`
translates them): the sentence is the first of 15 to 25 words with *it* or *they*, the document the
first talk's first 20 lines; without the shared data, seed 004's demo text (raw). Each time is one
request's wall time at the client (connection, JSON, translation, answer), with the time the
server reports translating; 4 clients send the sentence (then the document) in a loop for the
same number of requests in all, and every concurrent answer is checked against the answer given
alone (no document mixed with another). Targets (issue 63): a sentence within 200 ms, the
document within 2 s.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGETS = {"sentence": 0.2, "document": 2.0}


def inputs(data: Path) -> tuple[dict, dict, str]:
    """(the sentence's request, the document's request, where they come from)."""
    en = data / "en-fr" / "dev.en"
    if not en.is_file():
        demo = (REPO / "cad" / "data" / "demo" / "seed004.en").read_text(encoding="utf-8").splitlines()
        return ({"lines": demo[:1], "raw": True}, {"lines": (demo * 10)[:20], "raw": True},
                "seed 004's demo (raw; no shared dev talks)")
    lines = en.read_text(encoding="utf-8").splitlines()
    sentence = next(x for x in lines if 15 <= len(x.split()) <= 25 and {"it", "they"} & set(x.lower().split()))
    return {"lines": [sentence], "raw": False}, {"lines": lines[:20], "raw": False}, f"{en} (tokenized)"


def start(config: str, extra: list[str]) -> tuple[subprocess.Popen, str, int, float]:
    err = tempfile.NamedTemporaryFile("w+", prefix="cad-serve-bench-", suffix=".err", delete=False)
    t = time.time()
    proc = subprocess.Popen([sys.executable, "-m", "cad", "serve", "--config", config, "--port", "0", *extra],
                            stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL, cwd=REPO)
    while True:
        m = re.search(r"listening on http://([\d.]+):(\d+)/", Path(err.name).read_text())
        if m:
            return proc, m.group(1), int(m.group(2)), time.time() - t
        if proc.poll() is not None:
            sys.exit(f"cad serve exited with {proc.returncode}:\n{Path(err.name).read_text()}")
        if time.time() - t > 600:
            proc.kill()
            sys.exit("cad serve did not listen within 10 min")
        time.sleep(0.05)


def post(host: str, port: int, payload: dict) -> tuple[float, dict]:
    body = json.dumps(payload).encode("utf-8")
    t = time.perf_counter()
    conn = http.client.HTTPConnection(host, port, timeout=600)
    try:
        conn.request("POST", "/translate", body=body, headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        ans = json.loads(r.read())
    finally:
        conn.close()
    if r.status != 200:
        sys.exit(f"the server answered {r.status}: {ans}")
    return time.perf_counter() - t, ans


def percentile(xs: list[float], q: float) -> float:
    """The q-th percentile, nearest rank (the 95th of 50: the 48th smallest)."""
    s = sorted(xs)
    return s[max(0, math.ceil(len(s) * q / 100) - 1)] if s else float("nan")


def sequential(host: str, port: int, payload: dict, n: int) -> dict:
    walls, server = [], []
    for _ in range(n):
        w, ans = post(host, port, payload)
        walls.append(w)
        server.append(ans["seconds"])
    return {"median": statistics.median(walls), "p95": percentile(walls, 95), "server_median": statistics.median(server),
            "min": min(walls), "max": max(walls)}


def concurrent(host: str, port: int, payload: dict, n: int, clients: int, alone: list[str]) -> dict:
    """n requests in all from `clients` threads at once; every answer checked against `alone`."""
    left, lock, mixed = [n], threading.Lock(), []

    def client() -> None:
        while True:
            with lock:
                if left[0] == 0:
                    return
                left[0] -= 1
            _, ans = post(host, port, payload)
            if ans["lines"] != alone:
                mixed.append(ans["lines"])

    threads = [threading.Thread(target=client) for _ in range(clients)]
    t = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wall = time.perf_counter() - t
    return {"requests": n, "clients": clients, "seconds": wall, "per_second": n / wall, "mixed": len(mixed)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="moses_configs/baseline.feature.ini",
                    help="the configuration served (default: %(default)s)")
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"),
                    help="the shared data, for the dev talks (default: %(default)s)")
    ap.add_argument("--requests", type=int, default=50, help="requests per measure (default: %(default)s)")
    ap.add_argument("--clients", type=int, default=4, help="concurrent clients (default: %(default)s)")
    ap.add_argument("--warm-up", type=int, default=3, help="requests of each kind before measuring (default: %(default)s)")
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("serve_args", nargs="*", help="more cad serve options, after --")
    a = ap.parse_args()
    config = Path(a.config) if Path(a.config).is_absolute() else REPO / a.config      # the server runs in REPO
    if not config.is_file():
        sys.exit(f"{config}: no such configuration (run make first)")
    sentence, document, source = inputs(Path(a.data))
    proc, host, port, load = start(str(config), a.serve_args)
    try:
        report = {"config": a.config, "inputs": source, "load_seconds": load,
                  "sentence_words": len(sentence["lines"][0].split()),
                  "document_words": sum(len(x.split()) for x in document["lines"])}
        for name, payload in (("sentence", sentence), ("document", document)):
            for _ in range(a.warm_up):
                _, alone = post(host, port, payload)
            report[name] = sequential(host, port, payload, a.requests)
            report[name]["concurrent"] = concurrent(host, port, payload, a.requests, a.clients, alone["lines"])
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(120)
    report["exit_status"] = code
    print(f"cad serve {a.config}: loaded in {report['load_seconds']:.1f} s; inputs: {source}")
    print(f"{'request':<22}{'median':>9}{'p95':>9}{'server':>9}{'target':>8}  {a.clients} clients")
    for name in ("sentence", "document"):
        r = report[name]
        label = f"{name} ({report[name + '_words']} words)"
        ok = "ok" if r["median"] <= TARGETS[name] and r["p95"] <= TARGETS[name] else "OVER"
        c = r["concurrent"]
        print(f"{label:<22}{r['median']:>8.3f}s{r['p95']:>8.3f}s{r['server_median']:>8.3f}s{TARGETS[name]:>6.1f}s "
              f"{ok:<4} {c['per_second']:.2f} req/s ({c['requests']} in {c['seconds']:.1f} s, {c['mixed']} mixed)")
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 1 if any(report[n]["concurrent"]["mixed"] for n in TARGETS) or code != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
