import { request as httpRequest } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { contract, REFERENCE, serverNames, type RunningServer, type ServerName } from './_helpers-servers.js';

/** One request as the tests send it. */
export interface TestRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the body with `transfer-encoding: chunked` instead of a `content-length`. */
  chunked?: boolean;
}

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

const compared = new Set(contract.comparedHeaders);

/**
 * Sends one request on a fresh connection (no pooling: every case starts clean) and returns
 * what parity compares.
 */
export function send(baseUrl: string, req: TestRequest): Promise<ObservedResponse> {
  const url = new URL(baseUrl);
  const headers: Record<string, string | number> = { ...req.headers };
  if (req.body !== undefined && !req.chunked) headers['content-length'] = Buffer.byteLength(req.body);
  // Node's client frames a written body as chunked only for methods it expects a body on; a GET
  // body would otherwise go out unframed and read as a second, malformed request.
  if (req.body !== undefined && req.chunked) headers['transfer-encoding'] = 'chunked';
  return new Promise((resolve, reject) => {
    const r = httpRequest({ host: url.hostname, port: url.port, method: req.method ?? 'GET', path: req.path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const picked: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (compared.has(k) && v !== undefined) picked[k] = Array.isArray(v) ? v.join(', ') : v;
        let body: string;
        try {
          body = (picked['content-encoding'] === 'gzip' && raw.length > 0 ? gunzipSync(raw) : raw).toString('utf8');
        } catch (e) {
          body = `<gunzip failed: ${(e as Error).message}>`;
        }
        resolve({ status: res.statusCode ?? 0, headers: picked, body });
      });
    });
    r.on('error', reject);
    if (req.body !== undefined && req.chunked) {
      // A few chunks, so that the limit is crossed while the body is still arriving.
      const buf = Buffer.from(req.body);
      const step = 64 * 1024;
      for (let i = 0; i < buf.length; i += step) r.write(buf.subarray(i, i + step));
      r.end();
    } else r.end(req.body);
  });
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
