"""The gateway's upstream HTTP client, chosen by UPSTREAM_CLIENT (one app, several named targets):

- ``httpx`` (default, the idiomatic target): one httpx.AsyncClient per worker with a pool as
  large as the load's connections, ``Limits(max_connections = max_keepalive = UPSTREAM_POOL_SIZE)``.
- ``httpx-default-limits``: the same client at httpx's own default ``Limits`` (100 connections,
  20 kept alive, 5 s expiry). httpcore scans every pooled connection for every request
  (encode/httpx#3215), so a large pool costs CPU per request; this variant shows how much.
- ``aiohttp``: one aiohttp.ClientSession per worker, ``TCPConnector(limit = UPSTREAM_POOL_SIZE)``.

Each client sits behind the same two small classes' interface (``send`` → status, ``read``,
``text_chunks``, ``close``), so the Anthropic <-> OpenAI mapping in app.py exists once. The
client library is imported only when chosen: a target's startup time and memory include only
the client it uses.
"""

from __future__ import annotations

import asyncio
import codecs
import os
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol

from . import contract as c

if TYPE_CHECKING:
    import aiohttp
    import httpx

ENV = "UPSTREAM_CLIENT"
CLIENTS = ("httpx", "httpx-default-limits", "aiohttp")
KEEPALIVE_EXPIRY_S = 30


def client_from_env(env: dict[str, str] | None = None) -> str:
    """The chosen client's name; ValueError names the allowed values."""
    name = (os.environ if env is None else env).get(ENV, "") or CLIENTS[0]
    if name not in CLIENTS:
        raise ValueError(f"{ENV} must be one of {', '.join(CLIENTS)}, got {name!r}")
    return name


class UpstreamFailed(Exception):
    """The backend could not be reached, or the connection broke while reading its answer."""


class UpstreamResponse(Protocol):
    status: int

    async def read(self) -> bytes: ...

    def text_chunks(self) -> AsyncIterator[str]: ...

    async def close(self) -> None:
        """Closes the connection when the body was not read to its end (aborts the backend call)."""


class Upstream(Protocol):
    async def send(self, body: bytes, stream: bool) -> UpstreamResponse:
        """POST the OpenAI request; resolves once the status and headers arrived."""

    async def aclose(self) -> None: ...


def _headers(stream: bool) -> dict[str, str]:
    return {"content-type": "application/json", "accept": "text/event-stream" if stream else "application/json"}


# ------------------------------------------------------------------ httpx


class _HttpxResponse:
    def __init__(self, response: httpx.Response, errors: type[BaseException]) -> None:
        self.response = response
        self.status = response.status_code
        self.errors = errors

    async def read(self) -> bytes:
        try:
            return await self.response.aread()
        except self.errors:
            raise UpstreamFailed from None

    async def text_chunks(self) -> AsyncIterator[str]:
        try:
            async for text in self.response.aiter_text():
                yield text
        except self.errors:
            raise UpstreamFailed from None

    async def close(self) -> None:
        # Closing an unfinished httpx response closes its connection.
        await self.response.aclose()


class _HttpxUpstream:
    def __init__(self, config: c.Config, default_limits: bool) -> None:
        import httpx

        self.errors = httpx.HTTPError
        limits = (
            httpx.Limits()  # the library's defaults
            if default_limits
            else httpx.Limits(max_connections=config.pool_size, max_keepalive_connections=config.pool_size, keepalive_expiry=KEEPALIVE_EXPIRY_S)
        )
        self.client = httpx.AsyncClient(base_url=config.backend_url, limits=limits, timeout=config.timeout_s)

    async def send(self, body: bytes, stream: bool) -> UpstreamResponse:
        request = self.client.build_request("POST", c.UPSTREAM_PATH, content=body, headers=_headers(stream))
        try:
            return _HttpxResponse(await self.client.send(request, stream=True), self.errors)
        except self.errors:
            raise UpstreamFailed from None

    async def aclose(self) -> None:
        await self.client.aclose()


# ------------------------------------------------------------------ aiohttp


class _AiohttpResponse:
    def __init__(self, response: aiohttp.ClientResponse, errors: tuple[type[BaseException], ...]) -> None:
        self.response = response
        self.status = response.status
        self.errors = errors

    async def read(self) -> bytes:
        try:
            return await self.response.read()
        except self.errors:
            raise UpstreamFailed from None

    async def text_chunks(self) -> AsyncIterator[str]:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            async for chunk in self.response.content.iter_any():
                text = decoder.decode(chunk)
                if text:
                    yield text
        except self.errors:
            raise UpstreamFailed from None
        tail = decoder.decode(b"", final=True)
        if tail:
            yield tail

    async def close(self) -> None:
        if self.response.content.at_eof():
            self.response.release()  # back to the pool
        else:
            self.response.close()  # unfinished: drop the connection, which aborts the backend call


class _AiohttpUpstream:
    def __init__(self, config: c.Config) -> None:
        import aiohttp

        self.url = config.backend_url + c.UPSTREAM_PATH
        self.errors: tuple[type[BaseException], ...] = (aiohttp.ClientError, asyncio.TimeoutError)
        # total=None: a stream may last longer than one timeout; connect and each read are bounded
        # like httpx's Timeout(timeout_s) bounds connect, pool wait and each read.
        timeout = aiohttp.ClientTimeout(total=None, connect=config.timeout_s, sock_read=config.timeout_s)
        connector = aiohttp.TCPConnector(limit=config.pool_size, limit_per_host=0, keepalive_timeout=KEEPALIVE_EXPIRY_S)
        self.session = aiohttp.ClientSession(connector=connector, timeout=timeout)

    async def send(self, body: bytes, stream: bool) -> UpstreamResponse:
        try:
            return _AiohttpResponse(await self.session.post(self.url, data=body, headers=_headers(stream)), self.errors)
        except self.errors:
            raise UpstreamFailed from None

    async def aclose(self) -> None:
        await self.session.close()


def open_upstream(name: str, config: c.Config) -> Upstream:
    """The client `name` (one of CLIENTS); call inside the worker's event loop (lifespan)."""
    if name == "aiohttp":
        return _AiohttpUpstream(config)
    return _HttpxUpstream(config, default_limits=name == "httpx-default-limits")

