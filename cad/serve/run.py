"""Starting and stopping `cad serve`: the socket bound (port 0: any free one, printed), requests
served in threads until SIGTERM or Ctrl-C, then no new connection accepted, the requests in flight
given `grace` seconds to finish, and the process left with exit status 0."""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import threading

from cad.core.errors import CadError
from cad.serve.server import Server

log = logging.getLogger(__name__)
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def bind(host: str, port: int, **kwargs) -> Server:
    """The server listening on host:port (IPv6 where the host is an IPv6 address)."""
    Server.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return Server((host, port), **kwargs)
    except OSError as exc:
        raise CadError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def url_of(server: Server) -> str:
    host, port = server.server_address[:2]
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def serve_until_stopped(server: Server, grace: float) -> int:
    """Serve until SIGTERM or SIGINT; 0 once stopped (the signal is how a server is meant to end)."""
    stop = threading.Event()
    caught: list[int] = []

    def on_signal(signum, _frame) -> None:
        caught.append(signum)
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in STOP_SIGNALS}
    # serve_forever in a thread of its own: shutdown() waits for its loop, so it cannot be called
    # from the thread that runs it, and the main thread must stay free to take the signals
    loop = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, name="cad-serve-accept",
                            daemon=True)
    loop.start()
    print(f"cad serve: listening on {url_of(server)}", file=sys.stderr, flush=True)
    try:
        while not stop.wait(0.5):
            if not loop.is_alive():
                raise CadError("the server's accept loop stopped")
    finally:
        server.stopping = True
        server.shutdown()
        left = server.wait_idle(grace)
        server.server_close()
        for s, handler in previous.items():
            signal.signal(s, handler)
    name = signal.Signals(caught[0]).name if caught else "stop"
    server.engine.close()
    if left:
        print(f"cad serve: stopped ({name}); {left} request{'s' if left > 1 else ''} still translating after "
              f"{grace:g} s left unanswered", file=sys.stderr, flush=True)
        sys.stdout.flush()
        # a thread inside the decoder cannot be stopped; leave without waiting for it at exit
        os._exit(0)
    print(f"cad serve: stopped ({name})", file=sys.stderr, flush=True)
    return 0
