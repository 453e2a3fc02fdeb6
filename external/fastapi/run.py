"""Launcher for the FastAPI gateway (contract B common rules).

- PORT (0 = pick a free port here, before uvicorn starts: with several workers the port must
  be known up front, and the supervisor binds it once for all of them).
- WORKERS (default 1). With more than one worker, PROMETHEUS_MULTIPROC_DIR is set to a fresh
  temporary directory so /metrics sums every worker's figures; it is removed on exit.
- Prints `listening on http://127.0.0.1:<port>` on stdout once GET /healthz answers 200
  (a watcher thread polls it), so the line means "serving", not "about to start".
- SIGTERM: uvicorn stops accepting, finishes in-flight requests (at most 4 s), exits.
The uvicorn process is this process (the supervisor when WORKERS > 1), so the process tree
is launcher/supervisor + workers (+ multiprocessing's resource tracker).
"""

from __future__ import annotations

import http.client
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def announce_when_serving(port: int, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/healthz")
            status = conn.getresponse().status
            conn.close()
            if status == 200:
                sys.stdout.write(f"listening on http://127.0.0.1:{port}\n")
                sys.stdout.flush()
                return
        except OSError:
            pass
        time.sleep(0.01)


def main() -> int:
    port = int(os.environ.get("PORT", "0") or 0)
    if port == 0:
        port = free_port()
    workers = int(os.environ.get("WORKERS", "1") or 1)
    if workers < 1:
        print("WORKERS must be >= 1", file=sys.stderr)
        return 2

    sys.path.insert(0, str(HERE))
    # Fail fast on bad configuration, in this process, with a readable message.
    from gateway.contract import Config
    from gateway.upstream import client_from_env

    try:
        Config()
        client_from_env()
    except ValueError as err:
        print(f"fastapi-gateway: {err}", file=sys.stderr)
        return 2

    multiproc_dir = None
    if workers > 1:
        multiproc_dir = tempfile.mkdtemp(prefix="benchsuite-prom-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = multiproc_dir
    else:
        os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)

    import uvicorn

    stop = threading.Event()
    threading.Thread(target=announce_when_serving, args=(port, stop), daemon=True).start()
    try:
        uvicorn.run(
            "gateway.app:app",
            app_dir=str(HERE),
            host="127.0.0.1",
            port=port,
            workers=workers,
            loop="uvloop",
            http="httptools",
            lifespan="on",
            access_log=False,
            server_header=False,
            log_level=os.environ.get("UVICORN_LOG_LEVEL", "warning"),
            timeout_graceful_shutdown=4,
        )
    finally:
        stop.set()
        if multiproc_dir:
            shutil.rmtree(multiproc_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
