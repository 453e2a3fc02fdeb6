import { readFileSync } from 'node:fs';
import { timingSafeEqual } from 'node:crypto';
import { fileURLToPath } from 'node:url';

/**
 * Contract B as data, plus the framework-free logic every Node piece shares: auth check,
 * validation, Anthropic ↔ OpenAI mapping, SSE translation, error bodies. The FastAPI
 * gateway reads the same JSON file; the Hummingbird gateway mirrors it (a test checks).
 */

/** Absolute path of `contract/contract-b.json` (the one copy of the contract). */
export const contractBPath = fileURLToPath(new URL('../../contract/contract-b.json', import.meta.url));

interface ErrorSpec {
  status: number;
  type: string;
  message: string;
}
export type GatewayErrorKey =
  | 'notFound'
  | 'methodNotAllowed'
  | 'payloadTooLarge'
  | 'unsupportedMediaType'
  | 'missingApiKey'
  | 'invalidApiKey'
  | 'invalidJson'
  | 'notAnObject'
  | 'upstreamUnreachable'
  | 'upstreamStatus'
  | 'upstreamInvalid'
  | 'internal';

export interface ContractB {
  version: number;
  env: Record<'port' | 'backendUrl' | 'apiKeys' | 'modelId' | 'upstreamPoolSize' | 'requestLog' | 'workers', string>;
  defaults: { modelId: string; apiKeys: string[]; upstreamPoolSize: number; upstreamTimeoutMs: number; workers: number };
  limits: { maxBodyBytes: number };
  routes: { method: string; path: string; auth: boolean; id: string }[];
  headers: { json: string; sse: string; sseCacheControl: string; metrics: string };
  healthz: { status: string };
  errors: Record<GatewayErrorKey, ErrorSpec> & { streamInterrupted: { type: string; message: string } };
  validation: { maxTokensMax: number; rules: { id: string; message: string }[]; textBlockJoin: string };
  mapping: { messageIdPrefix: string; stopReason: Record<string, string> & { default: string }; upstreamPath: string };
  sse: { events: string[]; repeated: string; errorEvent: string };
  metrics: {
    counter: { family: string; sample: string; help: string };
    histogram: { family: string; unit: string; help: string };
    labels: string[];
    unmatchedRoute: string;
    buckets: number[];
  };
  stub: {
    env: Record<'charsPerToken' | 'msPer100Tokens' | 'streamChunkDelayMs' | 'failStatus', string>;
    defaults: { charsPerToken: number; msPer100Tokens: number; streamChunkDelayMs: number };
    modelId: string;
    idPrefix: string;
    created: number;
    completionText: string;
  };
}

/** The parsed contract (read once at module load; it is small). */
export const contractB: ContractB = JSON.parse(readFileSync(contractBPath, 'utf8')) as ContractB;

// ---------------------------------------------------------------- configuration

/** Gateway settings taken from the environment (names from the contract's `env`). */
export interface GatewayConfig {
  port: number;
  backendUrl: string;
  apiKeys: string[];
  modelId: string;
  upstreamPoolSize: number;
  upstreamTimeoutMs: number;
  requestLog: boolean;
}

/** Read the gateway's settings; throws with a readable message when `BACKEND_URL` is missing or bad. */
export function readGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const e = contractB.env;
  const backendUrl = env[e.backendUrl];
  if (!backendUrl) throw new Error(`${e.backendUrl} is required (e.g. http://127.0.0.1:8081)`);
  const url = new URL(backendUrl);
  const keys = (env[e.apiKeys] ?? contractB.defaults.apiKeys.join(','))
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k.length > 0);
  const pool = Number(env[e.upstreamPoolSize] ?? contractB.defaults.upstreamPoolSize);
  if (!Number.isInteger(pool) || pool < 1) throw new Error(`${e.upstreamPoolSize} must be a positive integer`);
  const logSetting = (env[e.requestLog] ?? '1').toLowerCase();
  return {
    port: Number(env[e.port] ?? 0),
    backendUrl: url.origin,
    apiKeys: keys,
    modelId: env[e.modelId] || contractB.defaults.modelId,
    upstreamPoolSize: pool,
    upstreamTimeoutMs: contractB.defaults.upstreamTimeoutMs,
    requestLog: !['0', 'false', 'off', 'no'].includes(logSetting),
  };
}

// ---------------------------------------------------------------- errors and bodies

/** An error that the error mapper renders as a contract error body. */
export class GatewayHttpError extends Error {
  override name = 'GatewayHttpError';
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Build the contract error for `key`; `${status}` in the message is filled from `vars`. */
export function gatewayError(key: GatewayErrorKey, vars: Record<string, string | number> = {}, headers: Record<string, string> = {}): GatewayHttpError {
  const spec = contractB.errors[key];
  return new GatewayHttpError(spec.status, spec.type, fill(spec.message, vars), headers);
}

/** `{"type":"error","error":{"type":…,"message":…}}` as compact JSON. */
export function errorBody(type: string, message: string): string {
  return JSON.stringify({ type: 'error', error: { type, message } });
}

function fill(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\$\{(\w+)\}/g, (_, k: string) => String(vars[k] ?? ''));
}

export const healthzBody = JSON.stringify(contractB.healthz);

/** `GET /v1/models` body for `modelId`. */
export function modelsBody(modelId: string): string {
  return JSON.stringify({ object: 'list', data: [{ id: modelId, object: 'model', created: 0, owned_by: 'benchsuite' }] });
}

// ---------------------------------------------------------------- routes

/** Methods declared for `path` in the route table (empty when the path is unknown). */
function allowedMethods(path: string): string[] {
  return contractB.routes.filter((r) => r.path === path).map((r) => r.method);
}

/** The `http_route` label for a request path: the route template, or `unmatched`. */
export function routeLabel(path: string): string {
  return contractB.routes.some((r) => r.path === path) ? path : contractB.metrics.unmatchedRoute;
}

/** The 404 or 405 error for a request that matched no route. */
export function noRouteError(path: string): GatewayHttpError {
  const allow = allowedMethods(path);
  return allow.length > 0 ? gatewayError('methodNotAllowed', {}, { allow: allow.join(', ') }) : gatewayError('notFound');
}

// ---------------------------------------------------------------- auth

export type AuthFailure = 'missingApiKey' | 'invalidApiKey';

/**
 * Check `x-api-key` or `Authorization: Bearer <key>` against `keys`. A request passes when
 * either header carries a valid key; it is "missing" when neither header gives a key.
 */
export function checkApiKey(xApiKey: string | undefined, authorization: string | undefined, keys: readonly string[]): AuthFailure | null {
  const candidates: string[] = [];
  if (xApiKey !== undefined && xApiKey !== '') candidates.push(xApiKey);
  const bearer = parseBearer(authorization);
  if (bearer !== null) candidates.push(bearer);
  if (candidates.length === 0) return 'missingApiKey';
  for (const c of candidates) if (keys.some((k) => safeEqual(c, k))) return null;
  return 'invalidApiKey';
}

/** `Bearer <token>`: scheme case-insensitive, one or more spaces, token without spaces. */
export function parseBearer(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^bearer +(\S+) *$/i.exec(header);
  return m?.[1] ?? null;
}

function safeEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

// ---------------------------------------------------------------- validation

export interface MessagesRequest {
  model: string;
  maxTokens: number;
  messages: { role: 'user' | 'assistant'; text: string }[];
  system: string | undefined;
  stream: boolean;
}

export type ValidationResult = { ok: true; value: MessagesRequest } | { ok: false; message: string };

function rule(id: string, vars: Record<string, string | number> = {}): string {
  const r = contractB.validation.rules.find((x) => x.id === id);
  if (!r) throw new Error(`contract-b.json has no validation rule ${id}`);
  return fill(r.message, vars);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** String content, or a non-empty array of `{type:"text", text:string}` joined; `null` when invalid. */
function textOf(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.length === 0) return null;
  const parts: string[] = [];
  for (const block of content) {
    if (!isObject(block) || block.type !== 'text' || typeof block.text !== 'string') return null;
    parts.push(block.text);
  }
  return parts.join(contractB.validation.textBlockJoin);
}

/** Validate a decoded `POST /v1/messages` body in the contract's rule order (first failure wins). */
export function validateMessagesRequest(body: unknown): ValidationResult {
  if (!isObject(body)) return { ok: false, message: contractB.errors.notAnObject.message };
  if (typeof body.model !== 'string') return { ok: false, message: rule('model') };
  const mt = body.max_tokens;
  if (typeof mt !== 'number' || !Number.isInteger(mt) || mt < 1 || mt > contractB.validation.maxTokensMax) {
    return { ok: false, message: rule('max_tokens') };
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) return { ok: false, message: rule('messages') };
  const messages: MessagesRequest['messages'] = [];
  for (const [i, m] of body.messages.entries()) {
    if (!isObject(m)) return { ok: false, message: rule('message', { i }) };
    if (m.role !== 'user' && m.role !== 'assistant') return { ok: false, message: rule('role', { i }) };
    const text = textOf(m.content);
    if (text === null) return { ok: false, message: rule('content', { i }) };
    messages.push({ role: m.role, text });
  }
  let system: string | undefined;
  if (body.system !== undefined) {
    const s = textOf(body.system);
    if (s === null) return { ok: false, message: rule('system') };
    system = s;
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return { ok: false, message: rule('stream') };
  return { ok: true, value: { model: body.model, maxTokens: mt, messages, system, stream: body.stream === true } };
}

/** Is `contentType` `application/json` (parameters such as charset ignored, case-insensitive)? */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  return (contentType.split(';', 1)[0] ?? '').trim().toLowerCase() === 'application/json';
}

// ---------------------------------------------------------------- mapping

/** The OpenAI chat-completions body sent upstream (field order fixed by the contract docs). */
export function toOpenAIRequest(req: MessagesRequest): Record<string, unknown> {
  const messages: { role: string; content: string }[] = [];
  if (req.system !== undefined) messages.push({ role: 'system', content: req.system });
  for (const m of req.messages) messages.push({ role: m.role, content: m.text });
  const out: Record<string, unknown> = { model: req.model, messages, max_tokens: req.maxTokens };
  if (req.stream) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  return out;
}

/** OpenAI `finish_reason` → Anthropic `stop_reason`. */
function mapStopReason(finish: unknown): string {
  const table = contractB.mapping.stopReason;
  return typeof finish === 'string' && finish !== 'default' && table[finish] !== undefined ? table[finish] : table.default;
}

const intOr0 = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0);

/** Map an OpenAI chat completion to an Anthropic message; `null` when the upstream answer is unusable. */
export function fromOpenAIResponse(upstream: unknown, model: string): Record<string, unknown> | null {
  if (!isObject(upstream) || !Array.isArray(upstream.choices) || upstream.choices.length === 0) return null;
  const choice: unknown = upstream.choices[0];
  if (!isObject(choice)) return null;
  const message = isObject(choice.message) ? choice.message : {};
  const text = typeof message.content === 'string' ? message.content : '';
  const usage = isObject(upstream.usage) ? upstream.usage : {};
  return {
    id: contractB.mapping.messageIdPrefix + (typeof upstream.id === 'string' ? upstream.id : ''),
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: mapStopReason(choice.finish_reason),
    stop_sequence: null,
    usage: { input_tokens: intOr0(usage.prompt_tokens), output_tokens: intOr0(usage.completion_tokens) },
  };
}

/** One SSE event with its `event:` line. */
function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Translates an OpenAI SSE stream (fed as raw text, any chunking) into Anthropic SSE events.
 * `push` returns the events produced so far; `done` tells whether `data: [DONE]` was seen;
 * `interrupted()` gives the error event to send when the upstream ends early.
 */
export class StreamTranslator {
  private buffer = '';
  private started = false;
  private finished = false;
  private stopReason: string = contractB.mapping.stopReason.default;
  private inputTokens = 0;
  private outputTokens = 0;

  constructor(private readonly model: string) {}

  get done(): boolean {
    return this.finished;
  }

  push(text: string): string {
    this.buffer += text;
    let out = '';
    for (let nl = this.buffer.indexOf('\n'); !this.finished && nl >= 0; nl = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      out += this.line(line);
    }
    return out;
  }

  interrupted(): string {
    const e = contractB.errors.streamInterrupted;
    return sseEvent(contractB.sse.errorEvent, { type: 'error', error: { type: e.type, message: e.message } });
  }

  private line(line: string): string {
    if (!line.startsWith('data:')) return '';
    const data = line.slice(5).replace(/^ /, '');
    if (data === '[DONE]') return this.finish();
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return '';
    }
    if (!isObject(chunk)) return '';
    let out = this.start(typeof chunk.id === 'string' ? chunk.id : '');
    const choice: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (isObject(choice)) {
      const delta = isObject(choice.delta) ? choice.delta : {};
      if (typeof delta.content === 'string' && delta.content !== '') {
        out += sseEvent('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: delta.content } });
      }
      if (typeof choice.finish_reason === 'string') this.stopReason = mapStopReason(choice.finish_reason);
    }
    if (isObject(chunk.usage)) {
      this.inputTokens = intOr0(chunk.usage.prompt_tokens);
      this.outputTokens = intOr0(chunk.usage.completion_tokens);
    }
    return out;
  }

  private start(id: string): string {
    if (this.started) return '';
    this.started = true;
    return (
      sseEvent('message_start', {
        type: 'message_start',
        message: {
          id: contractB.mapping.messageIdPrefix + id,
          type: 'message',
          role: 'assistant',
          model: this.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      }) + sseEvent('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })
    );
  }

  private finish(): string {
    this.finished = true;
    return (
      this.start('') +
      sseEvent('content_block_stop', { type: 'content_block_stop', index: 0 }) +
      sseEvent('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: this.stopReason, stop_sequence: null },
        usage: { input_tokens: this.inputTokens, output_tokens: this.outputTokens },
      }) +
      sseEvent('message_stop', { type: 'message_stop' })
    );
  }
}
