"""Contract C on Litestar (served by uvicorn): idiomatic handlers returning dicts and strings,
serialised by Litestar's own msgspec path.

Configuration that differs from Litestar's defaults, each because the contract says so:
- `media_type` `application/json; charset=utf-8` on the JSON handlers (Litestar's default is
  `application/json`);
- no OpenAPI routes (/schema would answer where the contract says 404);
- exception handlers for 404 and 405 giving the contract's bodies and `Allow`.

Litestar answers OPTIONS on every path itself (204 + `Allow: GET, OPTIONS`, added by its router
unconditionally); OPTIONS is outside contract C (docs/contract-c.md)."""

from __future__ import annotations

from typing import Any

from litestar import Litestar, MediaType, Request, Response, get
from litestar.exceptions import HTTPException

from .contract import HEALTHZ, HELLO, JSON_BODY, JSON_TYPE, LARGE, METHOD_NOT_ALLOWED, NOT_FOUND, ROOT_HTML, allow_of, item_body, render_page


def not_found(_request: Request, _exc: HTTPException) -> Response:
    return Response(NOT_FOUND, status_code=404, media_type=JSON_TYPE)


def method_not_allowed(request: Request, _exc: HTTPException) -> Response:
    # Litestar's own Allow lists the OPTIONS handler it adds to every path; the contract's lists
    # the routed methods, as the other servers' do.
    return Response(METHOD_NOT_ALLOWED, status_code=405, media_type=JSON_TYPE, headers={"allow": allow_of(request.url.path) or ""})


@get("/healthz", media_type=JSON_TYPE)
async def healthz() -> dict[str, Any]:
    return HEALTHZ


@get("/hello", media_type=JSON_TYPE)
async def hello() -> dict[str, Any]:
    return HELLO


@get("/", media_type=MediaType.HTML)
async def root() -> str:
    return ROOT_HTML


@get("/api/json", media_type=JSON_TYPE)
async def api_json() -> dict[str, Any]:
    return JSON_BODY


@get("/items/{item_id:str}", media_type=JSON_TYPE)
async def item(item_id: str) -> dict[str, str]:
    return item_body(item_id)


@get("/api/large", media_type=JSON_TYPE)
async def large() -> list[dict[str, Any]]:
    return LARGE


@get("/page", media_type=MediaType.HTML)
async def page() -> str:
    return render_page()


app = Litestar(
    route_handlers=[healthz, hello, root, api_json, item, large, page],
    openapi_config=None,
    exception_handlers={404: not_found, 405: method_not_allowed},
)
