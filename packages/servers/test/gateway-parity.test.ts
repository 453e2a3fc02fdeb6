import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { contractB, errorBody } from '../src/gateway/contract.js';
import { fastapiVenvPython } from '../src/gateway/fastapi-venv.js';
import { gatewayMessagesBody } from '../src/gateway-scenarios.js';
import {
  closedPort,
  fastapiAbsent,
  http,
  hummingbirdAbsent,
  normaliseIds,
  parseMetrics,
  parseSse,
  sampleKey,
  startGateway,
  startStub,
  stubStats,
  type GatewayKind,
  type HttpRequestSpec,
  type HttpResult,
  type RunningProcess,
} from './_gateway-procs.js';
import { compared } from './_helpers-servers.js';

/**
 * Contract B parity: the same requests against every gateway (real processes on PORT=0, one
 * shared stub backend), compared with the Fastify gateway as the reference. A failure names
 * the gateway that differs and vitest's diff shows how.
 */

const REFERENCE: GatewayKind = 'fastify-gateway';
const KEY = contractB.defaults.apiKeys[0]!;
const JSON_CT = { 'content-type': 'application/json' };
const errors = contractB.errors;
const err = (key: keyof typeof errors, vars: Record<string, string> = {}): string => {
  const e = errors[key] as { type: string; message: string };
  return errorBody(
    e.type,
    e.message.replace(/\$\{(\w+)\}/g, (_, k: string) => vars[k] ?? ''),
  );
};
// biome-ignore lint/suspicious/noTemplateCurlyInString: contract B's own `${i}` placeholder in a message, filled in here
const rule = (id: string, i = 0): string => contractB.validation.rules.find((r) => r.id === id)!.message.replace('${i}', String(i));
const badRequest = (message: string): string => errorBody('invalid_request_error', message);

function parityBattery(kinds: readonly GatewayKind[]): void {
  let stub: RunningProcess;
  const up = new Map<GatewayKind, RunningProcess>();
  const down = new Map<GatewayKind, RunningProcess>();
  const others = kinds.filter((k) => k !== REFERENCE);

  beforeAll(async () => {
    if (kinds.some((k) => k.startsWith('fastapi'))) {
      expect(existsSync(fastapiVenvPython()), `FastAPI venv missing (${fastapiVenvPython()}); see the [gateway setup] lines`).toBe(true);
    }
    // Streamed chunks 15 ms apart leave time to disconnect mid-stream.
    stub = await startStub({ STUB_STREAM_CHUNK_DELAY_MS: '15' });
    const deadBackend = `http://127.0.0.1:${await closedPort()}`;
    await Promise.all(
      kinds.map(async (k) => {
        up.set(k, await startGateway(k, stub.url));
        down.set(k, await startGateway(k, deadBackend));
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...up.values(), ...down.values()].map((p) => p.stop()));
    await stub?.stop();
  });

  /** The same request to every gateway (one after the other). */
  async function ask(spec: HttpRequestSpec, which: Map<GatewayKind, RunningProcess> = up): Promise<Map<GatewayKind, HttpResult>> {
    const out = new Map<GatewayKind, HttpResult>();
    for (const k of kinds) out.set(k, await http(which.get(k)!.url, spec));
    return out;
  }

  const view = (r: HttpResult) => ({ status: r.status, headers: compared(r.headers), body: normaliseIds(r.body) });

  /** Every gateway answers like the reference; returns the reference's answer. */
  function same(results: Map<GatewayKind, HttpResult>, what: string): ReturnType<typeof view> {
    const ref = view(results.get(REFERENCE)!);
    for (const k of others) expect(view(results.get(k)!), `${k} differs from ${REFERENCE} on ${what}`).toEqual(ref);
    return ref;
  }

  test('GET /healthz answers 200 {"status":"ok"} with the JSON content type', async () => {
    const ref = same(await ask({ path: '/healthz' }), 'GET /healthz');
    expect(ref).toEqual({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"status":"ok"}' });
  });

  test('GET /v1/models lists MODEL_ID, with x-api-key and with Authorization: Bearer', async () => {
    const expected = '{"object":"list","data":[{"id":"bench-model","object":"model","created":0,"owned_by":"benchsuite"}]}';
    expect(same(await ask({ path: '/v1/models', headers: { 'x-api-key': KEY } }), 'models via x-api-key').body).toBe(expected);
    expect(same(await ask({ path: '/v1/models', headers: { authorization: `Bearer ${KEY}` } }), 'models via Bearer').body).toBe(expected);
    expect(same(await ask({ path: '/v1/models', headers: { authorization: `bearer   ${KEY}` } }), 'models via lower-case bearer').status).toBe(200);
  });

  test('401 authentication_error on a missing, wrong or malformed key', async () => {
    const cases: [string, Record<string, string>, string][] = [
      ['no key', {}, err('missingApiKey')],
      ['wrong x-api-key', { 'x-api-key': 'nope' }, err('invalidApiKey')],
      ['wrong bearer', { authorization: 'Bearer nope' }, err('invalidApiKey')],
      ['Basic scheme', { authorization: `Basic ${KEY}` }, err('missingApiKey')],
      ['Bearer without token', { authorization: 'Bearer' }, err('missingApiKey')],
      ['empty x-api-key', { 'x-api-key': '' }, err('missingApiKey')],
    ];
    for (const [name, headers, body] of cases) {
      const models = same(await ask({ path: '/v1/models', headers }), `GET /v1/models with ${name}`);
      expect(models, name).toEqual({ status: 401, headers: { 'content-type': 'application/json; charset=utf-8' }, body });
      const msgs = same(await ask({ method: 'POST', path: '/v1/messages', headers: { ...headers, ...JSON_CT }, body: gatewayMessagesBody(200) }), `POST /v1/messages with ${name}`);
      expect(msgs.status, name).toBe(401);
    }
  });

  test('unknown routes 404 and wrong methods 405 with Allow, before auth', async () => {
    expect(same(await ask({ path: '/nope' }), 'GET /nope')).toMatchObject({ status: 404, body: err('notFound') });
    expect(same(await ask({ path: '/v1/nope' }), 'GET /v1/nope (no key)')).toMatchObject({ status: 404, body: err('notFound') });
    expect(same(await ask({ path: '/v1/messages' }), 'GET /v1/messages')).toEqual({
      status: 405,
      headers: { 'content-type': 'application/json; charset=utf-8', allow: 'POST' },
      body: err('methodNotAllowed'),
    });
    expect(same(await ask({ method: 'POST', path: '/healthz', headers: JSON_CT, body: '{}' }), 'POST /healthz')).toMatchObject({ status: 405, headers: { allow: 'GET' } });
    expect(same(await ask({ method: 'DELETE', path: '/v1/models', headers: { 'x-api-key': KEY } }), 'DELETE /v1/models')).toMatchObject({ status: 405, headers: { allow: 'GET' } });
  });

  test('415 for another content type, 413 over 1 MiB, 400 for bad JSON', async () => {
    const post = (headers: Record<string, string>, body: string | Buffer): HttpRequestSpec => ({ method: 'POST', path: '/v1/messages', headers: { 'x-api-key': KEY, ...headers }, body });
    expect(same(await ask(post({ 'content-type': 'text/plain' }, gatewayMessagesBody(200))), 'text/plain body')).toMatchObject({ status: 415, body: err('unsupportedMediaType') });
    expect(same(await ask(post({}, gatewayMessagesBody(200))), 'no content type')).toMatchObject({ status: 415, body: err('unsupportedMediaType') });
    expect(same(await ask(post({ 'content-type': 'application/json; charset=utf-8' }, gatewayMessagesBody(200))), 'json with charset').status).toBe(200);
    const huge = Buffer.alloc(contractB.limits.maxBodyBytes + 16, 0x20);
    expect(same(await ask(post(JSON_CT, huge)), 'body over 1 MiB')).toMatchObject({ status: 413, body: err('payloadTooLarge') });
    for (const bad of ['{', '', '{"model":NaN}', 'nul', '{"a":1}x']) {
      expect(same(await ask(post(JSON_CT, bad)), `malformed JSON ${JSON.stringify(bad)}`)).toMatchObject({ status: 400, body: err('invalidJson') });
    }
  });

  test('400 invalid_request_error for each validation rule, first failing rule wins', async () => {
    const ok = { model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };
    const cases: [string, unknown, string][] = [
      ['array body', [], errors.notAnObject.message],
      ['string body', 'hello', errors.notAnObject.message],
      ['missing model', { ...ok, model: undefined }, rule('model')],
      ['numeric model', { ...ok, model: 5 }, rule('model')],
      ['missing max_tokens', { ...ok, max_tokens: undefined }, rule('max_tokens')],
      ['max_tokens 0', { ...ok, max_tokens: 0 }, rule('max_tokens')],
      ['max_tokens 1.5', { ...ok, max_tokens: 1.5 }, rule('max_tokens')],
      ['max_tokens "10"', { ...ok, max_tokens: '10' }, rule('max_tokens')],
      ['max_tokens true', { ...ok, max_tokens: true }, rule('max_tokens')],
      ['max_tokens 2^53', { ...ok, max_tokens: 2 ** 53 }, rule('max_tokens')],
      ['missing messages', { ...ok, messages: undefined }, rule('messages')],
      ['empty messages', { ...ok, messages: [] }, rule('messages')],
      ['messages not an array', { ...ok, messages: 'hi' }, rule('messages')],
      ['message not an object', { ...ok, messages: [{ role: 'user', content: 'a' }, 5] }, rule('message', 1)],
      ['role system', { ...ok, messages: [{ role: 'system', content: 'a' }] }, rule('role')],
      ['missing role', { ...ok, messages: [{ content: 'a' }] }, rule('role')],
      ['numeric content', { ...ok, messages: [{ role: 'user', content: 5 }] }, rule('content')],
      ['empty content array', { ...ok, messages: [{ role: 'user', content: [] }] }, rule('content')],
      ['image block', { ...ok, messages: [{ role: 'user', content: [{ type: 'image', source: {} }] }] }, rule('content')],
      ['text block without text', { ...ok, messages: [{ role: 'user', content: [{ type: 'text' }] }] }, rule('content')],
      [
        'second message bad',
        {
          ...ok,
          messages: [
            { role: 'user', content: 'a' },
            { role: 'assistant', content: null },
          ],
        },
        rule('content', 1),
      ],
      ['numeric system', { ...ok, system: 5 }, rule('system')],
      ['empty system array', { ...ok, system: [] }, rule('system')],
      ['stream "yes"', { ...ok, stream: 'yes' }, rule('stream')],
      ['model and stream both bad', { ...ok, model: 1, stream: 'yes' }, rule('model')],
    ];
    for (const [name, body, message] of cases) {
      const ref = same(await ask({ method: 'POST', path: '/v1/messages', headers: { 'x-api-key': KEY, ...JSON_CT }, body: JSON.stringify(body) }), `validation: ${name}`);
      expect(ref, name).toEqual({ status: 400, headers: { 'content-type': 'application/json; charset=utf-8' }, body: badRequest(message) });
    }
  });

  test('a message maps to OpenAI and back identically (end_turn, max_tokens, system, text blocks)', async () => {
    const post = (body: unknown): HttpRequestSpec => ({ method: 'POST', path: '/v1/messages', headers: { 'x-api-key': KEY, ...JSON_CT }, body: JSON.stringify(body) });
    const plain = same(await ask(post({ model: 'claude-x', max_tokens: 256, messages: [{ role: 'user', content: 'a'.repeat(200) }] })), 'plain message');
    expect(plain.status).toBe(200);
    expect(JSON.parse(plain.body)).toEqual({
      id: 'msg_chatcmpl-stub-N',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [{ type: 'text', text: contractB.stub.completionText }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 50, output_tokens: Math.ceil(contractB.stub.completionText.length / 4) },
    });
    const limited = same(
      await ask(
        post({
          model: 'm',
          max_tokens: 5,
          system: [
            { type: 'text', text: 'be brief' },
            { type: 'text', text: 'really' },
          ],
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'hello' },
                { type: 'text', text: 'there' },
              ],
            },
            { role: 'assistant', content: 'ok' },
            { role: 'user', content: 'go' },
          ],
        }),
      ),
      'max_tokens-limited message with system and blocks',
    );
    const body = JSON.parse(limited.body) as { stop_reason: string; usage: { input_tokens: number; output_tokens: number }; content: { text: string }[] };
    expect(body.stop_reason).toBe('max_tokens');
    // chars: "be brief\nreally" (15) + "hello\nthere" (11) + "ok" (2) + "go" (2) = 30 → 8 tokens
    expect(body.usage).toEqual({ input_tokens: 8, output_tokens: 5 });
    expect(body.content[0]!.text).toBe(contractB.stub.completionText.slice(0, 20));
  });

  test('stream: true answers the Anthropic SSE event sequence with the same data', async () => {
    const results = await ask({ method: 'POST', path: '/v1/messages', headers: { 'x-api-key': KEY, ...JSON_CT }, body: gatewayMessagesBody(200, { stream: true }) });
    const ref = results.get(REFERENCE)!;
    expect(ref.status).toBe(200);
    expect(compared(ref.headers)).toEqual({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const refEvents = parseSse(normaliseIds(ref.body));
    for (const k of others) {
      const r = results.get(k)!;
      expect({ status: r.status, headers: compared(r.headers) }, `${k} differs from ${REFERENCE} on stream status/headers`).toEqual({ status: ref.status, headers: compared(ref.headers) });
      expect(parseSse(normaliseIds(r.body)), `${k} differs from ${REFERENCE} on the stream events`).toEqual(refEvents);
    }
    const words = contractB.stub.completionText.split(/(?= )/);
    expect(refEvents.map((e) => e.event)).toEqual(['message_start', 'content_block_start', ...words.map(() => 'content_block_delta'), 'content_block_stop', 'message_delta', 'message_stop']);
    expect(refEvents.every((e) => (e.data as { type: string }).type === e.event)).toBe(true);
    expect(refEvents.at(-2)!.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { input_tokens: 50, output_tokens: Math.ceil(contractB.stub.completionText.length / 4) },
    });
  });

  test('502 api_error when the backend is unreachable', async () => {
    for (const stream of [false, true]) {
      const ref = same(
        await ask({ method: 'POST', path: '/v1/messages', headers: { 'x-api-key': KEY, ...JSON_CT }, body: gatewayMessagesBody(200, { stream }) }, down),
        `backend down (stream ${stream})`,
      );
      expect(ref).toEqual({ status: 502, headers: { 'content-type': 'application/json; charset=utf-8' }, body: err('upstreamUnreachable') });
    }
    // The light path does not touch the backend.
    expect(same(await ask({ path: '/v1/models', headers: { 'x-api-key': KEY } }, down), 'models with backend down').status).toBe(200);
  });

  test('502 api_error when the backend answers 5xx', async () => {
    await http(stub.url, { method: 'POST', path: '/debug/fail?status=503' });
    try {
      for (const stream of [false, true]) {
        const ref = same(await ask({ method: 'POST', path: '/v1/messages', headers: { 'x-api-key': KEY, ...JSON_CT }, body: gatewayMessagesBody(200, { stream }) }), `backend 503 (stream ${stream})`);
        expect(ref).toEqual({ status: 502, headers: { 'content-type': 'application/json; charset=utf-8' }, body: err('upstreamStatus', { status: '503' }) });
      }
    } finally {
      await http(stub.url, { method: 'POST', path: '/debug/fail?status=0' });
    }
  });

  test('a client disconnect mid-stream aborts the backend request', async () => {
    for (const k of kinds) {
      await http(stub.url, { method: 'POST', path: '/debug/reset' });
      await disconnectAfterFirstDelta(up.get(k)!.url);
      let stats = await stubStats(stub.url);
      for (let i = 0; i < 60 && stats.aborted === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        stats = await stubStats(stub.url);
      }
      expect({ aborted: stats.aborted, completed: stats.completed }, `${k}: backend request not aborted after the client left (stub stats ${JSON.stringify(stats)})`).toEqual({
        aborted: 1,
        completed: 0,
      });
    }
  });

  test('metrics: same families, labels and counts after the same traffic (2 workers summed)', async () => {
    const traffic: HttpRequestSpec[] = [
      ...Array.from({ length: 6 }, () => ({ path: '/healthz' })),
      { path: '/v1/models', headers: { 'x-api-key': KEY } },
      { path: '/v1/models', headers: { authorization: `Bearer ${KEY}` } },
      { path: '/v1/models' },
      { method: 'POST', path: '/v1/messages', headers: { 'x-api-key': KEY, ...JSON_CT }, body: gatewayMessagesBody(200) },
      { method: 'POST', path: '/v1/messages', headers: { 'x-api-key': KEY, ...JSON_CT }, body: '{}' },
      { path: '/nope' },
      { method: 'DELETE', path: '/v1/messages' },
    ];
    const deltas = new Map<GatewayKind, Record<string, number>>();
    for (const k of kinds) {
      const url = up.get(k)!.url;
      const before = parseMetrics((await http(url, { path: '/metrics' })).body);
      for (const spec of traffic) await http(url, spec);
      await new Promise((r) => setTimeout(r, 150));
      const res = await http(url, { path: '/metrics' });
      expect(compared(res.headers), `${k}: /metrics content type`).toEqual({ 'content-type': contractB.headers.metrics });
      const after = parseMetrics(res.body);
      expect(after.types, `${k}: metric families`).toMatchObject({ hb_requests_total: 'counter', http_server_request_duration: 'histogram' });
      const prev = new Map(before.samples.map((s) => [sampleKey(s), s.value]));
      const delta: Record<string, number> = {};
      for (const s of after.samples) {
        if (s.labels.http_route === '/metrics') continue;
        const wanted = s.name === 'hb_requests_total' || s.name === 'http_server_request_duration_count' || (s.name === 'http_server_request_duration_bucket' && s.labels.le === '+Inf');
        if (!wanted) continue;
        const d = s.value - (prev.get(sampleKey(s)) ?? 0);
        if (d !== 0) delta[sampleKey(s)] = d;
      }
      deltas.set(k, delta);
      // Same bucket boundaries everywhere.
      const les = after.samples.filter((s) => s.name === 'http_server_request_duration_bucket' && s.labels.http_route === '/healthz').map((s) => s.labels.le);
      expect([...new Set(les)], `${k}: histogram buckets`).toEqual([...contractB.metrics.buckets.map(String), '+Inf']);
    }
    const ref = deltas.get(REFERENCE)!;
    const key = (name: string, route: string, method: string, status: number): string =>
      `${name}${JSON.stringify({ http_request_method: method, http_response_status_code: String(status), http_route: route })}`;
    expect(ref[key('hb_requests_total', '/healthz', 'GET', 200)]).toBe(6);
    expect(ref[key('hb_requests_total', '/v1/models', 'GET', 200)]).toBe(2);
    expect(ref[key('hb_requests_total', '/v1/models', 'GET', 401)]).toBe(1);
    expect(ref[key('hb_requests_total', '/v1/messages', 'POST', 200)]).toBe(1);
    expect(ref[key('hb_requests_total', '/v1/messages', 'POST', 400)]).toBe(1);
    expect(ref[key('hb_requests_total', 'unmatched', 'GET', 404)]).toBe(1);
    expect(ref[key('hb_requests_total', '/v1/messages', 'DELETE', 405)]).toBe(1);
    expect(ref[key('http_server_request_duration_count', '/healthz', 'GET', 200)]).toBe(6);
    for (const k of others) expect(deltas.get(k), `${k} metrics after the same traffic differ from ${REFERENCE}`).toEqual(ref);
  });

  test('request log: exactly one line per request, on stderr', async () => {
    const healthzLines = (p: RunningProcess): number =>
      p
        .output(200)
        .split('\n')
        .filter((l) => /path[":=]+\/healthz\b/.test(l)).length;
    for (const k of kinds) {
      const p = up.get(k)!;
      const before = healthzLines(p);
      for (let i = 0; i < 4; i++) await http(p.url, { path: '/healthz' });
      await new Promise((r) => setTimeout(r, 100));
      expect(healthzLines(p) - before, `${k}: request log lines for 4 requests\n${p.output()}`).toBe(4);
    }
  });

  test('SIGTERM: every gateway exits within 5 s', async () => {
    for (const [k, p] of [...up, ...down]) {
      const ms = await p.stop();
      expect(ms, `${k} took ${ms} ms to exit after SIGTERM\n${p.output()}`).toBeLessThan(5_000);
    }
  });
}

/** Open a stream, wait for the first content_block_delta, then drop the connection. */
function disconnectAfterFirstDelta(base: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const body = gatewayMessagesBody(200, { stream: true });
    const req = httpRequest(
      new URL('/v1/messages', base),
      {
        method: 'POST',
        agent: false,
        headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        const timer = setTimeout(() => reject(new Error(`no content_block_delta from ${base}: ${text}`)), 10_000);
        res.setEncoding('utf8').on('data', (s: string) => {
          text += s;
          if (text.includes('event: content_block_delta')) {
            clearTimeout(timer);
            req.destroy();
            resolve();
          }
        });
        res.on('error', () => {});
      },
    );
    req.on('error', () => {});
    req.end(body);
  });
}

// The FastAPI variants (httpx at its default limits, aiohttp) must answer exactly like the idiomatic one.
const fastapiKinds = ['fastapi-1w', 'fastapi-2w', 'fastapi-1w-httpx-defaults', 'fastapi-1w-aiohttp'] as const;
describe.skipIf(fastapiAbsent !== null)(`gateway parity: fastify-gateway = ${fastapiKinds.join(' = ')}${fastapiAbsent ? ` (skipped: ${fastapiAbsent})` : ''}`, () => {
  parityBattery(['fastify-gateway', ...fastapiKinds]);
});

if (fastapiAbsent !== null && hummingbirdAbsent !== null) {
  // Nothing to compare with: the reference's own expected answers are still checked.
  describe('gateway contract: fastify-gateway alone (FastAPI and Hummingbird unavailable)', () => {
    parityBattery(['fastify-gateway']);
  });
}

// Without a binary or swift the block is skipped, its name carrying the reason, which the
// summary lists under "Skipped, by reason" (never a log line and a pass).
describe.skipIf(hummingbirdAbsent !== null)(`gateway parity: hummingbird = fastify-gateway${hummingbirdAbsent ? ` (skipped: ${hummingbirdAbsent})` : ''}`, () => {
  parityBattery(['fastify-gateway', 'hummingbird']);
});
