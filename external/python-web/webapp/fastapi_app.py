"""Contract C on FastAPI (served by uvicorn): handlers returning plain dicts and strings, without
return annotations, as the sources' apps were written (`return {"Hello": "World"}`): FastAPI
serialises them with jsonable_encoder + the response class (json.dumps). A return annotation
would make FastAPI validate through Pydantic, and its Rust fast path (dump_json) applies only
with the default response class, which sends `application/json` without the contract's charset.

Configuration that differs from FastAPI's defaults, each because the contract says so:
- a JSONResponse subclass as the default response class, for `application/json; charset=utf-8`
  (Starlette's JSONResponse sends `application/json`; its bytes are the same compact JSON);
- no OpenAPI routes (/docs, /redoc, /openapi.json would answer where the contract says 404);
- no trailing-slash redirects (`/hello/` is a 404 as everywhere, not a 307);
- one exception handler for Starlette's HTTPException giving the contract's 404/405 bodies
  (the 405's `Allow` comes from Starlette's router)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .contract import HEALTHZ, HELLO, JSON_BODY, JSON_TYPE, LARGE, METHOD_NOT_ALLOWED, NOT_FOUND, ROOT_HTML, item_body, render_page


class ContractJSONResponse(JSONResponse):
    media_type = JSON_TYPE


app = FastAPI(
    default_response_class=ContractJSONResponse,
    openapi_url=None,
    docs_url=None,
    redoc_url=None,
    redirect_slashes=False,
)


@app.exception_handler(StarletteHTTPException)
async def http_error(_request: Request, exc: StarletteHTTPException) -> ContractJSONResponse:
    if exc.status_code == 405:
        return ContractJSONResponse(METHOD_NOT_ALLOWED, status_code=405, headers=exc.headers)
    if exc.status_code == 404:
        return ContractJSONResponse(NOT_FOUND, status_code=404)
    return ContractJSONResponse({"error": "http_error"}, status_code=exc.status_code, headers=exc.headers)


@app.get("/healthz")
async def healthz():
    return HEALTHZ


@app.get("/hello")
async def hello():
    return HELLO


@app.get("/", response_class=HTMLResponse)
async def root():
    return ROOT_HTML


@app.get("/api/json")
async def api_json():
    return JSON_BODY


@app.get("/items/{item_id}")
async def item(item_id: str):
    return item_body(item_id)


@app.get("/api/large")
async def large():
    return LARGE


@app.get("/page", response_class=HTMLResponse)
async def page():
    return render_page()
