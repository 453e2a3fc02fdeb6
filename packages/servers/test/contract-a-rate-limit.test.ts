/**
 * Rate limit of Contract A across the six servers (real processes). Every test starts its own
 * servers, so no test depends on another having used (or not used) a window, and none depends
 * on how fast the machine is:
 * - where a request must be limited, the window is made long by env (10 min), so it cannot end
 *   during the test, and `retry-after` is checked against the range the test's own clock readings
 *   around the requests allow (a correct server is inside it however slow the machine is);
 * - the window reset waits the `retry-after` the server gave, the contract's promise to the client.
 * The limiter's arithmetic against an injected clock is in contract-a-logic.test.ts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { parityReport, send, sendToAll, type ExpectedResponse, type ObservedResponse, type TestRequest } from './_helpers-http.js';
import { contract, serverNames, startServers, stopServers, type RunningServer, type ServerName } from './_helpers-servers.js';

type Servers = Record<ServerName, RunningServer>;

const json = { 'content-type': contract.contentType };
const PAYLOAD = JSON.stringify(contract.payload);
const flood: TestRequest = { method: 'POST', path: '/rate-limited/users', headers: { 'content-type': 'application/json' }, body: PAYLOAD };
const CREATED: ExpectedResponse = { status: 201, headers: json, json: { id: contract.createdId, ...contract.payload } };
const limited = (retryAfter: string): ExpectedResponse => ({ status: 429, headers: { ...json, 'retry-after': retryAfter }, json: { error: 'too_many_requests' } });

/** A window that cannot end while a test runs: every request past the limit is limited, whatever the machine's speed. */
const LONG_WINDOW_MS = 600_000;

/** Fresh servers with `env` for one test, stopped afterwards whatever happens. */
async function withServers(env: Record<string, string>, use: (servers: Servers) => Promise<unknown>): Promise<void> {
  const servers = await startServers(env);
  try {
    await use(servers);
  } finally {
    await stopServers(servers);
  }
}

async function check(servers: Servers, request: TestRequest, expected: ExpectedResponse, what = `${request.method ?? 'GET'} ${request.path}`): Promise<void> {
  const report = parityReport(await sendToAll(servers, request), expected);
  if (report.length > 0) expect.fail(`${what}\n${report.join('\n')}`);
}

/** `retry-after` as the contract defines it: ceil(seconds left), clamped to 1..ceil(window in s). */
const retryAfterFor = (windowMs: number, elapsedMs: number): number => Math.min(Math.ceil(windowMs / 1000), Math.max(1, Math.ceil((windowMs - elapsedMs) / 1000)));

/** When the test's clock says a client's window opened: between sending its first request and the answer. */
interface Opened {
  sent: number;
  answered: number;
}

/**
 * Sends `request`, which every server must limit. Its `retry-after` is checked per server against
 * what the test's clock allows: the window opened within `opened`, and this request was judged
 * between its sending and its answer, so the time the server saw pass lies between those readings.
 * The rest of the 429 (status, the other compared headers, body) must be the same on every server.
 */
async function expectLimited(servers: Servers, request: TestRequest, windowMs: number, opened: Opened, what: string): Promise<void> {
  const sent = Date.now();
  const responses = await sendToAll(servers, request);
  const answered = Date.now();
  const allowed = { min: retryAfterFor(windowMs, answered - opened.sent), max: retryAfterFor(windowMs, Math.max(0, sent - opened.answered)) };
  const seen = Object.fromEntries(serverNames.map((n) => [n, responses[n].headers['retry-after'] ?? '(absent)']));
  for (const n of serverNames) {
    const value = Number(seen[n]);
    const ok = Number.isInteger(value) && value >= allowed.min && value <= allowed.max;
    expect(ok, `${what}: ${n} gave retry-after ${seen[n]}; the clock allows ${allowed.min}..${allowed.max} (all: ${JSON.stringify(seen)})`).toBe(true);
  }
  // Checked above, per server; set to one value so that parity compares everything else.
  const rest: Record<ServerName, ObservedResponse> = { ...responses };
  for (const n of serverNames) rest[n] = { ...responses[n], headers: { ...responses[n].headers, 'retry-after': 'checked' } };
  const report = parityReport(rest, limited('checked'));
  if (report.length > 0) expect.fail(`${what}\n${report.join('\n')}`);
}

/** Sends the `max` requests the limit allows (each must be a 201), then one more that must be limited. */
async function exhaust(servers: Servers, max: number, windowMs: number): Promise<Opened> {
  const opened: Opened = { sent: Date.now(), answered: 0 };
  for (let i = 1; i <= max; i++) {
    await check(servers, flood, CREATED, `request ${i} of ${max} (within the limit)`);
    if (i === 1) opened.answered = Date.now();
  }
  await expectLimited(servers, flood, windowMs, opened, `request ${max + 1} (over the limit)`);
  return opened;
}

describe("the contract's default: 50 requests per 10 s", () => {
  test('contract-a.json says 50 / 10 s', () => {
    expect(contract.limits.rateLimit).toEqual({ max: 50, windowMs: 10_000 });
  });

  test(`without RATE_LIMIT_MAX every server lets requests 1 to 50 through and limits the 51st (window set to ${LONG_WINDOW_MS / 60_000} min so it cannot end first)`, async () => {
    await withServers({ RATE_LIMIT_WINDOW_MS: String(LONG_WINDOW_MS) }, (servers) => exhaust(servers, contract.limits.rateLimit.max, LONG_WINDOW_MS));
  });
});

describe(`limit and window from env: RATE_LIMIT_MAX=3, RATE_LIMIT_WINDOW_MS=${LONG_WINDOW_MS}`, () => {
  const env = { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: String(LONG_WINDOW_MS) };

  // The defaults would let the 4th request through and give a retry-after of at most 10: a
  // server that ignored either variable fails here.
  test('every server reads both: requests 1 to 3 → 201, the 4th → 429 with retry-after the seconds left of the 10-min window', async () => {
    await withServers(env, (servers) => exhaust(servers, 3, LONG_WINDOW_MS));
  });

  test('a wrong method on the route is a 405 and does not count', async () => {
    await withServers(env, async (servers) => {
      for (let i = 1; i <= 3; i++) {
        await check(servers, { path: '/rate-limited/users' }, { status: 405, headers: { ...json, allow: 'POST' }, json: { error: 'method_not_allowed' } }, `GET ${i}`);
      }
      // Three 405s used nothing of the limit: three POSTs still pass, the fourth is limited.
      await exhaust(servers, 3, LONG_WINDOW_MS);
    });
  });

  test('the limit is checked before the body is read: malformed body → 429, not 400', async () => {
    await withServers(env, async (servers) => {
      const opened = await exhaust(servers, 3, LONG_WINDOW_MS);
      await expectLimited(servers, { ...flood, body: '{' }, LONG_WINDOW_MS, opened, 'malformed body over the limit');
    });
  });

  test('the limit is checked before the content type: text/plain → 429, not 415', async () => {
    await withServers(env, async (servers) => {
      const opened = await exhaust(servers, 3, LONG_WINDOW_MS);
      await expectLimited(servers, { ...flood, headers: { 'content-type': 'text/plain' } }, LONG_WINDOW_MS, opened, 'text/plain over the limit');
    });
  });

  test('a limited client still gets other routes; /healthz is never limited', async () => {
    await withServers(env, async (servers) => {
      await exhaust(servers, 3, LONG_WINDOW_MS);
      for (let i = 0; i < 5; i++) await check(servers, { path: '/healthz' }, { status: 200, headers: json, json: { status: 'ok' } });
      await check(servers, { method: 'POST', path: '/users', headers: { 'content-type': 'application/json' }, body: PAYLOAD }, CREATED);
    });
  });
});

describe('window reset: RATE_LIMIT_MAX=1, RATE_LIMIT_WINDOW_MS=1500', () => {
  test('once the retry-after it was given has passed, a limited client may send again → 201', async () => {
    await withServers({ RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_MS: '1500' }, async (servers) => {
      await Promise.all(
        serverNames.map(async (name) => {
          const url = servers[name].url;
          expect((await send(url, flood)).status, `${name}: first request of a fresh server`).toBe(201);
          // Normally the very next request is limited; on a machine so slow that 1.5 s passed in
          // between, the window reopened and the next pair tries again.
          let answer = await send(url, flood);
          for (let tries = 1; answer.status === 201 && tries < 10; tries++) answer = await send(url, flood);
          expect(answer.status, `${name}: never limited in 10 tries`).toBe(429);
          const retryAfter = Number(answer.headers['retry-after']);
          expect([1, 2], `${name}: retry-after ${answer.headers['retry-after']} for a 1.5 s window`).toContain(retryAfter);
          // The server promised the window ends within retry-after seconds of its answer.
          await sleep(retryAfter * 1000);
          expect((await send(url, flood)).status, `${name}: after waiting retry-after (${retryAfter} s)`).toBe(201);
        }),
      );
    });
  });
});
