/**
 * Rate limit of Contract A across the five servers, with the real default (50 requests per
 * 10 s per client address) and, for the window reset, a short window set by env.
 * Each block starts its own servers so that no other test has used their windows.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parityReport, sendToAll, type ExpectedResponse, type TestRequest } from './_helpers-http.js';
import { contract, serverNames, startServers, stopServers, type RunningServer, type ServerName } from './_helpers-servers.js';

const json = { 'content-type': contract.contentType };
const PAYLOAD = JSON.stringify(contract.payload);
const flood: TestRequest = { method: 'POST', path: '/rate-limited/users', headers: { 'content-type': 'application/json' }, body: PAYLOAD };
const CREATED: ExpectedResponse = { status: 201, headers: json, json: { id: contract.createdId, ...contract.payload } };
const limited = (retryAfter: string): ExpectedResponse => ({ status: 429, headers: { ...json, 'retry-after': retryAfter }, json: { error: 'too_many_requests' } });

const check = async (servers: Record<ServerName, RunningServer>, request: TestRequest, expected: ExpectedResponse): Promise<void> => {
  const report = parityReport(await sendToAll(servers, request), expected);
  if (report.length > 0) expect.fail(`${request.method ?? 'GET'} ${request.path}\n${report.join('\n')}`);
};

describe('default limit: 50 requests per 10 s', () => {
  let servers: Record<ServerName, RunningServer> | undefined;
  beforeAll(async () => {
    servers = await startServers();
  });
  afterAll(() => stopServers(servers));

  test('the default is the contract\'s 50 / 10 s', () => {
    expect(contract.limits.rateLimit).toEqual({ max: 50, windowMs: 10_000 });
  });

  test('wrong method on the route is a 405 and does not count', async () => {
    await check(servers!, { path: '/rate-limited/users' }, { status: 405, headers: { ...json, allow: 'POST' }, json: { error: 'method_not_allowed' } });
  });

  test('requests 1 to 50 inside the window → 201', async () => {
    for (let i = 1; i <= contract.limits.rateLimit.max; i++) {
      const responses = await sendToAll(servers!, flood);
      const report = parityReport(responses, CREATED);
      if (report.length > 0) expect.fail(`request ${i}\n${report.join('\n')}`);
    }
  });

  // Well under a second has passed since the window opened, so ceil(seconds left) is 10.
  test('the 51st request → 429 with retry-after 10', async () => {
    await check(servers!, flood, limited('10'));
  });

  test('the limit is checked before the body is read: malformed body → 429, not 400', async () => {
    await check(servers!, { ...flood, body: '{' }, limited('10'));
  });

  test('the limit is checked before the content type: text/plain → 429, not 415', async () => {
    await check(servers!, { ...flood, headers: { 'content-type': 'text/plain' } }, limited('10'));
  });

  test('other routes are not limited; /healthz never is', async () => {
    await check(servers!, { path: '/healthz' }, { status: 200, headers: json, json: { status: 'ok' } });
    await check(servers!, { method: 'POST', path: '/users', headers: { 'content-type': 'application/json' }, body: PAYLOAD }, CREATED);
  });
});

describe('short window from env: RATE_LIMIT_MAX=3, RATE_LIMIT_WINDOW_MS=1500', () => {
  let servers: Record<ServerName, RunningServer> | undefined;
  let opened = 0;
  let firstAnswered = 0;
  beforeAll(async () => {
    servers = await startServers({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '1500' });
  });
  afterAll(() => stopServers(servers));

  test('3 requests pass, the 4th → 429 with retry-after 2 (ceil of 1.5 s minus elapsed)', async () => {
    opened = Date.now();
    for (let i = 0; i < 3; i++) {
      await check(servers!, flood, CREATED);
      // Each server opened its window when the first request arrived: no later than this.
      if (i === 0) firstAnswered = Date.now();
    }
    expect(Date.now() - opened, 'the test machine is too slow for this timing').toBeLessThan(450);
    await check(servers!, flood, limited('2'));
  });

  test('after the window ends the client may send again → 201', async () => {
    await sleep(Math.max(0, firstAnswered + 1_500 + 100 - Date.now()));
    await check(servers!, flood, CREATED);
  });

  test('every server was started with the env values', () => {
    expect(Object.keys(servers!).sort()).toEqual([...serverNames].sort());
  });
});
