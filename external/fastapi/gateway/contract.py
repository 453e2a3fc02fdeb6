"""Contract B as data plus the framework-free logic: the Python twin of
packages/servers/src/gateway/contract.ts. Both read packages/servers/contract/contract-b.json;
every message, header value and rule comes from that file, so the gateways cannot drift."""

from __future__ import annotations

import hmac
import json
import os
import re
from pathlib import Path
from typing import Any

_DEFAULT_PATH = Path(__file__).resolve().parents[3] / "packages" / "servers" / "contract" / "contract-b.json"
CONTRACT_PATH = Path(os.environ.get("CONTRACT_B_PATH", str(_DEFAULT_PATH)))
C: dict[str, Any] = json.loads(CONTRACT_PATH.read_text(encoding="utf-8"))

JSON_TYPE: str = C["headers"]["json"]
SSE_TYPE: str = C["headers"]["sse"]
METRICS_TYPE: str = C["headers"]["metrics"]
MAX_BODY: int = C["limits"]["maxBodyBytes"]
_ROUTES: list[dict[str, Any]] = C["routes"]
_ROUTE_PATHS = {r["path"] for r in _ROUTES}


# ------------------------------------------------------------------ JSON (same bytes as JS)

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(obj: Any) -> bytes:
    """Compact JSON identical to JSON.stringify for the values the gateway produces."""
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # JSON.stringify escapes lone surrogates; do the same instead of failing.
        return _LONE_SURROGATE.sub(lambda m: "\\u%04x" % ord(m.group(0)), text).encode("utf-8")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid JSON constant {name}")


def loads(data: bytes) -> Any:
    """JSON.parse semantics: UTF-8 (invalid bytes replaced), no NaN/Infinity literals."""
    return json.loads(data.decode("utf-8", errors="replace"), parse_constant=_reject_constant)


# ------------------------------------------------------------------ config


class Config:
    def __init__(self, env: dict[str, str] | None = None) -> None:
        env = dict(os.environ if env is None else env)
        e = C["env"]
        d = C["defaults"]
        backend = env.get(e["backendUrl"])
        if not backend:
            raise ValueError(f"{e['backendUrl']} is required (e.g. http://127.0.0.1:8081)")
        self.backend_url = backend.rstrip("/")
        keys = env.get(e["apiKeys"], ",".join(d["apiKeys"]))
        self.api_keys = [k.strip() for k in keys.split(",") if k.strip()]
        self.model_id = env.get(e["modelId"]) or d["modelId"]
        self.pool_size = int(env.get(e["upstreamPoolSize"], d["upstreamPoolSize"]))
        if self.pool_size < 1:
            raise ValueError(f"{e['upstreamPoolSize']} must be a positive integer")
        self.timeout_s = d["upstreamTimeoutMs"] / 1000
        self.request_log = env.get(e["requestLog"], "1").lower() not in ("0", "false", "off", "no")


# ------------------------------------------------------------------ errors


class GatewayError(Exception):
    """Rendered by the error mapper as {"type":"error","error":{...}}."""

    def __init__(self, status: int, type_: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.type = type_
        self.message = message
        self.headers = headers or {}


def _fill(template: str, values: dict[str, Any]) -> str:
    return re.sub(r"\$\{(\w+)\}", lambda m: str(values.get(m.group(1), "")), template)


def gateway_error(key: str, headers: dict[str, str] | None = None, **values: Any) -> GatewayError:
    spec = C["errors"][key]
    return GatewayError(spec["status"], spec["type"], _fill(spec["message"], values), headers)


def error_body(type_: str, message: str) -> bytes:
    return dumps({"type": "error", "error": {"type": type_, "message": message}})


HEALTHZ_BODY = dumps(C["healthz"])


def models_body(model_id: str) -> bytes:
    return dumps({"object": "list", "data": [{"id": model_id, "object": "model", "created": 0, "owned_by": "benchsuite"}]})


# ------------------------------------------------------------------ routes


def allowed_methods(path: str) -> list[str]:
    return [r["method"] for r in _ROUTES if r["path"] == path]


def route_label(path: str) -> str:
    return path if path in _ROUTE_PATHS else C["metrics"]["unmatchedRoute"]


def no_route_error(path: str) -> GatewayError:
    allow = allowed_methods(path)
    if allow:
        return gateway_error("methodNotAllowed", {"allow": ", ".join(allow)})
    return gateway_error("notFound")


# ------------------------------------------------------------------ auth

_BEARER = re.compile(r"^bearer +(\S+) *$", re.IGNORECASE)


def parse_bearer(header: str | None) -> str | None:
    if not header:
        return None
    m = _BEARER.match(header)
    return m.group(1) if m else None


def check_api_key(x_api_key: str | None, authorization: str | None, keys: list[str]) -> str | None:
    """None when a valid key is given, else the error key (missingApiKey / invalidApiKey)."""
    candidates = []
    if x_api_key:
        candidates.append(x_api_key)
    bearer = parse_bearer(authorization)
    if bearer is not None:
        candidates.append(bearer)
    if not candidates:
        return "missingApiKey"
    for c in candidates:
        cb = c.encode()
        if any(hmac.compare_digest(cb, k.encode()) for k in keys):
            return None
    return "invalidApiKey"


# ------------------------------------------------------------------ validation

_RULES = {r["id"]: r["message"] for r in C["validation"]["rules"]}
_MAX_TOKENS_MAX: int = C["validation"]["maxTokensMax"]
_JOIN: str = C["validation"]["textBlockJoin"]


def _rule(rule_id: str, **values: Any) -> str:
    return _fill(_RULES[rule_id], values)


def is_json_content_type(value: str | None) -> bool:
    if not value:
        return False
    return value.split(";", 1)[0].strip().lower() == "application/json"


def _text_of(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if not isinstance(content, list) or not content:
        return None
    parts = []
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "text" or not isinstance(block.get("text"), str):
            return None
        parts.append(block["text"])
    return _JOIN.join(parts)


def _as_int(value: Any) -> int | None:
    """JSON numbers with an integral value (5 and 5.0 alike, as in JavaScript); never booleans."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


class MessagesRequest:
    __slots__ = ("model", "max_tokens", "messages", "system", "stream")

    def __init__(self, model: str, max_tokens: int, messages: list[tuple[str, str]], system: str | None, stream: bool) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self.messages = messages
        self.system = system
        self.stream = stream


def validate_messages_request(body: Any) -> MessagesRequest:
    """Raise GatewayError(400) for the first failing rule, in the contract's order."""

    def bad(message: str) -> GatewayError:
        return GatewayError(400, "invalid_request_error", message)

    if not isinstance(body, dict):
        raise gateway_error("notAnObject")
    model = body.get("model")
    if not isinstance(model, str):
        raise bad(_rule("model"))
    mt = _as_int(body.get("max_tokens"))
    if mt is None or mt < 1 or mt > _MAX_TOKENS_MAX:
        raise bad(_rule("max_tokens"))
    raw_messages = body.get("messages")
    if not isinstance(raw_messages, list) or not raw_messages:
        raise bad(_rule("messages"))
    messages: list[tuple[str, str]] = []
    for i, m in enumerate(raw_messages):
        if not isinstance(m, dict):
            raise bad(_rule("message", i=i))
        role = m.get("role")
        if role not in ("user", "assistant") or not isinstance(role, str):
            raise bad(_rule("role", i=i))
        text = _text_of(m.get("content"))
        if text is None:
            raise bad(_rule("content", i=i))
        messages.append((role, text))
    system = None
    if "system" in body:
        system = _text_of(body["system"])
        if system is None:
            raise bad(_rule("system"))
    stream = body.get("stream", False)
    if "stream" in body and not isinstance(stream, bool):
        raise bad(_rule("stream"))
    return MessagesRequest(model, mt, messages, system, stream is True)


# ------------------------------------------------------------------ mapping

_ID_PREFIX: str = C["mapping"]["messageIdPrefix"]
_STOP: dict[str, str] = C["mapping"]["stopReason"]
UPSTREAM_PATH: str = C["mapping"]["upstreamPath"]


def to_openai_request(req: MessagesRequest) -> dict[str, Any]:
    messages = []
    if req.system is not None:
        messages.append({"role": "system", "content": req.system})
    for role, text in req.messages:
        messages.append({"role": role, "content": text})
    out: dict[str, Any] = {"model": req.model, "messages": messages, "max_tokens": req.max_tokens}
    if req.stream:
        out["stream"] = True
        out["stream_options"] = {"include_usage": True}
    return out


def map_stop_reason(finish: Any) -> str:
    if isinstance(finish, str) and finish != "default" and finish in _STOP:
        return _STOP[finish]
    return _STOP["default"]


def _int_or_0(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return 0
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return 0
    return int(v)


def from_openai_response(upstream: Any, model: str) -> dict[str, Any] | None:
    if not isinstance(upstream, dict):
        return None
    choices = upstream.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    choice = choices[0]
    message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
    text = message.get("content") if isinstance(message.get("content"), str) else ""
    usage = upstream.get("usage") if isinstance(upstream.get("usage"), dict) else {}
    uid = upstream.get("id") if isinstance(upstream.get("id"), str) else ""
    return {
        "id": _ID_PREFIX + uid,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": map_stop_reason(choice.get("finish_reason")),
        "stop_sequence": None,
        "usage": {"input_tokens": _int_or_0(usage.get("prompt_tokens")), "output_tokens": _int_or_0(usage.get("completion_tokens"))},
    }


def sse_event(name: str, data: Any) -> str:
    return "event: " + name + "\ndata: " + dumps(data).decode("utf-8") + "\n\n"


class StreamTranslator:
    """OpenAI SSE text in (any chunking), Anthropic SSE events out."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.buffer = ""
        self.started = False
        self.done = False
        self.stop_reason = _STOP["default"]
        self.input_tokens = 0
        self.output_tokens = 0

    def push(self, text: str) -> str:
        self.buffer += text
        out = []
        while not self.done:
            nl = self.buffer.find("\n")
            if nl < 0:
                break
            line = self.buffer[:nl]
            if line.endswith("\r"):
                line = line[:-1]
            self.buffer = self.buffer[nl + 1 :]
            out.append(self._line(line))
        return "".join(out)

    def interrupted(self) -> str:
        e = C["errors"]["streamInterrupted"]
        return sse_event(C["sse"]["errorEvent"], {"type": "error", "error": {"type": e["type"], "message": e["message"]}})

    def _line(self, line: str) -> str:
        if not line.startswith("data:"):
            return ""
        data = line[5:]
        if data.startswith(" "):
            data = data[1:]
        if data == "[DONE]":
            return self._finish()
        try:
            chunk = json.loads(data)
        except ValueError:
            return ""
        if not isinstance(chunk, dict):
            return ""
        out = self._start(chunk.get("id") if isinstance(chunk.get("id"), str) else "")
        choices = chunk.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        if isinstance(choice, dict):
            delta = choice.get("delta") if isinstance(choice.get("delta"), dict) else {}
            content = delta.get("content")
            if isinstance(content, str) and content:
                out += sse_event(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": content}},
                )
            if isinstance(choice.get("finish_reason"), str):
                self.stop_reason = map_stop_reason(choice["finish_reason"])
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.input_tokens = _int_or_0(usage.get("prompt_tokens"))
            self.output_tokens = _int_or_0(usage.get("completion_tokens"))
        return out

    def _start(self, uid: str) -> str:
        if self.started:
            return ""
        self.started = True
        return sse_event(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": _ID_PREFIX + uid,
                    "type": "message",
                    "role": "assistant",
                    "model": self.model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 0, "output_tokens": 0},
                },
            },
        ) + sse_event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})

    def _finish(self) -> str:
        self.done = True
        return (
            self._start("")
            + sse_event("content_block_stop", {"type": "content_block_stop", "index": 0})
            + sse_event(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": self.stop_reason, "stop_sequence": None},
                    "usage": {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens},
                },
            )
            + sse_event("message_stop", {"type": "message_stop"})
        )
