"""Contract B on FastAPI.

Middleware chain, outermost first (pure ASGI middleware, Starlette's documented way to
write fast middleware): request log -> metrics -> tracing -> error mapper; then FastAPI's
router, where auth is a dependency of the /v1 APIRouter so it only runs for matched
/v1/* routes (the same point in the chain as Fastify's scoped hook and Hummingbird's
group middleware). Upstream calls go through one client per worker process, chosen by
UPSTREAM_CLIENT (see upstream.py): httpx with a pool sized to the load (default), httpx at its
default limits, or aiohttp.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import Response, StreamingResponse
from opentelemetry import trace
from opentelemetry.trace import SpanKind
from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics, generate_latest
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import contract as c
from . import upstream as u

CONFIG = c.Config()
UPSTREAM_CLIENT = u.client_from_env()
MULTIPROC_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR")


def json_response(status: int, body: bytes, headers: dict[str, str] | None = None) -> Response:
    return Response(content=body, status_code=status, headers=headers, media_type=c.JSON_TYPE)


def error_response(err: c.GatewayError) -> Response:
    return json_response(err.status, c.error_body(err.type, err.message), err.headers)


def _route_of(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else c.route_label(scope["path"])


# ------------------------------------------------------------------ middleware


class _StatusWatch:
    """The `send` every middleware below passes on: forwards each ASGI message and remembers the
    response status (500 until one starts) and whether the response has started."""

    __slots__ = ("send", "status", "started")

    def __init__(self, send: Send) -> None:
        self.send = send
        self.status = 500
        self.started = False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.started = True
        await self.send(message)


class RequestLogMiddleware:
    """One line per request on stderr (Python logging), written when the response is done."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.log = logging.getLogger("gateway.request")
        self.log.propagate = False
        self.log.setLevel(logging.INFO)
        if not self.log.handlers:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("%(message)s"))
            self.log.addHandler(handler)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        start = time.perf_counter()
        watch = _StatusWatch(send)

        try:
            await self.app(scope, receive, watch)
        finally:
            self.log.info(
                "request method=%s path=%s status=%d duration_ms=%.3f",
                scope["method"], scope["path"], watch.status, (time.perf_counter() - start) * 1e3,
            )


class MetricsMiddleware:
    """prometheus_client counter + histogram; multiprocess mode when PROMETHEUS_MULTIPROC_DIR is set."""

    def __init__(self, app: ASGIApp, registry: CollectorRegistry | None) -> None:
        self.app = app
        m = c.C["metrics"]
        labels = m["labels"]
        self.counter = Counter(m["counter"]["family"], m["counter"]["help"], labels, registry=registry)
        self.histogram = Histogram(m["histogram"]["family"], m["histogram"]["help"], labels, buckets=m["buckets"], registry=registry)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        start = time.perf_counter()
        watch = _StatusWatch(send)

        try:
            await self.app(scope, receive, watch)
        finally:
            labels = (_route_of(scope), scope["method"], str(watch.status))
            self.counter.labels(*labels).inc()
            self.histogram.labels(*labels).observe(time.perf_counter() - start)


class TracingMiddleware:
    """One server span per request through the OpenTelemetry API; no SDK is installed, so the
    global tracer is the API's no-op tracer (the same work as the other gateways)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.tracer = trace.get_tracer("benchsuite-gateway")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        route = c.route_label(scope["path"])
        watch = _StatusWatch(send)

        with self.tracer.start_as_current_span(
            scope["method"] + " " + route,
            kind=SpanKind.SERVER,
            attributes={"http.request.method": scope["method"], "url.path": scope["path"], "http.route": route},
        ) as span:
            try:
                await self.app(scope, receive, watch)
            finally:
                span.set_attribute("http.response.status_code", watch.status)


class ErrorMapperMiddleware:
    """Turns GatewayError (auth, validation, upstream) and anything unexpected into the
    contract's error body, unless the response has already started."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        watch = _StatusWatch(send)
        try:
            await self.app(scope, receive, watch)
        except c.GatewayError as err:
            if watch.started:
                raise
            await error_response(err)(scope, receive, send)
        except Exception:
            if watch.started:
                raise
            logging.getLogger("gateway").exception("unhandled error")
            await error_response(c.gateway_error("internal"))(scope, receive, send)


# ------------------------------------------------------------------ app


def create_app(config: c.Config = CONFIG) -> FastAPI:
    http: dict[str, u.Upstream] = {}

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # One keep-alive pool per worker (UPSTREAM_POOL_SIZE, unless the client runs at its defaults).
        client = u.open_upstream(UPSTREAM_CLIENT, config)
        http["client"] = client
        try:
            yield
        finally:
            await client.aclose()

    app = FastAPI(lifespan=lifespan, openapi_url=None, docs_url=None, redoc_url=None, redirect_slashes=False)

    registry: CollectorRegistry | None
    if MULTIPROC_DIR:
        registry = None  # values live in PROMETHEUS_MULTIPROC_DIR; /metrics sums the worker files

        def scrape() -> bytes:
            from prometheus_client import multiprocess

            reg = CollectorRegistry()
            multiprocess.MultiProcessCollector(reg)
            return generate_latest(reg)
    else:
        disable_created_metrics()
        registry = CollectorRegistry(auto_describe=True)

        def scrape() -> bytes:
            return generate_latest(registry)

    # add_middleware inserts at the front: add innermost first.
    app.add_middleware(ErrorMapperMiddleware)
    app.add_middleware(TracingMiddleware)
    app.add_middleware(MetricsMiddleware, registry=registry)
    if config.request_log:
        app.add_middleware(RequestLogMiddleware)

    @app.exception_handler(StarletteHTTPException)
    async def routing_error(request: Request, exc: StarletteHTTPException) -> Response:
        # The router's own 404 / 405 (wrong method on a known path) in the contract's shape.
        if exc.status_code in (404, 405):
            return error_response(c.no_route_error(request.url.path))
        return error_response(c.gateway_error("internal"))

    @app.get("/healthz")
    async def healthz() -> Response:
        return json_response(200, c.HEALTHZ_BODY)

    @app.get("/metrics")
    async def metrics() -> Response:
        return Response(content=scrape(), media_type=c.METRICS_TYPE)

    async def require_api_key(request: Request) -> None:
        failure = c.check_api_key(request.headers.get("x-api-key"), request.headers.get("authorization"), config.api_keys)
        if failure is not None:
            raise c.gateway_error(failure)

    v1 = APIRouter(prefix="/v1", dependencies=[Depends(require_api_key)])
    models = c.models_body(config.model_id)

    @v1.get("/models")
    async def list_models() -> Response:
        return json_response(200, models)

    @v1.post("/messages")
    async def messages(request: Request) -> Response:
        if not c.is_json_content_type(request.headers.get("content-type")):
            raise c.gateway_error("unsupportedMediaType")
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > c.MAX_BODY:
            raise c.gateway_error("payloadTooLarge")
        raw = bytearray()
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > c.MAX_BODY:
                raise c.gateway_error("payloadTooLarge")
        try:
            body = c.loads(bytes(raw))
        except ValueError:
            raise c.gateway_error("invalidJson") from None
        req = c.validate_messages_request(body)
        return await forward(http["client"], req)

    app.include_router(v1)
    return app


async def forward(client: u.Upstream, req: c.MessagesRequest) -> Response:
    try:
        upstream = await client.send(c.dumps(c.to_openai_request(req)), req.stream)
    except u.UpstreamFailed:
        raise c.gateway_error("upstreamUnreachable") from None
    if not 200 <= upstream.status < 300:
        await upstream.close()
        raise c.gateway_error("upstreamStatus", status=upstream.status)

    if not req.stream:
        try:
            payload: Any = c.loads(await upstream.read())
        except (u.UpstreamFailed, ValueError):
            raise c.gateway_error("upstreamInvalid") from None
        finally:
            await upstream.close()
        message = c.from_openai_response(payload, req.model)
        if message is None:
            raise c.gateway_error("upstreamInvalid")
        return json_response(200, c.dumps(message))

    async def events() -> AsyncIterator[bytes]:
        translator = c.StreamTranslator(req.model)
        try:
            async for text in upstream.text_chunks():
                out = translator.push(text)
                if out:
                    yield out.encode("utf-8")
            if not translator.done:
                yield translator.interrupted().encode("utf-8")
        except u.UpstreamFailed:
            if not translator.done:
                yield translator.interrupted().encode("utf-8")
        finally:
            # Runs on normal end and when Starlette cancels the stream because the client went
            # away: closing an unfinished response closes its connection, aborting the backend call.
            await upstream.close()

    return StreamingResponse(events(), media_type=c.SSE_TYPE, headers={"cache-control": c.C["headers"]["sseCacheControl"]})

app = create_app()
