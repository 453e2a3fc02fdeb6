/** The framework-free pieces of Contract A, tested against hand-computed values. */
import { createHash } from 'node:crypto';
import { parseScenario, parseTarget } from '@benchsuite/sdk';
import { describe, expect, test } from 'vitest';
import { isAuthorized } from '../src/contract/auth.js';
import { loadContractAConfig, testDelayMs } from '../src/contract/config.js';
import { contractA } from '../src/contract/contract-a.js';
import { computeEtag, isNotModified } from '../src/contract/etag.js';
import { acceptsGzip, acceptsJson, jsonRequestError } from '../src/contract/negotiation.js';
import { cachedUser, createdUserBody, parseQuery, userWithQueryJson } from '../src/contract/payloads.js';
import { createRateLimiter } from '../src/contract/rate-limit.js';
import { clientErrorResponse } from '../src/contract/client-error.js';
import { jsonDepth, jsonDepthError } from '../src/contract/json-depth.js';
import { isMalformedPath, matchRoute, notRouted, pathnameOf, queryOf, unroutedRawPath } from '../src/contract/routing.js';
import { requireObjectBody, validateUserBody } from '../src/contract/validation.js';
import { contractAScenarios } from '../src/contract-a-scenarios.js';
import { contractATargets, installedVersion, nodeTargets, serveScript } from '../src/node-targets.js';

describe('isAuthorized', () => {
  test.each([
    ['Bearer YmVuY2gtc2VjcmV0LXRva2Vu', true],
    ['bearer   YmVuY2gtc2VjcmV0LXRva2Vu', true],
    [undefined, false],
    ['', false],
    ['Bearer', false],
    ['Bearer ', false],
    ['YmVuY2gtc2VjcmV0LXRva2Vu', false],
    ['Basic YmVuY2gtc2VjcmV0LXRva2Vu', false],
    ['Bearer YmVuY2gtc2VjcmV0LXRva2V', false],
    ['Bearer YmVuY2gtc2VjcmV0LXRva2VuX', false],
    ['Bearer YmVuY2gtc2VjcmV0LXRva2Vu extra', false],
  ])('%j → %s', (header, ok) => expect(isAuthorized(header)).toBe(ok));
});

describe('ETag', () => {
  test('strong, quoted base64url SHA-1 of the body bytes', () => {
    expect(computeEtag('{"ok":true}')).toBe(`"${createHash('sha1').update('{"ok":true}').digest('base64url')}"`);
    expect(computeEtag('x')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });
  test('the value written in contract-a.json is the computed one', () => {
    const scenario = contractA.scenarios.find((s) => s.name === 'conditional-get');
    expect(scenario?.expect.headers?.etag).toBe(cachedUser('u_123').etag);
  });
  test.each([
    [undefined, false],
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    [' "x" ,W/"abc" ', true],
    ['*', true],
    ['"abcd"', false],
    ['"x", "y"', false],
  ])('If-None-Match %j against "abc" → %s', (inm, hit) => expect(isNotModified(inm, '"abc"')).toBe(hit));
});

describe('createRateLimiter (fixed window, injected clock)', () => {
  test('50 allowed, the 51st rejected with the seconds left, a new window after 10 s', () => {
    let now = 1_000;
    const limiter = createRateLimiter({ max: 50, windowMs: 10_000, now: () => now });
    for (let i = 0; i < 50; i++) expect(limiter.hit('a').allowed).toBe(true);
    expect(limiter.hit('a')).toEqual({ allowed: false, retryAfterSeconds: 10 });
    now += 3_500;
    expect(limiter.hit('a')).toEqual({ allowed: false, retryAfterSeconds: 7 }); // 6.5 s left → 7
    expect(limiter.hit('b').allowed).toBe(true); // per client
    now += 6_499;
    expect(limiter.hit('a')).toEqual({ allowed: false, retryAfterSeconds: 1 }); // 1 ms left → 1
    now += 1;
    expect(limiter.hit('a').allowed).toBe(true);
  });
  test('rejected requests do not extend the window', () => {
    let now = 0;
    const limiter = createRateLimiter({ max: 1, windowMs: 2_000, now: () => now });
    limiter.hit('a');
    now = 1_999;
    expect(limiter.hit('a').allowed).toBe(false);
    now = 2_000;
    expect(limiter.hit('a').allowed).toBe(true);
  });
});

describe('negotiation', () => {
  test.each([
    [undefined, true],
    ['', true],
    ['application/json', true],
    ['application/*', true],
    ['*/*', true],
    ['text/html', false],
    ['application/json;q=0', false],
    ['application/json;q=0, */*', false],
    ['text/html, application/json;q=0.1', true],
    ['Application/JSON', true],
  ])('Accept %j allows JSON: %s', (accept, ok) => expect(acceptsJson(accept)).toBe(ok));
  test.each([
    [undefined, false],
    ['gzip', true],
    ['br', false],
    ['*', true],
    ['gzip;q=0, *', false],
    ['br, gzip;q=0.5', true],
    ['identity', false],
  ])('Accept-Encoding %j allows gzip: %s', (ae, ok) => expect(acceptsGzip(ae)).toBe(ok));
  test.each([
    ['application/json', undefined, undefined],
    ['application/json; charset=utf-8', undefined, undefined],
    ['application/json; charset="UTF-8"', undefined, undefined],
    ['APPLICATION/JSON', undefined, undefined],
    [undefined, undefined, 415],
    ['text/plain', undefined, 415],
    ['application/json; charset=latin1', undefined, 415],
    ['application/problem+json', undefined, 415],
    ['application/json', 'gzip', 415],
    ['application/json', 'identity', undefined],
  ])('Content-Type %j, Content-Encoding %j → %s', (ct, ce, status) => expect(jsonRequestError(ct, ce)?.status).toBe(status));
});

describe('validation', () => {
  test.each([
    [{ name: 'a', email: 'b' }, undefined],
    [{ name: 'a', email: 'b', extra: [1] }, undefined],
    [[], { status: 400, body: { error: 'bad_request' } }],
    [null, { status: 400, body: { error: 'bad_request' } }],
    [{}, { status: 422, body: { error: 'validation_failed', fields: ['email', 'name'] } }],
    [
      { name: '', email: 1 },
      { status: 422, body: { error: 'validation_failed', fields: ['email', 'name'] } },
    ],
    [
      { name: 'a', email: null },
      { status: 422, body: { error: 'validation_failed', fields: ['email'] } },
    ],
  ])('%j → %j', (body, result) => expect(validateUserBody(body)).toEqual(result));
});

describe('payloads and routing', () => {
  test('query: first value wins, empty keys dropped, order kept', () => {
    expect(parseQuery('b=1&a=2&b=3&=x&c&2=z')).toEqual([
      ['b', '1'],
      ['a', '2'],
      ['c', ''],
      ['2', 'z'],
    ]);
    expect(userWithQueryJson('u', 'b=1&2=x&1=y')).toBe('{"id":"u","query":{"b":"1","2":"x","1":"y"}}');
  });
  test('created body: id first and always u_bench', () => {
    expect(JSON.stringify(createdUserBody({ role: 'r', id: 'x' }))).toBe('{"id":"u_bench","role":"r"}');
  });
  test('404 vs 405', () => {
    expect(notRouted('/nope')).toEqual({ status: 404, body: { error: 'not_found' } });
    expect(notRouted('/users/x')).toEqual({ status: 405, body: { error: 'method_not_allowed' }, allow: 'GET, HEAD' });
    expect(notRouted('/stack/auth/users').allow).toBe('OPTIONS, POST');
    expect(matchRoute('/users/')).toBeUndefined();
    expect(matchRoute('/users/a%2Fb')?.params).toEqual({ id: 'a%2Fb' });
  });
});

describe('config from env', () => {
  test('defaults are the contract values; env overrides; malformed values throw', () => {
    expect(loadContractAConfig({})).toEqual({ rateLimitMax: 50, rateLimitWindowMs: 10_000, handlerTimeoutMs: 30_000, testHooks: false });
    expect(loadContractAConfig({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '1500', HANDLER_TIMEOUT_MS: '300', CONTRACT_A_TEST_HOOKS: '1' })).toEqual({
      rateLimitMax: 3,
      rateLimitWindowMs: 1500,
      handlerTimeoutMs: 300,
      testHooks: true,
    });
    expect(() => loadContractAConfig({ RATE_LIMIT_MAX: 'ten' })).toThrow(/RATE_LIMIT_MAX/);
  });
  test('the delay hook is inert unless test hooks are on', () => {
    expect(testDelayMs(loadContractAConfig({}), '500')).toBe(0);
    expect(testDelayMs(loadContractAConfig({ CONTRACT_A_TEST_HOOKS: '1' }), '500')).toBe(500);
  });
});

describe('SDK definitions', () => {
  test('nine scenarios, valid for the SDK, in the contract order', () => {
    expect(contractAScenarios.map((s) => s.name)).toEqual(['baseline', 'param', 'auth', 'json-post', 'full-pipeline', 'concurrency-ramp', 'production-stack', 'conditional-get', 'rate-limit-flood']);
    for (const s of contractAScenarios) expect(parseScenario(s).group).toBe('framework');
    const byName = Object.fromEntries(contractAScenarios.map((s) => [s.name, parseScenario(s)]));
    expect(byName['concurrency-ramp']?.load.connections).toEqual([10, 50, 100, 200, 500]);
    expect(byName['rate-limit-flood']?.expect.status).toEqual([201, 429]);
    expect(byName['conditional-get']?.expect.status).toBe(304);
    expect(typeof byName['conditional-get']?.prepare).toBe('function');
  });
  test('the process targets running dist/serve.js with the installed framework versions', () => {
    expect(Object.keys(nodeTargets)).toEqual(['node-http', 'express', 'fastify', 'hono', 'hono-lean', 'koa']);
    expect(contractATargets).toHaveLength(6);
    for (const t of contractATargets) {
      const parsed = parseTarget(t);
      expect(parsed.kind).toBe('process');
      expect(t.command).toEqual([process.execPath, serveScript, t.name]);
      expect(t.metadata).toHaveProperty('bodyParser');
    }
    expect(nodeTargets.fastify.version).toBe(installedVersion('fastify'));
    expect(nodeTargets.hono.version).toMatch(/^4\./);
    expect(nodeTargets['node-http'].version).toBe(process.versions.node);
  });
  test('hono-lean is a named variant of hono whose manifest differs only in the body parser', () => {
    const hono = nodeTargets.hono.metadata as Record<string, string>;
    const lean = nodeTargets['hono-lean'].metadata as Record<string, string>;
    expect(lean.variantOf).toBe('hono');
    expect(lean.differs).toMatch(/body-size check/);
    const changed = Object.keys(lean)
      .filter((k) => lean[k] !== hono[k])
      .sort();
    expect(changed).toEqual(['bodyParser', 'differs', 'variantOf']);
    expect(nodeTargets['hono-lean'].version).toBe(nodeTargets.hono.version);
  });
});

describe('JSON depth limit', () => {
  const arrays = (n: number): unknown => JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`);
  test.each([
    ['a string', 'x', 0],
    ['null', null, 0],
    ['{}', {}, 1],
    ['[]', [], 1],
    ['{"a":[1]}', { a: [1] }, 2],
    ['{"a":{"b":[]},"c":[[[]]]}', { a: { b: [] }, c: [[[]]] }, 4],
    ['6 nested arrays', arrays(6), 6],
  ])('depth of %s is %i', (_label, value, depth) => expect(jsonDepth(value, 128)).toBe(depth));
  test('the walk stops one level past the cap, even 100,000 levels down (no recursion)', () => {
    expect(jsonDepth(arrays(100_000), 128)).toBe(129);
    expect(jsonDepth(arrays(128), 128)).toBe(128);
  });
  test('the contract limit is 128: 128 levels pass, 129 are a 400', () => {
    expect(contractA.limits.jsonDepth).toBe(128);
    expect(jsonDepthError({ x: arrays(127) })).toBeUndefined();
    expect(jsonDepthError({ x: arrays(128) })).toEqual({ status: 400, body: { error: 'bad_request' } });
  });
  test('both body checks apply it, before validation (too deep and invalid is a 400, not a 422)', () => {
    expect(requireObjectBody({ x: arrays(200) })?.status).toBe(400);
    expect(validateUserBody({ x: arrays(200) })?.status).toBe(400);
    expect(validateUserBody({ name: 'a', email: 'e', x: arrays(127) })).toBeUndefined();
  });
});

describe('request-target paths', () => {
  test.each([
    ['/users/a?x=1', '/users/a', 'x=1'],
    ['/ping#frag', '/ping', ''],
    ['/users/a?x=1#y=2', '/users/a', 'x=1'],
    ['http://127.0.0.1:8080/users/a?b=1', '/users/a', 'b=1'],
    ['http://host', '/', ''],
    ['*', '*', ''],
  ])('%s → path %s, query %j', (url, path, query) => {
    expect(pathnameOf(url)).toBe(path);
    expect(queryOf(url)).toBe(query);
  });
  test.each([
    ['/ping', false],
    ['/users/a.b', false],
    ['/users/...', false],
    ['/users/.x', false],
    ['/users/%C3%A9', false],
    ['/users/..', true],
    ['/users/.', true],
    ['/./ping', true],
    ['/x/../ping', true],
    ['/users/%2E', true],
    ['/users/.%2e', true],
    ['/users/a\\b', true],
    ['/users/%ZZ', true],
    ['/users/%E0%A4', true],
    ['*', true],
  ])('isMalformedPath(%j) → %s', (path, bad) => expect(isMalformedPath(path)).toBe(bad));
  test.each([
    ['/ping', undefined],
    ['/users/%70', undefined],
    ['/users/a.b', undefined],
    ['/%70ing', 404],
    ['/users%2Fa', 404],
    ['/users/..', 400],
    ['/%ZZ', 400],
  ])('unroutedRawPath(%j) → %s', (path, status) => expect(unroutedRawPath(path)?.status).toBe(status));
});

describe("clientErrorResponse (Node's own answer to a request its parser rejects)", () => {
  test.each([
    ['HPE_INVALID_METHOD', 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n'],
    [undefined, 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n'],
    ['HPE_HEADER_OVERFLOW', 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n'],
    ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 'HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\n'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n'],
  ])('%s → %j', (code, bytes) => expect(clientErrorResponse(code)).toBe(bytes));
});
