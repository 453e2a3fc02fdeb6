/**
 * Parity of contract C (the Python web suite) across every server: node:http (the reference),
 * FastAPI on uvicorn with 1 and 2 workers, Litestar on uvicorn and http.server. Real processes on
 * PORT=0, real sockets, one fresh connection per request (so the 2-worker server spreads them).
 * node:http must answer what the contract data says (status, every compared header, body bytes),
 * and every Python server must answer exactly what node:http answered.
 */
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { inject } from 'vitest';
import type {} from './_gateway-global-setup.js';
import { http, type HttpRequestSpec } from './_gateway-procs.js';
import { compared, comparedHeaders, startTestServer } from './_helpers-servers.js';
import type { RunningProcess } from '@benchsuite/testkit';
import { parseScenario, verifyScenario } from '@benchsuite/sdk';
import { pythonScenarios, pythonWebDir, pythonWebPython } from '../src/python-suite.js';

const contractPath = fileURLToPath(new URL('../contract/contract-c.json', import.meta.url));
/** The contract as the servers read it (this test reads the file itself, not the TypeScript loader). */
const C = JSON.parse(readFileSync(contractPath, 'utf8')) as {
  contentTypes: { json: string; html: string };
  comparedHeaders: string[];
  bodies: { healthz: unknown; hello: unknown; json: unknown; rootHtml: string };
  items: { namePrefix: string; priceFactor: number; tags: string[] };
  large: { count: number };
  page: { rows: number; head: string; row: string; tail: string; tagSeparator: string };
  scenarios: { name: string; path: string }[];
};

const pythonAbsent: string | null = inject('pythonWebUnavailable') ?? null;
const nodeMain = fileURLToPath(new URL('../dist/contract-c/main.js', import.meta.url));

const servers = {
  'node-http-c': () => startTestServer('node-http-c', [process.execPath, nodeMain]),
  'fastapi-1w': () => startPython('fastapi-1w', 'fastapi', '1'),
  'fastapi-2w': () => startPython('fastapi-2w', 'fastapi', '2'),
  litestar: () => startPython('litestar', 'litestar', '1'),
  'http-server': () => startPython('http-server', 'http-server', '1'),
} as const;
type ServerName = keyof typeof servers;
const REFERENCE: ServerName = 'node-http-c';
const pythonServers = (Object.keys(servers) as ServerName[]).filter((s) => s !== REFERENCE);

function startPython(name: string, server: string, workers: string): Promise<RunningProcess> {
  return startTestServer(name, [pythonWebPython(), join(pythonWebDir, 'run.py'), server], { env: { WORKERS: workers, CONTRACT_C_PATH: contractPath }, cwd: pythonWebDir });
}

// ---- what the contract data says, computed here independently of the servers' code

const item = (n: number) => {
  const price = n * C.items.priceFactor;
  return { id: n, name: `${C.items.namePrefix}${n}`, price, tags: C.items.tags };
};
const large = JSON.stringify(Array.from({ length: C.large.count }, (_, i) => item(i + 1)));
const page =
  C.page.head +
  Array.from({ length: C.page.rows }, (_, i) => item(i + 1))
    .map((it) => C.page.row.split('{{id}}').join(String(it.id)).split('{{name}}').join(it.name).split('{{price}}').join(it.price.toFixed(2)).split('{{tags}}').join(it.tags.join(C.page.tagSeparator)))
    .join('') +
  C.page.tail;

const jsonHeaders = { 'content-type': C.contentTypes.json };
const htmlHeaders = { 'content-type': C.contentTypes.html };
const ok = (body: unknown) => ({ status: 200, headers: jsonHeaders, body: JSON.stringify(body) });
const notFound = { status: 404, headers: jsonHeaders, body: '{"error":"not_found"}' };
const notAllowed = (head = false) => ({ status: 405, headers: { ...jsonHeaders, allow: 'GET' }, body: head ? '' : '{"error":"method_not_allowed"}' });

interface Case {
  name: string;
  request: HttpRequestSpec;
  expect: { status: number; headers: Record<string, string>; body: string };
}

const cases: Case[] = [
  { name: 'healthz', request: { path: '/healthz' }, expect: ok(C.bodies.healthz) },
  { name: 'hello', request: { path: '/hello' }, expect: ok(C.bodies.hello) },
  { name: 'root HTML', request: { path: '/' }, expect: { status: 200, headers: htmlHeaders, body: C.bodies.rootHtml } },
  { name: 'simple JSON', request: { path: '/api/json' }, expect: ok(C.bodies.json) },
  { name: 'dynamic route', request: { path: '/items/42' }, expect: ok({ id: '42', name: `${C.items.namePrefix}42` }) },
  { name: 'dynamic route keeps a non-numeric id as sent', request: { path: '/items/abc-007' }, expect: ok({ id: 'abc-007', name: `${C.items.namePrefix}abc-007` }) },
  { name: 'dynamic route id is percent-decoded', request: { path: '/items/a%20b' }, expect: ok({ id: 'a b', name: `${C.items.namePrefix}a b` }) },
  { name: 'dynamic route id is decoded as UTF-8', request: { path: '/items/caf%C3%A9' }, expect: ok({ id: 'café', name: `${C.items.namePrefix}café` }) },
  { name: 'a malformed escape in the id stays as sent', request: { path: '/items/a%ZZ' }, expect: ok({ id: 'a%ZZ', name: `${C.items.namePrefix}a%ZZ` }) },
  { name: 'an escape that is not UTF-8 becomes U+FFFD', request: { path: '/items/x%E0%A4y' }, expect: ok({ id: 'x\uFFFDy', name: `${C.items.namePrefix}x\uFFFDy` }) },
  { name: 'an escaped letter is decoded before routing', request: { path: '/%68ello' }, expect: ok(C.bodies.hello) },
  { name: 'a query string is ignored', request: { path: '/hello?x=1&y' }, expect: ok(C.bodies.hello) },
  { name: '100-item list (integral prices without a fraction)', request: { path: '/api/large' }, expect: { status: 200, headers: jsonHeaders, body: large } },
  { name: '~10 KiB HTML page from 50 rows', request: { path: '/page' }, expect: { status: 200, headers: htmlHeaders, body: page } },
  { name: 'unknown route → 404', request: { path: '/nope' }, expect: notFound },
  { name: 'unknown route under a known prefix → 404', request: { path: '/api/nothing' }, expect: notFound },
  { name: 'route matching is case-sensitive → 404', request: { path: '/HELLO' }, expect: notFound },
  { name: 'empty id → 404', request: { path: '/items/' }, expect: notFound },
  { name: 'id of two segments → 404', request: { path: '/items/a/b' }, expect: notFound },
  { name: 'unknown route with another method → 404 (not 405)', request: { method: 'POST', path: '/nope', body: '{}', headers: { 'content-type': 'application/json' } }, expect: notFound },
  { name: 'POST with a body on a GET route → 405 + Allow', request: { method: 'POST', path: '/hello', body: '{"a":1}', headers: { 'content-type': 'application/json' } }, expect: notAllowed() },
  { name: 'DELETE → 405 + Allow', request: { method: 'DELETE', path: '/api/json' }, expect: notAllowed() },
  { name: 'PUT on the dynamic route → 405 + Allow', request: { method: 'PUT', path: '/items/1' }, expect: notAllowed() },
  { name: 'HEAD is not routed → 405 + Allow, no body', request: { method: 'HEAD', path: '/page' }, expect: notAllowed(true) },
];

describe.skipIf(pythonAbsent !== null)(`contract C parity: node:http, FastAPI (1 and 2 workers), Litestar, http.server${pythonAbsent ? ` (skipped: ${pythonAbsent})` : ''}`, () => {
  const up = new Map<ServerName, RunningProcess>();

  beforeAll(async () => {
    await Promise.all((Object.keys(servers) as ServerName[]).map(async (n) => up.set(n, await servers[n]())));
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...up.values()].map((p) => p.stop()));
  });

  test('the data gives integral prices without a fraction and a page of about 10 KiB', () => {
    expect(large).toContain('"price":1.5,');
    expect(large).toContain('"price":3,');
    expect(large).not.toMatch(/\.0[,}]/);
    expect(Buffer.byteLength(page)).toBeGreaterThan(9 * 1024);
    expect(Buffer.byteLength(page)).toBeLessThan(11 * 1024);
    expect(page.match(/<tr id="item-/g)).toHaveLength(50);
  });

  test('every scenario of the contract is among the cases', () => {
    for (const s of C.scenarios)
      expect(
        cases.map((c) => c.request.path),
        s.name,
      ).toContain(s.path);
  });

  test.each(cases)('$name', async ({ request, expect: want }) => {
    const answers = new Map<ServerName, { status: number; headers: Record<string, string>; body: string }>();
    for (const [name, proc] of up) {
      const r = await http(proc.url, request);
      expect(r.headers['x-powered-by'], `${name} sends x-powered-by`).toBeUndefined();
      answers.set(name, { status: r.status, headers: compared(r.headers), body: r.body });
    }
    expect(answers.get(REFERENCE), `${REFERENCE} differs from the contract`).toEqual(want);
    for (const name of pythonServers) expect(answers.get(name), `${name} differs from ${REFERENCE}`).toEqual(answers.get(REFERENCE));
  });

  test("the suite's own verify step passes for every scenario on every server (exact body text, content type)", async () => {
    for (const input of pythonScenarios) {
      const scenario = parseScenario(input);
      for (const [name, proc] of up) expect(await verifyScenario(proc.url, scenario, [scenario.request!], name)).toEqual({ scenario: scenario.name, target: name, ok: true });
    }
  });

  test('the compared headers are the common rules list (as contract A states it)', () => {
    expect([...C.comparedHeaders].sort()).toEqual([...comparedHeaders].sort());
  });

  test('every server answers several requests on one keep-alive connection (an unrouted POST body included)', async () => {
    for (const [name, proc] of up) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const reused: boolean[] = [];
      try {
        for (const spec of [{ path: '/hello' }, { method: 'POST', path: '/hello', body: 'x'.repeat(100) }, { path: '/api/json' }, { path: '/page' }]) {
          const status = await new Promise<number>((resolve, reject) => {
            const url = new URL(spec.path, proc.url);
            const req = httpRequest(url, { method: spec.method ?? 'GET', agent, headers: spec.body ? { 'content-length': spec.body.length } : {} }, (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            });
            req.on('error', reject);
            reused.push(req.reusedSocket);
            req.end(spec.body);
          });
          expect(status, `${name} ${spec.method ?? 'GET'} ${spec.path}`).toBe(spec.method === 'POST' ? 405 : 200);
        }
      } finally {
        agent.destroy();
      }
      expect(reused, `${name}: requests after the first reuse the connection`).toEqual([false, true, true, true]);
    }
  });

  test('OPTIONS is outside the contract: Litestar answers it itself (204), the others 405 + Allow', async () => {
    for (const [name, proc] of up) {
      const r = await http(proc.url, { method: 'OPTIONS', path: '/hello' });
      if (name === 'litestar') expect(r.status, name).toBe(204);
      else expect({ status: r.status, headers: compared(r.headers), body: r.body }, name).toEqual(notAllowed());
    }
  });

  test('SIGTERM: every server exits within 5 s (0, or by the re-raised SIGTERM as uvicorn does) and its port is then refused', async () => {
    const fresh = await Promise.all((Object.keys(servers) as ServerName[]).map((n) => servers[n]()));
    try {
      const stopped = await Promise.all(fresh.map(async (p) => ({ name: p.name, ms: await p.stop(), code: p.child.exitCode, signal: p.child.signalCode, url: p.url })));
      for (const s of stopped) {
        // uvicorn finishes its graceful shutdown, then re-raises the signal it caught.
        expect(s.code === 0 || (s.name !== 'node-http-c' && s.name !== 'http-server' && s.signal === 'SIGTERM'), `${s.name} exit: ${s.code ?? s.signal}`).toBe(true);
        expect(s.ms, `${s.name} took ${s.ms} ms to exit`).toBeLessThan(5_000);
        await expect(http(s.url, { path: '/healthz' }), `${s.name} still answers`).rejects.toThrow();
      }
    } finally {
      await Promise.all(fresh.map((p) => p.stop()));
    }
  }, 120_000);
});
