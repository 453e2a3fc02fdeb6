"""Contract C as data plus the framework-free logic: the Python twin of
packages/servers/src/contract-c/contract-c.ts. Both read packages/servers/contract/contract-c.json,
so every body, template and header value is written once; the frameworks only route and send."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[3]
# Without CONTRACT_C_PATH: the checkout's file seen from external/python-web, else the package's
# own copy seen from packages/servers/dist/python-web.
_CANDIDATES = [_ROOT / "packages" / "servers" / "contract" / "contract-c.json", _ROOT / "contract" / "contract-c.json"]
CONTRACT_PATH = Path(os.environ.get("CONTRACT_C_PATH") or next((p for p in _CANDIDATES if p.is_file()), _CANDIDATES[0]))
C: dict[str, Any] = json.loads(CONTRACT_PATH.read_text(encoding="utf-8"))

JSON_TYPE: str = C["contentTypes"]["json"]
HTML_TYPE: str = C["contentTypes"]["html"]
ROUTES: list[dict[str, Any]] = C["routes"]

HEALTHZ: dict[str, Any] = C["bodies"]["healthz"]
HELLO: dict[str, Any] = C["bodies"]["hello"]
JSON_BODY: dict[str, Any] = C["bodies"]["json"]
ROOT_HTML: str = C["bodies"]["rootHtml"]

NOT_FOUND: dict[str, str] = {"error": "not_found"}
METHOD_NOT_ALLOWED: dict[str, str] = {"error": "method_not_allowed"}

_ITEMS = C["items"]


def _price(n: int) -> int | float:
    # JSON.stringify writes 3 for 3.0: an integral price is an int here, so json.dumps and
    # msgspec write the same bytes as node:http.
    p = n * _ITEMS["priceFactor"]
    return int(p) if float(p).is_integer() else p


def make_item(n: int) -> dict[str, Any]:
    return {"id": n, "name": f"{_ITEMS['namePrefix']}{n}", "price": _price(n), "tags": list(_ITEMS["tags"])}


def item_body(item_id: str) -> dict[str, str]:
    """`GET /items/{id}`: the id as the string sent (after percent-decoding)."""
    return {"id": item_id, "name": f"{_ITEMS['namePrefix']}{item_id}"}


# The data behind /api/large and /page exists once per process, as a real app's would (a fixture
# or a cache); serialising and rendering it is the per-request work that is measured.
LARGE: list[dict[str, Any]] = [make_item(n) for n in range(1, C["large"]["count"] + 1)]
_PAGE = C["page"]
PAGE_ROWS: list[dict[str, Any]] = [make_item(n) for n in range(1, _PAGE["rows"] + 1)]


def render_page(rows: list[dict[str, Any]] = PAGE_ROWS) -> str:
    """The ~10 KiB HTML page, built per request from the rows (same bytes as the Node renderer)."""
    row = _PAGE["row"]
    sep = _PAGE["tagSeparator"]
    parts = [_PAGE["head"]]
    for it in rows:
        parts.append(
            row.replace("{{id}}", str(it["id"]))
            .replace("{{name}}", it["name"])
            .replace("{{price}}", f"{it['price']:.2f}")
            .replace("{{tags}}", sep.join(it["tags"]))
        )
    parts.append(_PAGE["tail"])
    return "".join(parts)


def answer(route_id: str, params: dict[str, str]) -> tuple[str, bytes]:
    """The 200 answer of a route (content type, body), made afresh on every call; the twin of
    contract-c.ts's `answer`. http.server sends it; FastAPI and Litestar serialise their own way."""
    if route_id == "healthz":
        return JSON_TYPE, dumps(HEALTHZ)
    if route_id == "hello":
        return JSON_TYPE, dumps(HELLO)
    if route_id == "root":
        return HTML_TYPE, ROOT_HTML.encode("utf-8")
    if route_id == "json":
        return JSON_TYPE, dumps(JSON_BODY)
    if route_id == "item":
        return JSON_TYPE, dumps(item_body(params["id"]))
    if route_id == "large":
        return JSON_TYPE, dumps(LARGE)
    if route_id == "page":
        return HTML_TYPE, render_page().encode("utf-8")
    raise ValueError(f"no route {route_id!r}")


def dumps(obj: Any) -> bytes:
    """Compact JSON exactly as JSON.stringify writes it for these values."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def _segments(path: str) -> list[str]:
    return path.split("/")


_COMPILED = [(r, _segments(r["path"])) for r in ROUTES]


def match(path: str) -> tuple[dict[str, Any], dict[str, str]] | None:
    """Exact, case-sensitive match of a decoded path; `{id}` matches one non-empty segment."""
    parts = _segments(path)
    for route, segs in _COMPILED:
        if len(segs) != len(parts):
            continue
        params: dict[str, str] = {}
        for seg, part in zip(segs, parts):
            if seg.startswith("{"):
                if part == "":
                    break
                params[seg[1:-1]] = part
            elif seg != part:
                break
        else:
            return route, params
    return None


def allow_of(path: str) -> str | None:
    """`Allow` of a known path (its route's methods), None for an unknown path."""
    m = match(path)
    return ", ".join(m[0]["methods"]) if m else None
