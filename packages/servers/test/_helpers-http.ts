import { request, type TestRequest } from '@benchsuite/testkit';
import { isDeepStrictEqual } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { compared, REFERENCE, serverNames, type RunningServer, type ServerName } from './_helpers-servers.js';

export type { TestRequest } from '@benchsuite/testkit';

/** What parity compares: status, the contract's compared headers, the decoded body. */
export interface ObservedResponse {
  status: number;
  headers: Record<string, string>;
  /** Body after gunzip when `content-encoding: gzip`, as UTF-8 text. */
  body: string;
}

/** What the contract says a response must be; `headers` is the complete set of compared headers. */
export interface ExpectedResponse {
  status: number;
  headers: Record<string, string>;
  /** Expected body as JSON (compared as text, so key order counts); omit for an empty body. */
  json?: unknown;
  /** Expected body as exact text, when key order is the point. */
  text?: string;
}

/** Sends one request on a fresh connection (`request` of the test kit) and returns what parity compares. */
export async function send(baseUrl: string, req: TestRequest): Promise<ObservedResponse> {
  const res = await request(baseUrl, req);
  const picked = compared(res.headers);
  let body: string;
  try {
    body = (picked['content-encoding'] === 'gzip' && res.body.length > 0 ? gunzipSync(res.body) : res.body).toString('utf8');
  } catch (e) {
    body = `<gunzip failed: ${(e as Error).message}>`;
  }
  return { status: res.status, headers: picked, body };
}

const show = (v: string | undefined): string => (v === undefined ? '(absent)' : JSON.stringify(v));
const clip = (s: string): string => (s.length > 300 ? `${s.slice(0, 300)}… (${s.length} chars)` : s);

/**
 * Readable list of differences between two responses, e.g.
 * `status 400 vs 415; header content-type: "a" vs (absent); body: {...} vs {...}`.
 * Empty string when they are the same.
 */
export function diffResponses(actual: ObservedResponse, expected: ObservedResponse): string {
  const parts: string[] = [];
  if (actual.status !== expected.status) parts.push(`status ${actual.status} vs ${expected.status}`);
  const names = [...new Set([...Object.keys(actual.headers), ...Object.keys(expected.headers)])].sort();
  for (const h of names) if (actual.headers[h] !== expected.headers[h]) parts.push(`header ${h}: ${show(actual.headers[h])} vs ${show(expected.headers[h])}`);
  if (actual.body !== expected.body) parts.push(`body: ${clip(JSON.stringify(actual.body))} vs ${clip(JSON.stringify(expected.body))}`);
  return parts.join('; ');
}

/** The contract expectation as an observed response (JSON serialized compactly, key order kept). */
export function expectedAsObserved(e: ExpectedResponse): ObservedResponse {
  const body = e.text ?? (e.json === undefined ? '' : JSON.stringify(e.json));
  return { status: e.status, headers: e.headers, body };
}

/** Sends `req` to every server in parallel. */
export async function sendToAll(servers: Record<ServerName, RunningServer>, req: TestRequest): Promise<Record<ServerName, ObservedResponse>> {
  const results = await Promise.all(serverNames.map((n) => send(servers[n].url, req)));
  return Object.fromEntries(serverNames.map((n, i) => [n, results[i]])) as Record<ServerName, ObservedResponse>;
}

/**
 * Every difference, one line each: the reference against the contract, then each server
 * against the reference (`express differs from node-http: status 400 vs 415; …`).
 */
export function parityReport(responses: Record<ServerName, ObservedResponse>, expected?: ExpectedResponse): string[] {
  const lines: string[] = [];
  const ref = responses[REFERENCE];
  if (expected) {
    const want = expectedAsObserved(expected);
    // JSON bodies are compared as values when the text differs only in formatting.
    const sameJson = expected.json !== undefined && expected.text === undefined && safeParse(ref.body, (v) => isDeepStrictEqual(v, expected.json) && JSON.stringify(v) === want.body);
    const d = diffResponses(sameJson ? { ...ref, body: want.body } : ref, want);
    if (d) lines.push(`${REFERENCE} differs from the contract: ${d}`);
  }
  for (const name of serverNames) {
    if (name === REFERENCE) continue;
    const d = diffResponses(responses[name], ref);
    if (d) lines.push(`${name} differs from ${REFERENCE}: ${d}`);
  }
  return lines;
}

function safeParse(text: string, check: (v: unknown) => boolean): boolean {
  try {
    return check(JSON.parse(text));
  } catch {
    return false;
  }
}
