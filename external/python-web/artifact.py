"""Prints the deployable size of one contract C server as JSON, run with the venv's python:

    python artifact.py <fastapi|litestar|http-server>

{"bytes": <app files + the installed closure>, "packages": [...]}: the app's own files (run.py,
webapp/contract.py and the server's module) plus, for each distribution in the dependency
closure of the server's requirements (extras followed, e.g. uvicorn[standard]), every file its
RECORD lists under site-packages (apparent sizes, __pycache__ excluded). The Python interpreter
and the standard library are excluded. Nothing is imported from the apps themselves."""

from __future__ import annotations

import json
import sys
from importlib import metadata
from pathlib import Path

from pip._vendor.packaging.requirements import Requirement
from pip._vendor.packaging.utils import canonicalize_name

HERE = Path(__file__).resolve().parent
ROOTS = {"fastapi": ["fastapi", "uvicorn[standard]"], "litestar": ["litestar", "uvicorn[standard]"], "http-server": []}
MODULES = {"fastapi": "fastapi_app.py", "litestar": "litestar_app.py", "http-server": "stdlib_server.py"}


def closure(roots: list[str]) -> dict[str, metadata.Distribution]:
    found: dict[str, metadata.Distribution] = {}
    seen: set[tuple[str, str]] = set()
    todo = [Requirement(r) for r in roots]
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        extras = sorted(req.extras) or [""]
        if all((name, e) in seen for e in extras):
            continue
        dist = metadata.distribution(req.name)
        found[name] = dist
        for extra in extras:
            seen.add((name, extra))
            for raw in dist.requires or []:
                sub = Requirement(raw)
                if sub.marker is None or sub.marker.evaluate({"extra": extra}):
                    todo.append(sub)
    return found


def size(dist: metadata.Distribution) -> int:
    total = 0
    for f in dist.files or []:
        if "__pycache__" in f.parts or f.parts[0] == "..":
            continue
        p = Path(str(f.locate()))
        if p.is_file():
            total += p.stat().st_size
    return total


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[1] not in ROOTS:
        print(f"usage: python artifact.py <{'|'.join(ROOTS)}>", file=sys.stderr)
        return 2
    server = argv[1]
    dists = closure(ROOTS[server])
    own = [HERE / "run.py", HERE / "webapp" / "__init__.py", HERE / "webapp" / "contract.py", HERE / "webapp" / MODULES[server]]
    total = sum(p.stat().st_size for p in own) + sum(size(d) for d in dists.values())
    print(json.dumps({"bytes": total, "packages": sorted(dists)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
