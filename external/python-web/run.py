"""Launcher for the contract C Python servers (common rules of /work/shared/CONTRACT.md):

    python run.py <fastapi|litestar|http-server>

- PORT: 0 = any free port. For uvicorn it is picked here, before uvicorn starts: with several
  workers the port must be known up front (the supervisor binds it once for all of them).
- WORKERS (fastapi, litestar; default 1): uvicorn worker processes.
- PYTHON_GC (default: the interpreter's): the garbage collector of a one-worker server, set once
  the app is imported and before it serves: `off` (gc.disable()), `freeze` (gc.freeze(): what
  import allocated moves to the permanent generation and is never scanned again) or thresholds
  `g0[,g1[,g2]]` (gc.set_threshold). A knob of `npm run bench:aa -- --suite python`.
- Prints `listening on http://127.0.0.1:<port>` on stdout once the server answers: http.server
  as soon as it is bound, uvicorn once a watcher thread's GET /healthz answered 200.
- SIGTERM: stop accepting, finish in-flight requests (at most 4 s), exit 0.
"""

from __future__ import annotations

import http.client
import os
import socket
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
APPS = {"fastapi": "webapp.fastapi_app:app", "litestar": "webapp.litestar_app:app", "http-server": None}


def usage() -> int:
    print(f"usage: python run.py <{'|'.join(APPS)}>", file=sys.stderr)
    return 2


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


def parse_gc(raw: str) -> str | tuple[int, ...] | None:
    """PYTHON_GC as run.py applies it; raises ValueError naming what is wrong."""
    if raw in ("", "default"):
        return None
    if raw in ("off", "freeze"):
        return raw
    parts = raw.split(",")
    if 1 <= len(parts) <= 3 and all(p.isdigit() for p in parts):
        return tuple(int(p) for p in parts)
    raise ValueError(f"PYTHON_GC must be default, off, freeze or thresholds like 7000,10,10, got {raw!r}")


def apply_gc(setting: str | tuple[int, ...] | None) -> None:
    import gc

    if setting == "off":
        gc.disable()
    elif setting == "freeze":
        gc.collect()
        gc.freeze()
    elif isinstance(setting, tuple):
        gc.set_threshold(*setting)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[1] not in APPS:
        return usage()
    name = argv[1]
    raw_port = os.environ.get("PORT", "0") or "0"
    raw_workers = os.environ.get("WORKERS", "1") or "1"
    if not raw_port.isdigit() or int(raw_port) > 65535:
        print(f"PORT must be a port number, got {raw_port!r}", file=sys.stderr)
        return 2
    if not raw_workers.isdigit() or int(raw_workers) < 1:
        print(f"WORKERS must be an integer >= 1, got {raw_workers!r}", file=sys.stderr)
        return 2
    try:
        gc_setting = parse_gc(os.environ.get("PYTHON_GC", ""))
    except ValueError as err:
        print(err, file=sys.stderr)
        return 2
    if gc_setting is not None and name != "http-server" and int(raw_workers) > 1:
        print(f"PYTHON_GC applies to a one-worker server (uvicorn starts each of {raw_workers} workers afresh); unset it or set WORKERS=1", file=sys.stderr)
        return 2
    sys.path.insert(0, str(HERE))
    # Read the contract here, so that a missing or broken file is one line and exit 2, not a
    # traceback from every worker.
    try:
        import webapp.contract  # noqa: F401
    except (OSError, ValueError) as err:
        print(f"cannot read the contract C data ({err}); set CONTRACT_C_PATH to packages/servers/contract/contract-c.json", file=sys.stderr)
        return 2
    if name == "http-server":
        from webapp.stdlib_server import main as serve

        apply_gc(gc_setting)
        return serve()

    port = int(raw_port) or free_port()
    workers = int(raw_workers)

    import uvicorn

    if gc_setting is not None:
        # One worker serves in this process: import the app here (uvicorn finds it in sys.modules)
        # so that a freeze covers what the app allocated at import.
        import importlib

        importlib.import_module(APPS[name].split(":")[0])
        apply_gc(gc_setting)
    stop = threading.Event()
    threading.Thread(target=announce_when_serving, args=(port, stop), daemon=True).start()
    try:
        uvicorn.run(
            APPS[name],
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
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
