"""Contract C on Python's standard library alone: http.server's ThreadingHTTPServer, the floor.

One thread per connection, HTTP/1.1 keep-alive (the other servers keep connections open too;
http.server's default HTTP/1.0 would close every connection and measure TCP set-up instead), with
TCP_NODELAY (see Handler), no per-request log line (BaseHTTPRequestHandler logs every request to
stderr by default)."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

from .contract import JSON_TYPE, METHOD_NOT_ALLOWED, NOT_FOUND, answer, dumps, match

HOST = "127.0.0.1"
SHUTDOWN_DEADLINE_S = 4.5


class _InFlight:
    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()

    def __enter__(self) -> None:
        with self.lock:
            self.count += 1

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.count -= 1


IN_FLIGHT = _InFlight()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # BaseHTTPRequestHandler writes the headers and the body in two sends; on a keep-alive
    # connection Nagle's algorithm then holds the body until the client's delayed ACK (~40 ms per
    # request here). StreamRequestHandler's documented switch sets TCP_NODELAY.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass

    def _send(self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _discard_body(self) -> None:
        # An unrouted request may carry a body: read it so the next request on the connection
        # starts at the right byte; a chunked one is not worth parsing here, so close instead.
        length = self.headers.get("Content-Length")
        if length and length.isdigit():
            self.rfile.read(int(length))
        elif self.headers.get("Transfer-Encoding"):
            self.close_connection = True

    def _handle(self) -> None:
        with IN_FLIGHT:
            # ASGI servers route on the percent-decoded path (scope["path"]); so does this one.
            path = unquote(self.path.split("?", 1)[0].split("#", 1)[0])
            m = match(path)
            if m is None:
                self._discard_body()
                return self._send(404, dumps(NOT_FOUND), JSON_TYPE)
            route, params = m
            if self.command not in route["methods"]:
                self._discard_body()
                return self._send(405, dumps(METHOD_NOT_ALLOWED), JSON_TYPE, {"Allow": ", ".join(route["methods"])})
            content_type, body = answer(route["id"], params)
            return self._send(200, body, content_type)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _handle


def main() -> int:
    # run.py has checked PORT.
    httpd = ThreadingHTTPServer((HOST, int(os.environ.get("PORT", "0") or "0")), Handler)
    httpd.daemon_threads = True
    stopping = threading.Event()

    def on_signal(_sig: int, _frame: object) -> None:
        if not stopping.is_set():
            stopping.set()
            # shutdown() waits for serve_forever to return: call it off the main thread.
            threading.Thread(target=httpd.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    sys.stdout.write(f"listening on http://{HOST}:{httpd.server_address[1]}\n")
    sys.stdout.flush()
    httpd.serve_forever(poll_interval=0.1)
    httpd.socket.close()  # stop accepting; connection threads are daemons
    deadline = time.monotonic() + SHUTDOWN_DEADLINE_S
    while IN_FLIGHT.count > 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    return 0
