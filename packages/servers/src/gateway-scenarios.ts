import { DEFAULTS, defineScenario } from '@benchsuite/sdk';
import { contractB, errorBody, healthzBody, modelsBody } from './gateway/contract.js';

/**
 * Contract B scenarios (group `gateway`): the light path (healthz, models, missing key) and the
 * heavy path (messages small / medium / large through the stub backend), plus the streaming
 * scenario (`kind: 'stream'`: levels of concurrent streams, cancellation, backpressure). Every gateway target is started with `GATEWAY_API_KEYS=bench-key` and
 * `MODEL_ID=bench-model` (the contract's defaults).
 */
export const gatewayApiKey = contractB.defaults.apiKeys[0] ?? 'bench-key';
export const gatewayModelId = contractB.defaults.modelId;

/** Deterministic message text of exactly `chars` characters. */
export function gatewayMessageText(chars: number): string {
  const unit = 'The quick brown fox jumps over the lazy dog. ';
  return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
}

/** `POST /v1/messages` body with one user message of `chars` characters. */
export function gatewayMessagesBody(chars: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ model: gatewayModelId, max_tokens: 256, messages: [{ role: 'user', content: gatewayMessageText(chars) }], ...extra });
}

const json = contractB.headers.json;
const authed = { 'x-api-key': gatewayApiKey, 'content-type': 'application/json' };
const load = { connections: DEFAULTS.connections } as const;

const messagesScenario = <const N extends string>(name: N, chars: number, latency: string) =>
  defineScenario({
    name,
    group: 'gateway',
    description: `POST /v1/messages, one ${chars}-char user message (stub latency ~${latency}), mapped to OpenAI and back`,
    request: { method: 'POST', path: '/v1/messages', headers: authed, body: gatewayMessagesBody(chars) },
    expect: { status: 200, headers: { 'content-type': json } },
    load,
    // The same work straight at the stub: its own ceiling tells whether the backend is the limit.
    backend: {
      service: 'backend',
      request: {
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: gatewayModelId, max_tokens: 256, messages: [{ role: 'user', content: gatewayMessageText(chars) }] }),
      },
    },
  });

const gatewayHealthz = defineScenario({
  name: 'gateway-healthz',
  group: 'gateway',
  description: 'GET /healthz: middleware chain only (log, metrics, tracing, error mapper)',
  request: { path: '/healthz' },
  expect: { status: 200, json: JSON.parse(healthzBody) as unknown, headers: { 'content-type': json } },
  load,
});

const gatewayModels = defineScenario({
  name: 'gateway-models',
  group: 'gateway',
  description: 'GET /v1/models with a valid key: auth plus a static body, no backend call',
  request: { path: '/v1/models', headers: { 'x-api-key': gatewayApiKey } },
  expect: { status: 200, json: JSON.parse(modelsBody(gatewayModelId)) as unknown, headers: { 'content-type': json } },
  load,
});

const gatewayNoKey = defineScenario({
  name: 'gateway-no-key',
  group: 'gateway',
  description: 'POST /v1/messages without a key: rejected by auth before the body is read (401)',
  request: { method: 'POST', path: '/v1/messages', headers: { 'content-type': 'application/json' }, body: gatewayMessagesBody(200) },
  expect: {
    status: 401,
    json: JSON.parse(errorBody(contractB.errors.missingApiKey.type, contractB.errors.missingApiKey.message)) as unknown,
    headers: { 'content-type': json },
  },
  load,
});

const gatewayMessagesSmall = messagesScenario('gateway-messages-small', 200, '5 ms');
const gatewayMessagesMedium = messagesScenario('gateway-messages-medium', 2000, '50 ms');
const gatewayMessagesLarge = messagesScenario('gateway-messages-large', 8000, '200 ms');

/**
 * The stub's stream shape per phase (its `POST /debug/config`): tokens 10 ms apart under load (a
 * stream of ~22 tokens lasts ~0.25 s); 50 ms apart for cancellation (~1.1 s, so an upstream
 * request the gateway does not abort is still running when the client has gone); and back to back,
 * the completion repeated 16,000 times (~50 MB of chunks) for backpressure, far more than every
 * socket buffer between the stub and a slow reader holds.
 */
const gatewayStreamShape = {
  load: { streamChunkDelayMs: 10, streamRepeat: 1 },
  cancel: { streamChunkDelayMs: 50, streamRepeat: 1 },
  backpressure: { streamChunkDelayMs: 0, streamRepeat: 16_000 },
} as const;

const gatewayStream = defineScenario({
  name: 'gateway-stream',
  group: 'gateway',
  kind: 'stream',
  description: 'POST /v1/messages with stream:true: Anthropic SSE at 50 and 200 concurrent streams, cancellation on disconnect, backpressure from a slow reader',
  request: { method: 'POST', path: '/v1/messages', headers: authed, body: gatewayMessagesBody(200, { stream: true }) },
  expect: { status: 200, headers: { 'content-type': contractB.headers.sse, 'cache-control': contractB.headers.sseCacheControl } },
  stream: {
    observer: { service: 'backend', configure: gatewayStreamShape },
    cancel: {},
    // A long answer needs a max_tokens above its ~440,000 tokens.
    backpressure: { body: gatewayMessagesBody(200, { stream: true, max_tokens: 100_000_000 }) },
  },
  load,
});

/** All gateway scenarios, light path first. */
export const gatewayScenarios = [gatewayHealthz, gatewayModels, gatewayNoKey, gatewayMessagesSmall, gatewayMessagesMedium, gatewayMessagesLarge, gatewayStream] as const;
