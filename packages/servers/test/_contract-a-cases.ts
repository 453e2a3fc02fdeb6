/**
 * The cases of Contract A's parity tests, written once: the Node servers' parity file and the
 * runtimes' parity file (the same servers on Node 22/24, Hono on Bun and Deno) both send them.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { ExpectedResponse, TestRequest } from './_helpers-http.js';
import { contract } from './_helpers-servers.js';

const TOKEN = contract.token;
const AUTH = `Bearer ${TOKEN}`;
const JSON_CT = contract.contentType;
const PAYLOAD = JSON.stringify(contract.payload);
const CREATED = { id: contract.createdId, ...contract.payload };
/** Handler timeout the servers run with in these tests, ms. */
export const TIMEOUT_MS = 300;

const json = { 'content-type': JSON_CT };
const unauthorized = { ...json, 'www-authenticate': 'Bearer' };
const stack = (gzip: boolean, extra: Record<string, string> = {}) => ({
  ...json,
  'access-control-allow-origin': '*',
  vary: 'Origin, Accept-Encoding',
  ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  ...extra,
});
const preflight = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': 'Authorization,Content-Type',
  vary: 'Origin, Accept-Encoding',
};
const err = (status: number, error: string, headers: Record<string, string> = json, extra: object = {}): ExpectedResponse => ({
  status,
  headers,
  json: { error, ...extra },
});
const etagOf = (body: string) => `"${createHash('sha1').update(body).digest('base64url')}"`;
const cachedBody = (id: string) => JSON.stringify({ id, ...contract.payload });
const ETAG = etagOf(cachedBody('u_123'));
const cached = (id: string) => ({ ...json, etag: etagOf(cachedBody(id)), 'cache-control': 'no-cache' });

const post = (path: string, body: string | Buffer | undefined, headers: Record<string, string> = { 'content-type': 'application/json' }, extra: Partial<TestRequest> = {}): TestRequest => ({
  method: 'POST',
  path,
  headers,
  ...(body === undefined ? {} : { body }),
  ...extra,
});
const stackHeaders = { authorization: AUTH, 'content-type': 'application/json', origin: 'https://app.example.com', accept: 'application/json', 'accept-encoding': 'gzip' };
const stackPost = (headers: Record<string, string> = {}, body: string = PAYLOAD): TestRequest => post('/stack/auth/users', body, { ...stackHeaders, ...headers });
const without = (h: Record<string, string>, name: string) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== name));

/** A JSON document of exactly `size` bytes that passes validation. */
const paddedPayload = (size: number): string => {
  const head = `{"name":"Jane Doe","email":"jane@example.com","pad":"`;
  return `${head}${'x'.repeat(size - head.length - 2)}"}`;
};
const ONE_MIB = contract.limits.bodyBytes;

export interface Case {
  name: string;
  request: TestRequest;
  expect: ExpectedResponse;
}

const scenario = (name: string) => {
  const s = contract.scenarios.find((x) => x.name === name);
  if (!s) throw new Error(`no scenario ${name}`);
  return { method: s.request.method, path: s.request.path, headers: { ...s.request.headers }, ...(s.request.body ? { body: s.request.body } : {}) } as TestRequest;
};

const scenarioCases: Case[] = [
  { name: 'healthz: 200 {"status":"ok"}', request: { path: '/healthz' }, expect: { status: 200, headers: json, json: { status: 'ok' } } },
  { name: 'baseline: GET /ping → 200 {"ok":true}', request: scenario('baseline'), expect: { status: 200, headers: json, json: { ok: true } } },
  { name: 'param: id and query echoed', request: scenario('param'), expect: { status: 200, headers: json, json: { id: 'u_123', query: { fields: 'name,email', page: '1' } } } },
  { name: 'auth: valid token → 200', request: scenario('auth'), expect: { status: 200, headers: json, json: { id: 'u_123' } } },
  { name: 'json-post: 201 with id u_bench', request: scenario('json-post'), expect: { status: 201, headers: json, json: CREATED } },
  { name: 'full-pipeline: 201', request: scenario('full-pipeline'), expect: { status: 201, headers: json, json: CREATED } },
  { name: 'concurrency-ramp: 201', request: scenario('concurrency-ramp'), expect: { status: 201, headers: json, json: CREATED } },
  { name: 'production-stack: 201 gzip + CORS + Vary', request: scenario('production-stack'), expect: { status: 201, headers: stack(true), json: CREATED } },
  {
    name: 'conditional-get: matching If-None-Match → 304, empty body, same etag',
    request: { ...scenario('conditional-get'), headers: { 'if-none-match': ETAG } },
    expect: { status: 304, headers: { etag: ETAG, 'cache-control': 'no-cache' } },
  },
  { name: 'rate-limit-flood: 201 within the limit', request: scenario('rate-limit-flood'), expect: { status: 201, headers: json, json: CREATED } },
];

const routingCases: Case[] = [
  { name: 'unknown route → 404', request: { path: '/nope' }, expect: err(404, 'not_found') },
  { name: 'trailing slash is another path → 404', request: { path: '/ping/' }, expect: err(404, 'not_found') },
  { name: 'paths are case-sensitive → 404', request: { path: '/PING' }, expect: err(404, 'not_found') },
  { name: 'empty path parameter → 404', request: { path: '/users/' }, expect: err(404, 'not_found') },
  { name: 'extra segment → 404', request: { path: '/users/a/b' }, expect: err(404, 'not_found') },
  { name: 'DELETE /ping → 405 Allow: GET, HEAD', request: { method: 'DELETE', path: '/ping' }, expect: err(405, 'method_not_allowed', { ...json, allow: 'GET, HEAD' }) },
  { name: 'POST /ping → 405', request: post('/ping', '{}'), expect: err(405, 'method_not_allowed', { ...json, allow: 'GET, HEAD' }) },
  { name: 'GET /users (POST only) → 405 Allow: POST', request: { path: '/users' }, expect: err(405, 'method_not_allowed', { ...json, allow: 'POST' }) },
  { name: 'PUT /cached/users/:id → 405', request: { method: 'PUT', path: '/cached/users/u_1', body: '{}' }, expect: err(405, 'method_not_allowed', { ...json, allow: 'GET, HEAD' }) },
  { name: 'GET /stack/auth/users → 405 Allow: OPTIONS, POST', request: { path: '/stack/auth/users' }, expect: err(405, 'method_not_allowed', { ...json, allow: 'OPTIONS, POST' }) },
  { name: 'OPTIONS on a non-CORS route → 405', request: { method: 'OPTIONS', path: '/ping' }, expect: err(405, 'method_not_allowed', { ...json, allow: 'GET, HEAD' }) },
  { name: 'OPTIONS on an unknown route → 404', request: { method: 'OPTIONS', path: '/nope' }, expect: err(404, 'not_found') },
  { name: 'GET /rate-limited/users → 405 Allow: POST', request: { path: '/rate-limited/users' }, expect: err(405, 'method_not_allowed', { ...json, allow: 'POST' }) },
  { name: 'HEAD /ping → 200 headers, no body', request: { method: 'HEAD', path: '/ping' }, expect: { status: 200, headers: json } },
  { name: 'HEAD /cached/users/u_123 → 200 with etag, no body', request: { method: 'HEAD', path: '/cached/users/u_123' }, expect: { status: 200, headers: cached('u_123') } },
  { name: 'HEAD on an unknown route → 404, no body', request: { method: 'HEAD', path: '/nope' }, expect: { status: 404, headers: json } },
  { name: 'HEAD on a POST-only route → 405, no body', request: { method: 'HEAD', path: '/users' }, expect: { status: 405, headers: { ...json, allow: 'POST' } } },
  { name: 'HEAD on the stack route → 405, no body', request: { method: 'HEAD', path: '/stack/auth/users' }, expect: { status: 405, headers: { ...json, allow: 'OPTIONS, POST' } } },
  { name: 'malformed %-escape in a parameter → 400', request: { path: '/users/a%E0%A4' }, expect: err(400, 'bad_request') },
  { name: 'malformed %-escape on an unknown path → 400 (before routing)', request: { path: '/nope%ZZ' }, expect: err(400, 'bad_request') },
  { name: 'malformed %-escape is checked before auth', request: { path: '/auth/users/%ZZ' }, expect: err(400, 'bad_request') },
  { name: 'dot segment before a route → 400 (not resolved)', request: { path: '/x/../ping' }, expect: err(400, 'bad_request') },
  { name: 'dot segment as the id → 400', request: { path: '/users/..' }, expect: err(400, 'bad_request') },
  { name: 'escaped dot segment as the id → 400', request: { path: '/users/%2E' }, expect: err(400, 'bad_request') },
  { name: 'backslash in the path → 400', request: { path: '/users/a\\b' }, expect: err(400, 'bad_request') },
  { name: 'dot segment is checked before auth', request: { path: '/auth/users/.', headers: {} }, expect: err(400, 'bad_request') },
  { name: 'dots inside a segment are plain characters', request: { path: '/users/a..b' }, expect: { status: 200, headers: json, json: { id: 'a..b', query: {} } } },
  { name: 'an escaped letter never matches a route letter → 404', request: { path: '/%70ing' }, expect: err(404, 'not_found') },
  { name: 'an escaped route segment → 404 before any body check', request: post('/%75sers', '', {}), expect: err(404, 'not_found') },
  { name: 'empty id before auth → 404', request: { method: 'HEAD', path: '/auth/users/' }, expect: { status: 404, headers: json } },
  { name: 'a #fragment is ignored', request: { path: '/users/a?x=1#y=2' }, expect: { status: 200, headers: json, json: { id: 'a', query: { x: '1' } } } },
  { name: 'absolute-form request-target', request: { path: 'http://127.0.0.1/users/a?b=1' }, expect: { status: 200, headers: json, json: { id: 'a', query: { b: '1' } } } },
  {
    name: 'DELETE with an empty JSON body → 405 (the body is not looked at)',
    request: { method: 'DELETE', path: '/ping', headers: { 'content-type': 'application/json' } },
    expect: err(405, 'method_not_allowed', { ...json, allow: 'GET, HEAD' }),
  },
  { name: 'OPTIONS with a body on a non-CORS route → 405', request: { method: 'OPTIONS', path: '/healthz', body: '0' }, expect: err(405, 'method_not_allowed', { ...json, allow: 'GET, HEAD' }) },
];

const paramCases: Case[] = [
  { name: 'no query → empty object', request: { path: '/users/u_1' }, expect: { status: 200, headers: json, json: { id: 'u_1', query: {} } } },
  { name: 'repeated key keeps its first value', request: { path: '/users/u_1?a=1&b=2&a=3' }, expect: { status: 200, headers: json, json: { id: 'u_1', query: { a: '1', b: '2' } } } },
  { name: 'empty values kept, empty keys dropped', request: { path: '/users/u_1?a=&=x&b&&c=3' }, expect: { status: 200, headers: json, json: { id: 'u_1', query: { a: '', b: '', c: '3' } } } },
  {
    name: 'keys keep first-appearance order, integer-like too',
    request: { path: '/users/u_1?b=1&2=x&1=y' },
    expect: { status: 200, headers: json, text: '{"id":"u_1","query":{"b":"1","2":"x","1":"y"}}' },
  },
  {
    name: 'bad escapes in the query stay literal, invalid UTF-8 becomes U+FFFD',
    request: { path: '/users/u_1?a=%ZZ&b=%E0%A4' },
    expect: { status: 200, headers: json, json: { id: 'u_1', query: { a: '%ZZ', b: '\uFFFD' } } },
  },
  { name: 'plus is a space, escapes decoded', request: { path: '/users/u_1?q=a+b%20c&x=%E2%9C%93' }, expect: { status: 200, headers: json, json: { id: 'u_1', query: { q: 'a b c', x: '✓' } } } },
  { name: 'unicode path parameter decoded', request: { path: '/users/%C3%A9l%C3%A8ve%20%F0%9F%98%80' }, expect: { status: 200, headers: json, json: { id: 'élève 😀', query: {} } } },
  { name: 'escaped percent stays a literal %', request: { path: '/users/%25E0' }, expect: { status: 200, headers: json, json: { id: '%E0', query: {} } } },
  { name: 'encoded slash inside a parameter', request: { path: '/users/a%2Fb' }, expect: { status: 200, headers: json, json: { id: 'a/b', query: {} } } },
  { name: 'long parameter (200 chars)', request: { path: `/users/${'u'.repeat(200)}` }, expect: { status: 200, headers: json, json: { id: 'u'.repeat(200), query: {} } } },
];

const authCases: Case[] = [
  { name: 'missing token → 401', request: { path: '/auth/users/u_123' }, expect: err(401, 'unauthorized', unauthorized) },
  { name: 'scheme only → 401', request: { path: '/auth/users/u_123', headers: { authorization: 'Bearer' } }, expect: err(401, 'unauthorized', unauthorized) },
  { name: 'Basic scheme → 401', request: { path: '/auth/users/u_123', headers: { authorization: `Basic ${TOKEN}` } }, expect: err(401, 'unauthorized', unauthorized) },
  { name: 'no space after scheme → 401', request: { path: '/auth/users/u_123', headers: { authorization: `Bearer${TOKEN}` } }, expect: err(401, 'unauthorized', unauthorized) },
  { name: 'trailing garbage → 401', request: { path: '/auth/users/u_123', headers: { authorization: `${AUTH} x` } }, expect: err(401, 'unauthorized', unauthorized) },
  { name: 'wrong token → 401', request: { path: '/auth/users/u_123', headers: { authorization: 'Bearer d3JvbmctdG9rZW4=' } }, expect: err(401, 'unauthorized', unauthorized) },
  { name: 'token prefix (shorter) → 401', request: { path: '/auth/users/u_123', headers: { authorization: AUTH.slice(0, -3) } }, expect: err(401, 'unauthorized', unauthorized) },
  { name: 'scheme is case-insensitive → 200', request: { path: '/auth/users/u_123', headers: { authorization: `bearer ${TOKEN}` } }, expect: { status: 200, headers: json, json: { id: 'u_123' } } },
  { name: 'HEAD without token → 401, no body', request: { method: 'HEAD', path: '/auth/users/u_123' }, expect: { status: 401, headers: unauthorized } },
];

const big = paddedPayload(ONE_MIB + 1);
const MAX_DEPTH = (contract.limits as { jsonDepth?: number }).jsonDepth ?? 0;
const nested = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;
/**
 * Bodies at the depth limit (accepted) and one level past it, and 5,000 levels past it (400).
 * `wrap` puts the nested arrays one level under the body object, so they add `levels` to it.
 */
const depthCases = (path: string, wrap: (inner: string) => string, createdExtra: object, headers: Record<string, string> = { 'content-type': 'application/json' }): Case[] => [
  {
    name: `${path}: body nested exactly ${MAX_DEPTH} deep → accepted`,
    request: post(path, wrap(nested(MAX_DEPTH - 1)), headers),
    expect: { status: 201, headers: json, json: { ...createdExtra, ...(JSON.parse(wrap(nested(MAX_DEPTH - 1))) as object) } },
  },
  { name: `${path}: body nested ${MAX_DEPTH + 1} deep → 400`, request: post(path, wrap(nested(MAX_DEPTH)), headers), expect: err(400, 'bad_request') },
  { name: `${path}: body nested 5,000 deep → 400 (no 5xx)`, request: post(path, wrap(nested(4_999)), headers), expect: err(400, 'bad_request') },
];
const bodyCases: Case[] = [
  { name: 'malformed JSON → 400', request: post('/users', '{"name":'), expect: err(400, 'bad_request') },
  { name: 'array body → 400', request: post('/users', '[1,2]'), expect: err(400, 'bad_request') },
  { name: 'number body → 400', request: post('/users', '42'), expect: err(400, 'bad_request') },
  { name: 'string body → 400', request: post('/users', '"x"'), expect: err(400, 'bad_request') },
  { name: 'null body → 400', request: post('/users', 'null'), expect: err(400, 'bad_request') },
  { name: 'empty body → 400', request: post('/users', ''), expect: err(400, 'bad_request') },
  { name: 'whitespace-only body → 400', request: post('/users', '  \n'), expect: err(400, 'bad_request') },
  { name: 'text/plain → 415', request: post('/users', PAYLOAD, { 'content-type': 'text/plain' }), expect: err(415, 'unsupported_media_type') },
  { name: 'no content type → 415', request: post('/users', PAYLOAD, {}), expect: err(415, 'unsupported_media_type') },
  { name: 'no content type, no body → 415', request: { method: 'POST', path: '/users' }, expect: err(415, 'unsupported_media_type') },
  { name: 'application/vnd.api+json → 415', request: post('/users', PAYLOAD, { 'content-type': 'application/vnd.api+json' }), expect: err(415, 'unsupported_media_type') },
  { name: 'charset other than utf-8 → 415', request: post('/users', PAYLOAD, { 'content-type': 'application/json; charset=latin1' }), expect: err(415, 'unsupported_media_type') },
  {
    name: 'gzip-encoded request body → 415',
    request: post('/users', gzipSync(PAYLOAD), { 'content-type': 'application/json', 'content-encoding': 'gzip' }),
    expect: err(415, 'unsupported_media_type'),
  },
  { name: 'charset=utf-8 parameter accepted', request: post('/users', PAYLOAD, { 'content-type': 'application/json; charset=UTF-8' }), expect: { status: 201, headers: json, json: CREATED } },
  { name: 'media type is case-insensitive', request: post('/users', PAYLOAD, { 'content-type': 'Application/JSON' }), expect: { status: 201, headers: json, json: CREATED } },
  { name: 'body of 1 MiB + 1 byte → 413', request: post('/users', big), expect: err(413, 'payload_too_large') },
  { name: 'chunked body over 1 MiB → 413', request: post('/users', big, undefined, { chunked: true }), expect: err(413, 'payload_too_large') },
  { name: '415 is decided before 413', request: post('/users', big, { 'content-type': 'text/plain' }), expect: err(415, 'unsupported_media_type') },
  {
    name: 'body of exactly 1 MiB → 201',
    request: post('/users', paddedPayload(ONE_MIB)),
    expect: { status: 201, headers: json, json: { id: contract.createdId, ...(JSON.parse(paddedPayload(ONE_MIB)) as object) } },
  },
  { name: 'empty object accepted on json-post (no schema)', request: post('/users', '{}'), expect: { status: 201, headers: json, json: { id: contract.createdId } } },
  {
    name: 'unicode body echoed',
    request: post('/users', '{"name":"Zoë 😀","email":"ü@例え.jp","role":"\\u2135"}'),
    expect: { status: 201, headers: json, json: { id: contract.createdId, name: 'Zoë 😀', email: 'ü@例え.jp', role: 'ℵ' } },
  },
  { name: 'client id replaced, kept first', request: post('/users', '{"role":"x","id":"mine"}'), expect: { status: 201, headers: json, text: '{"id":"u_bench","role":"x"}' } },
  {
    name: 'invalid UTF-8 bytes become U+FFFD',
    request: post('/users', Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff]), Buffer.from('"}')])),
    expect: { status: 201, headers: json, json: { id: contract.createdId, name: '\uFFFD' } },
  },
  { name: 'UTF-8 BOM skipped', request: post('/users', `\uFEFF${PAYLOAD}`), expect: { status: 201, headers: json, json: CREATED } },
  { name: 'duplicate keys: last wins', request: post('/users', '{"name":"a","name":"b"}'), expect: { status: 201, headers: json, json: { id: contract.createdId, name: 'b' } } },
  ...depthCases('/users', (inner) => `{"x":${inner}}`, { id: contract.createdId }),
  { name: 'array nested 5,000 deep → 400', request: post('/users', `${'['.repeat(5000)}${']'.repeat(5000)}`), expect: err(400, 'bad_request') },
  { name: '__proto__ key is plain data', request: post('/users', '{"__proto__":{"x":1},"name":"a"}'), expect: { status: 201, headers: json, text: '{"id":"u_bench","__proto__":{"x":1},"name":"a"}' } },
];

const authJson = { authorization: AUTH, 'content-type': 'application/json' };
const pipelineCases: Case[] = [
  { name: 'no token and malformed JSON → 401 (auth first)', request: post('/auth/users', '{', { 'content-type': 'application/json' }), expect: err(401, 'unauthorized', unauthorized) },
  { name: 'no token and wrong type → 401', request: post('/auth/users', PAYLOAD, { 'content-type': 'text/plain' }), expect: err(401, 'unauthorized', unauthorized) },
  { name: 'malformed JSON → 400', request: post('/auth/users', '{"name"', authJson), expect: err(400, 'bad_request') },
  { name: 'wrong content type → 415', request: post('/auth/users', PAYLOAD, { ...authJson, 'content-type': 'text/plain' }), expect: err(415, 'unsupported_media_type') },
  { name: 'too large → 413', request: post('/auth/users', big, authJson), expect: err(413, 'payload_too_large') },
  { name: 'array → 400 (not 422)', request: post('/auth/users', '[]', authJson), expect: err(400, 'bad_request') },
  { name: 'empty object → 422 [email, name]', request: post('/auth/users', '{}', authJson), expect: err(422, 'validation_failed', json, { fields: ['email', 'name'] }) },
  {
    name: 'empty name, numeric email → 422 [email, name]',
    request: post('/auth/users', '{"name":"","email":5}', authJson),
    expect: err(422, 'validation_failed', json, { fields: ['email', 'name'] }),
  },
  { name: 'missing email → 422 [email]', request: post('/auth/users', '{"name":"a"}', authJson), expect: err(422, 'validation_failed', json, { fields: ['email'] }) },
  { name: 'null name → 422 [name] (no coercion)', request: post('/auth/users', '{"name":null,"email":"e"}', authJson), expect: err(422, 'validation_failed', json, { fields: ['name'] }) },
  { name: 'numeric name → 422 [name] (no coercion)', request: post('/auth/users', '{"name":1,"email":"e"}', authJson), expect: err(422, 'validation_failed', json, { fields: ['name'] }) },
  {
    name: 'one emoji satisfies minLength 1',
    request: post('/auth/users', '{"name":"😀","email":"e"}', authJson),
    expect: { status: 201, headers: json, json: { id: contract.createdId, name: '😀', email: 'e' } },
  },
  {
    name: 'extra properties kept',
    request: post('/auth/users', '{"name":"a","email":"e","tags":[1,{"x":null}]}', authJson),
    expect: { status: 201, headers: json, json: { id: contract.createdId, name: 'a', email: 'e', tags: [1, { x: null }] } },
  },
  { name: 'rate-limited route validates too → 422', request: post('/rate-limited/users', '{"email":"e"}'), expect: err(422, 'validation_failed', json, { fields: ['name'] }) },
  { name: 'rate-limited route: wrong type → 415', request: post('/rate-limited/users', PAYLOAD, { 'content-type': 'text/plain' }), expect: err(415, 'unsupported_media_type') },
  { name: 'rate-limited route: malformed → 400', request: post('/rate-limited/users', '{'), expect: err(400, 'bad_request') },
  ...depthCases('/auth/users', (inner) => `{"name":"a","email":"e","x":${inner}}`, { id: contract.createdId }, authJson),
  { name: 'too deep and invalid → 400 (depth before validation)', request: post('/auth/users', `{"x":${nested(5000)}}`, authJson), expect: err(400, 'bad_request') },
  ...depthCases('/rate-limited/users', (inner) => `{"name":"a","email":"e","x":${inner}}`, { id: contract.createdId }),
];

const stackCases: Case[] = [
  { name: 'no Accept-Encoding → identity, same Vary', request: stackPost({ 'accept-encoding': '' }), expect: { status: 201, headers: stack(false), json: CREATED } },
  { name: 'Accept-Encoding list with gzip → gzip', request: stackPost({ 'accept-encoding': 'gzip, deflate, br' }), expect: { status: 201, headers: stack(true), json: CREATED } },
  { name: 'Accept-Encoding br only → identity', request: stackPost({ 'accept-encoding': 'br' }), expect: { status: 201, headers: stack(false), json: CREATED } },
  { name: 'Accept-Encoding * → gzip', request: stackPost({ 'accept-encoding': '*' }), expect: { status: 201, headers: stack(true), json: CREATED } },
  { name: 'no Origin → CORS headers anyway', request: stackPost({ origin: '' }), expect: { status: 201, headers: stack(true), json: CREATED } },
  { name: 'Accept */* → 201', request: stackPost({ accept: '*/*' }), expect: { status: 201, headers: stack(true), json: CREATED } },
  { name: 'Accept application/* → 201', request: stackPost({ accept: 'text/html, application/*;q=0.5' }), expect: { status: 201, headers: stack(true), json: CREATED } },
  { name: 'Accept text/html → 406 (gzip, CORS)', request: stackPost({ accept: 'text/html' }), expect: err(406, 'not_acceptable', stack(true)) },
  { name: 'Accept application/json;q=0 → 406', request: stackPost({ accept: 'application/json;q=0, text/html' }), expect: err(406, 'not_acceptable', stack(true)) },
  { name: '406 before 401', request: stackPost({ accept: 'text/html', authorization: '' }), expect: err(406, 'not_acceptable', stack(true)) },
  { name: 'missing token → 401', request: post('/stack/auth/users', PAYLOAD, without(stackHeaders, 'authorization')), expect: err(401, 'unauthorized', stack(true, { 'www-authenticate': 'Bearer' })) },
  { name: 'malformed JSON → 400', request: stackPost({}, '{"x'), expect: err(400, 'bad_request', stack(true)) },
  { name: 'wrong content type → 415', request: stackPost({ 'content-type': 'text/plain' }), expect: err(415, 'unsupported_media_type', stack(true)) },
  { name: 'too large → 413', request: stackPost({}, big), expect: err(413, 'payload_too_large', stack(true)) },
  { name: 'invalid → 422', request: stackPost({}, '{"name":"a"}'), expect: err(422, 'validation_failed', stack(true), { fields: ['email'] }) },
  { name: 'body nested 5,000 deep → 400', request: stackPost({}, `{"name":"a","email":"e","x":${nested(4_999)}}`), expect: err(400, 'bad_request', stack(true)) },
  { name: 'Accept-Encoding gzip;q=0, * → identity (explicit gzip wins)', request: stackPost({ 'accept-encoding': 'gzip;q=0, *' }), expect: { status: 201, headers: stack(false), json: CREATED } },
  { name: 'Accept-Encoding *;q=0 → identity, no error', request: stackPost({ 'accept-encoding': '*;q=0' }), expect: { status: 201, headers: stack(false), json: CREATED } },
  {
    name: 'OPTIONS preflight → 204 with allow-methods/headers',
    request: {
      method: 'OPTIONS',
      path: '/stack/auth/users',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    },
    expect: { status: 204, headers: preflight },
  },
  { name: 'OPTIONS without Access-Control-Request-Method → 204 too', request: { method: 'OPTIONS', path: '/stack/auth/users' }, expect: { status: 204, headers: preflight } },
  { name: `handler over the timeout (${TIMEOUT_MS} ms here) → 503`, request: stackPost({ 'x-test-delay-ms': '1500' }), expect: err(503, 'timeout', stack(true)) },
  { name: 'handler under the timeout → 201', request: stackPost({ 'x-test-delay-ms': '20' }), expect: { status: 201, headers: stack(true), json: CREATED } },
];

const conditionalCases: Case[] = [
  { name: 'no If-None-Match → 200 + etag + cache-control', request: { path: '/cached/users/u_123' }, expect: { status: 200, headers: cached('u_123'), text: cachedBody('u_123') } },
  {
    name: 'stale If-None-Match → 200',
    request: { path: '/cached/users/u_123', headers: { 'if-none-match': '"stale"' } },
    expect: { status: 200, headers: cached('u_123'), text: cachedBody('u_123') },
  },
  {
    name: 'weak form of the ETag → 304',
    request: { path: '/cached/users/u_123', headers: { 'if-none-match': `W/${ETAG}` } },
    expect: { status: 304, headers: { etag: ETAG, 'cache-control': 'no-cache' } },
  },
  {
    name: 'list containing the ETag → 304',
    request: { path: '/cached/users/u_123', headers: { 'if-none-match': `"a", ${ETAG} ,W/"b"` } },
    expect: { status: 304, headers: { etag: ETAG, 'cache-control': 'no-cache' } },
  },
  { name: '* → 304', request: { path: '/cached/users/u_123', headers: { 'if-none-match': '*' } }, expect: { status: 304, headers: { etag: ETAG, 'cache-control': 'no-cache' } } },
  { name: 'another id has its own ETag', request: { path: '/cached/users/u_999', headers: { 'if-none-match': ETAG } }, expect: { status: 200, headers: cached('u_999'), text: cachedBody('u_999') } },
  {
    name: 'HEAD with matching ETag → 304',
    request: { method: 'HEAD', path: '/cached/users/u_123', headers: { 'if-none-match': ETAG } },
    expect: { status: 304, headers: { etag: ETAG, 'cache-control': 'no-cache' } },
  },
  { name: 'If-None-Match on another route is ignored', request: { path: '/ping', headers: { 'if-none-match': '*' } }, expect: { status: 200, headers: json, json: { ok: true } } },
];

/** The environment the servers run with for these cases. */
export const parityEnv = {
  // The rate limit has its own test file with the real default; here it must never trigger.
  RATE_LIMIT_MAX: '1000000',
  HANDLER_TIMEOUT_MS: String(TIMEOUT_MS),
  CONTRACT_A_TEST_HOOKS: '1',
};

export const groups: [string, Case[]][] = [
  ['scenarios (success paths)', scenarioCases],
  ['routing: 404 / 405 / HEAD', routingCases],
  ['param: path and query', paramCases],
  ['auth', authCases],
  ['json-post: body parsing', bodyCases],
  ['full-pipeline: auth → parse → validate', pipelineCases],
  ['production-stack', stackCases],
  ['conditional-get', conditionalCases],
];
