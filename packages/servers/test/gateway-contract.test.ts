import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { parseScenario, parseTarget, TargetUnavailableError } from '@benchsuite/sdk';
import { checkApiKey, contractB, parseBearer, StreamTranslator, validateMessagesRequest } from '../src/gateway/contract.js';
import { createStubBackend, estimateTokens, latencyMs, stubBackendService, type StubBackend, type StubBackendOptions } from '../src/stub-backend/index.js';
import { gatewayMessageText, gatewayScenarios } from '../src/gateway-scenarios.js';
import { fastapi1w, fastapi1wAiohttp, fastapi1wHttpxDefaults, fastapiNw, fastapiWorkers, gatewayServerCpus, gatewayTargets } from '../src/gateway-targets.js';
import { ensureFastapiVenv } from '../src/gateway/fastapi-venv.js';
import { buildHummingbird, hummingbirdDir } from '../src/gateway/hummingbird-build.js';
import { fastapiAbsent, http, parseSse } from './_gateway-procs.js';

describe('contract-b.json is mirrored by the Hummingbird gateway', () => {
  const swift = readFileSync(`${hummingbirdDir}Sources/Gateway/Contract.swift`, 'utf8');
  const literal = (s: string): string => JSON.stringify(s); // Swift string literals escape like JSON here

  test('every error message, validation rule, header and name appears verbatim in Contract.swift', () => {
    const strings = [
      ...Object.values(contractB.errors).flatMap((e) => [e.type, e.message]),
      ...contractB.validation.rules.map((r) => r.message),
      ...Object.values(contractB.headers),
      ...Object.values(contractB.env).filter((n) => n !== 'WORKERS'),
      contractB.defaults.modelId,
      ...contractB.defaults.apiKeys,
      contractB.metrics.counter.sample,
      contractB.metrics.histogram.family,
      ...contractB.metrics.labels,
      contractB.metrics.unmatchedRoute,
      contractB.mapping.messageIdPrefix,
      contractB.mapping.upstreamPath,
      contractB.sse.errorEvent,
      ...Object.entries(contractB.mapping.stopReason).flatMap(([k, v]) => (k === 'default' ? [v] : [k, v])),
      ...contractB.routes.map((r) => r.path),
    ];
    const missing = strings.filter((s) => !swift.includes(literal(s)));
    expect(missing, 'strings of contract-b.json missing from Contract.swift').toEqual([]);
  });

  test('numbers and lists match: body limit, pool size, timeout, buckets, routes, text-block join', () => {
    expect(swift).toContain(`maxBodyBytes = ${contractB.limits.maxBodyBytes}`);
    expect(swift).toContain(`defaultUpstreamPoolSize = ${contractB.defaults.upstreamPoolSize}`);
    expect(swift).toContain(`upstreamTimeoutMs: Int64 = ${contractB.defaults.upstreamTimeoutMs}`);
    expect(swift).toContain(`maxTokensMax: Double = ${contractB.validation.maxTokensMax}`);
    expect(swift).toContain(`buckets: [Double] = [${contractB.metrics.buckets.join(', ')}]`);
    for (const r of contractB.routes) expect(swift).toContain(`(${literal(r.method)}, ${literal(r.path)}, ${r.auth})`);
    expect(swift).toContain(`textBlockJoin = ${literal(contractB.validation.textBlockJoin)}`);
    expect(swift).toContain(`healthzBody = ${literal(JSON.stringify(contractB.healthz))}`);
  });
});

describe('contract logic (shared by the Node gateway and mirrored in Python/Swift)', () => {
  test('Bearer parsing: case-insensitive scheme, spaces, no empty token', () => {
    expect(parseBearer('Bearer abc')).toBe('abc');
    expect(parseBearer('bearer    abc')).toBe('abc');
    expect(parseBearer('Bearer')).toBeNull();
    expect(parseBearer('Bearer a b')).toBeNull();
    expect(parseBearer('Basic abc')).toBeNull();
    expect(checkApiKey(undefined, undefined, ['k'])).toBe('missingApiKey');
    expect(checkApiKey('x', 'Bearer k', ['k'])).toBeNull();
    expect(checkApiKey('x', undefined, ['k'])).toBe('invalidApiKey');
  });

  test('max_tokens accepts integral numbers only (5 and 5.0 alike)', () => {
    const base = { model: 'm', messages: [{ role: 'user', content: 'x' }] };
    expect(validateMessagesRequest({ ...base, max_tokens: 5.0 }).ok).toBe(true);
    expect(validateMessagesRequest({ ...base, max_tokens: 5.5 }).ok).toBe(false);
    expect(validateMessagesRequest({ ...base, max_tokens: Number.MAX_SAFE_INTEGER }).ok).toBe(true);
  });

  test('the SSE translator gives the same events whatever the upstream chunking', async () => {
    const stub = createStubBackend({ msPer100Tokens: 0 });
    await new Promise<void>((r) => stub.server.listen(0, '127.0.0.1', r));
    try {
      const { port } = stub.server.address() as AddressInfo;
      const res = await http(`http://127.0.0.1:${port}`, {
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } }),
      });
      const whole = new StreamTranslator('m').push(res.body);
      const t = new StreamTranslator('m');
      let bytewise = '';
      for (const ch of res.body) bytewise += t.push(ch);
      expect(bytewise).toBe(whole);
      expect(t.done).toBe(true);
      expect(parseSse(whole).at(-1)).toEqual({ event: 'message_stop', data: { type: 'message_stop' } });
    } finally {
      stub.server.close();
    }
  });
});

/** A stub on 127.0.0.1:0 of its own for one test (no state shared between tests), closed afterwards. */
async function withStub(options: StubBackendOptions, use: (base: string, stub: StubBackend) => Promise<void>): Promise<void> {
  const stub = createStubBackend(options);
  await new Promise<void>((r) => stub.server.listen(0, '127.0.0.1', r));
  try {
    await use(`http://127.0.0.1:${(stub.server.address() as AddressInfo).port}`, stub);
  } finally {
    stub.server.closeAllConnections();
    await new Promise<void>((r) => stub.server.close(() => r()));
  }
}

const completion = (base: string, body: unknown) => http(base, { method: 'POST', path: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('stub backend: deterministic latency model', () => {
  test('ceil(chars/4) tokens, 10 ms per 100 tokens: 200 / 2000 / 8000 chars → 5 / 50 / 200 ms', () => {
    expect([200, 2000, 8000].map((c) => latencyMs(estimateTokens(c, 4), 10))).toEqual([5, 50, 200]);
    expect(estimateTokens(201, 4)).toBe(51);
  });

  // The stub's sleep is injected: the test sees the delay it applied and holds the answer back
  // until it lets the sleep end, so nothing here depends on how fast the machine is.
  test('an 8000-char prompt (system + user) is held for the modelled 200 ms, then answered with usage.prompt_tokens = 2000 and counter ids', async () => {
    const waits: number[] = [];
    let release = (): void => {};
    let sleeping = (): void => {};
    const asleep = new Promise<void>((r) => (sleeping = r));
    const sleep = (ms: number): Promise<void> => {
      waits.push(ms);
      sleeping();
      return ms === 200 && waits.length === 1 ? new Promise<void>((r) => (release = r)) : Promise.resolve();
    };
    await withStub({ sleep }, async (base, stub) => {
      const body = {
        model: 'm',
        messages: [
          { role: 'system', content: gatewayMessageText(4000) },
          { role: 'user', content: gatewayMessageText(4000) },
        ],
      };
      let answered = false;
      const first = completion(base, body).then((r) => {
        answered = true;
        return r;
      });
      await asleep;
      expect(waits).toEqual([200]);
      // A full round trip on another connection while the first sleeps: its answer is still held.
      expect((await http(base, { path: '/health' })).status).toBe(200);
      expect(answered, 'answered before the latency sleep ended').toBe(false);
      expect(stub.stats).toMatchObject({ requests: 1, inFlight: 1, completed: 0 });
      release();
      const res = JSON.parse((await first).body) as { id: string; usage: { prompt_tokens: number }; choices: { finish_reason: string }[] };
      expect(res.usage.prompt_tokens).toBe(2000);
      expect(res.choices[0]!.finish_reason).toBe('stop');
      const second = JSON.parse((await completion(base, body)).body) as { id: string };
      expect(waits).toEqual([200, 200]);
      expect(Number(second.id.replace(contractB.stub.idPrefix, ''))).toBe(Number(res.id.replace(contractB.stub.idPrefix, '')) + 1);
    });
  });

  test('a streamed answer sleeps the latency once, then the chunk delay after every chunk', async () => {
    const waits: number[] = [];
    await withStub({ streamChunkDelayMs: 15, sleep: async (ms) => void waits.push(ms) }, async (base) => {
      const res = await completion(base, { model: 'm', messages: [{ role: 'user', content: gatewayMessageText(200) }], stream: true });
      const chunks = res.body.split('\n\n').filter((b) => b.startsWith('data: '));
      expect(chunks.at(-1)).toBe('data: [DONE]');
      expect(waits).toEqual([5, ...chunks.map(() => 15)]);
    });
  });

  test('GET /health, GET /v1/models, and failures on demand', async () => {
    await withStub({}, async (base) => {
      expect((await http(base, { path: '/health' })).body).toBe('{"status":"ok"}');
      expect(JSON.parse((await http(base, { path: '/v1/models' })).body)).toMatchObject({ object: 'list', data: [{ id: contractB.stub.modelId }] });
      await http(base, { method: 'POST', path: '/debug/fail?status=500' });
      const failed = await completion(base, { messages: [] });
      expect(failed.status).toBe(500);
      await http(base, { method: 'POST', path: '/debug/fail?status=0' });
      expect((await completion(base, { messages: [] })).status).toBe(200);
    });
  });
});

describe('gateway scenarios and targets', () => {
  test('scenarios are valid, in group gateway, 50 connections, sized 200 / 2000 / 8000 chars', () => {
    const parsed = gatewayScenarios.map((s) => parseScenario(s));
    expect(parsed.map((s) => s.name)).toEqual(['gateway-healthz', 'gateway-models', 'gateway-no-key', 'gateway-messages-small', 'gateway-messages-medium', 'gateway-messages-large', 'gateway-stream']);
    expect(parsed.every((s) => s.group === 'gateway' && s.load.connections === 50)).toBe(true);
    expect(parsed.filter((s) => s.kind === 'stream').map((s) => s.name)).toEqual(['gateway-stream']);
    const chars = parsed.slice(3, 6).map((s) => (JSON.parse(s.request!.body!) as { messages: { content: string }[] }).messages[0]!.content.length);
    expect(chars).toEqual([200, 2000, 8000]);
  });

  test('targets are valid, start the stub backend as a service and pass its URL as BACKEND_URL', () => {
    const parsed = gatewayTargets.map((t) => parseTarget(t));
    expect(parsed.map((t) => t.name)).toEqual([
      'fastify-gateway',
      'fastapi-1w',
      'fastapi-1w-httpx-defaults',
      'fastapi-1w-aiohttp',
      ...(fastapiWorkers > 1 ? [`fastapi-${fastapiWorkers}w`] : []),
      'hummingbird',
    ]);
    for (const t of parsed) {
      if (t.kind !== 'process') throw new Error('process targets expected');
      expect(t.supports).toEqual(['group:gateway']);
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the SDK's service placeholder, substituted when the target starts
      expect(t.env.BACKEND_URL).toBe('${services.backend.url}');
      expect(t.services.backend?.command).toEqual(stubBackendService.command);
      expect(typeof t.setup).toBe('function');
      expect(typeof t.artifact).toBe('function');
    }
  });

  test('the FastAPI variants differ from fastapi-1w only in UPSTREAM_CLIENT and the upstream entries of their manifest', () => {
    const upstreamKeys = ['upstreamClient', 'upstreamPoolSize', 'variantOf', 'differs'];
    const rest = (m: Record<string, unknown>) => {
      const { pieces, ...top } = m as { pieces: Record<string, string> } & Record<string, unknown>;
      const { upstreamClient: _, ...otherPieces } = pieces;
      return { ...Object.fromEntries(Object.entries(top).filter(([k]) => !upstreamKeys.includes(k))), pieces: otherPieces };
    };
    expect(fastapi1w.env).not.toHaveProperty('UPSTREAM_CLIENT');
    expect(fastapi1w.metadata).not.toHaveProperty('variantOf');
    for (const [variant, client] of [
      [fastapi1wHttpxDefaults, 'httpx-default-limits'],
      [fastapi1wAiohttp, 'aiohttp'],
    ] as const) {
      const { UPSTREAM_CLIENT, ...env } = variant.env;
      expect(UPSTREAM_CLIENT).toBe(client);
      expect(env).toEqual(fastapi1w.env);
      expect(variant.command).toEqual(fastapi1w.command);
      expect(rest(variant.metadata)).toEqual(rest(fastapi1w.metadata));
      expect(variant.metadata.variantOf).toBe('fastapi-1w');
      expect(variant.metadata.pieces.upstreamClient).not.toBe(fastapi1w.metadata.pieces.upstreamClient);
    }
    expect(fastapi1wHttpxDefaults.metadata.differs).toMatch(/encode\/httpx#3215/);
    expect(fastapi1wAiohttp.metadata.pieces.upstreamClient).toMatch(/^aiohttp/);
  });

  test('multi-worker FastAPI runs one worker per server core, and every gateway states its cores', () => {
    expect(fastapiWorkers).toBe(gatewayServerCpus.length);
    if (fastapiNw) expect(fastapiNw.env.WORKERS).toBe(String(gatewayServerCpus.length));
    else expect(gatewayServerCpus).toHaveLength(1);
    for (const t of gatewayTargets) {
      expect(t.metadata.serverCpus, t.name).toEqual(gatewayServerCpus);
      expect(typeof t.metadata.workers, t.name).toBe('number');
    }
  });

  test.skipIf(fastapiAbsent !== null)(`a FastAPI target's artifact leaves out the other upstream library's packages${fastapiAbsent ? ` (skipped: ${fastapiAbsent})` : ''}`, async () => {
    const [idiomatic, defaults, aiohttp] = await Promise.all([fastapi1w.artifact(), fastapi1wHttpxDefaults.artifact(), fastapi1wAiohttp.artifact()]);
    expect(defaults.bytes).toBe(idiomatic.bytes); // same library, same deployable
    expect(aiohttp.bytes).not.toBe(idiomatic.bytes);
    expect(idiomatic.method).toMatch(/packages only aiohttp needs/);
    expect(aiohttp.method).toMatch(/packages only httpx needs/);
  });

  test('fastify-gateway artifact counts its files plus the production dependency closure', async () => {
    const a = await gatewayTargets[0].artifact();
    expect(a.bytes).toBeGreaterThan(1_000_000);
    expect(a.method).toMatch(/fastify, prom-client, undici, @opentelemetry\/api/);
  });

  test.skipIf(fastapiAbsent !== null)(`the FastAPI venv is reused once built (hash marker of requirements.txt)${fastapiAbsent ? ` (skipped: ${fastapiAbsent})` : ''}`, async () => {
    const r = await ensureFastapiVenv();
    expect(r.created).toBe(false);
  });

  // Runs everywhere: the environment is passed in, so a HUMMINGBIRD_BIN or swift on this machine changes nothing.
  test('hummingbird setup without a binary or swift → TargetUnavailableError naming the README', async () => {
    const noSwift: NodeJS.ProcessEnv = { ...process.env, PATH: '/nonexistent' };
    delete noSwift.HUMMINGBIRD_BIN;
    const err = await buildHummingbird({ env: noSwift }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TargetUnavailableError);
    expect((err as Error).message).toMatch(/^swift not found on PATH; see external\/hummingbird\/README\.md$/);
    await expect(buildHummingbird({ env: { ...noSwift, HUMMINGBIRD_BIN: '/nonexistent/gateway' } })).rejects.toThrow(/does not exist/);
  });
});
