import { contractA } from './contract-a.js';
import { computeEtag } from './etag.js';

/** `GET /healthz` body. */
export const healthBody = { status: 'ok' } as const;
/** `GET /ping` body. */
export const pingBody = { ok: true } as const;

/**
 * Query pairs as the contract wants them: WHATWG `application/x-www-form-urlencoded` decoding
 * (`+` is a space, bad escapes stay literal), keys in order of first appearance, a repeated key
 * keeps its first value, pairs with an empty key are dropped (`?=x`, `?&&`).
 */
export function parseQuery(rawQuery: string): [string, string][] {
  const seen = new Map<string, string>();
  for (const [k, v] of new URLSearchParams(rawQuery)) if (k !== '' && !seen.has(k)) seen.set(k, v);
  return [...seen];
}

/**
 * `GET /users/:id` body, serialized here: a JS object would move integer-like keys (`?2=a&1=b`)
 * to the front, breaking "order of first appearance".
 */
export function userWithQueryJson(id: string, rawQuery: string): string {
  const pairs = parseQuery(rawQuery).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  return `{"id":${JSON.stringify(id)},"query":{${pairs.join(',')}}}`;
}

/** `GET /auth/users/:id` body. */
export function authUserBody(id: string): { id: string } {
  return { id };
}

/**
 * 201 body of every create route: `id` first and always `u_bench` (a client-sent `id` is
 * replaced), then the payload's own properties in JSON.parse order.
 */
export function createdUserBody(payload: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = { id: contractA.createdId, ...payload };
  body.id = contractA.createdId;
  return body;
}

/** The `GET /cached/users/:id` representation and its strong ETag. */
export interface CachedUser {
  body: string;
  etag: string;
}

/** Builds the cached-user representation: `{"id":…, …payload}`; ETag from its bytes. */
export function cachedUser(id: string): CachedUser {
  const body = JSON.stringify({ id, ...contractA.payload });
  return { body, etag: computeEtag(body) };
}

/** `cache-control` of the cached route (200 and 304). */
export const cacheControl = contractA.headers.cacheControl;
