import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { inject } from 'vitest';
// The global setup declares ProvidedContext['fastapiUnavailable'].
import type {} from './_gateway-global-setup.js';
import { fastapiDir, fastapiVenvPython } from '../src/gateway/fastapi-venv.js';
import { hummingbirdBinary, hummingbirdUnavailableReason } from '../src/gateway/hummingbird-build.js';
import { contractB, contractBPath } from '../src/gateway/contract.js';
import { request, type RunningProcess, type TestRequest } from '@benchsuite/testkit';
import { startTestServer } from './_helpers-servers.js';

/** The gateway tests' processes (the test kit's starter, through `startTestServer`), senders and parsers. */

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const srcDir = fileURLToPath(new URL('../src/', import.meta.url));

export type { RunningProcess } from '@benchsuite/testkit';

export const gatewayKinds = ['fastify-gateway', 'fastapi-1w', 'fastapi-2w', 'fastapi-1w-httpx-defaults', 'fastapi-1w-aiohttp', 'hummingbird'] as const;
export type GatewayKind = (typeof gatewayKinds)[number];

/** Why the FastAPI gateway cannot run here (from the global setup, which tried to build its venv), or null. */
export const fastapiAbsent: string | null = inject('fastapiUnavailable') ?? null;

/** Why the Hummingbird binary cannot be used here, or null. */
export const hummingbirdAbsent = hummingbirdUnavailableReason();

const tsx = ['--import', 'tsx'];

export function startStub(env: Record<string, string> = {}): Promise<RunningProcess> {
  return startTestServer('stub-backend', [process.execPath, ...tsx, join(srcDir, 'stub-backend/main.ts')], { env, cwd: repoRoot });
}

/** The FastAPI variants' UPSTREAM_CLIENT (the idiomatic kinds leave it unset, as their targets do). */
const fastapiVariantEnv: Partial<Record<GatewayKind, Record<string, string>>> = {
  'fastapi-1w-httpx-defaults': { UPSTREAM_CLIENT: 'httpx-default-limits' },
  'fastapi-1w-aiohttp': { UPSTREAM_CLIENT: 'aiohttp' },
};

export function startGateway(kind: GatewayKind, backendUrl: string, extraEnv: Record<string, string> = {}): Promise<RunningProcess> {
  const env = {
    BACKEND_URL: backendUrl,
    GATEWAY_API_KEYS: contractB.defaults.apiKeys.join(','),
    MODEL_ID: contractB.defaults.modelId,
    UPSTREAM_POOL_SIZE: '16',
    ...extraEnv,
  };
  switch (kind) {
    case 'fastify-gateway':
      return startTestServer(kind, [process.execPath, ...tsx, join(srcDir, 'gateway/main.ts')], { env, cwd: repoRoot });
    case 'fastapi-1w':
    case 'fastapi-2w':
    case 'fastapi-1w-httpx-defaults':
    case 'fastapi-1w-aiohttp': {
      const fastapi = { WORKERS: kind === 'fastapi-2w' ? '2' : '1', CONTRACT_B_PATH: contractBPath, ...fastapiVariantEnv[kind] };
      return startTestServer(kind, [fastapiVenvPython(), join(fastapiDir, 'run.py')], { env: { ...env, ...fastapi }, cwd: fastapiDir });
    }
    case 'hummingbird':
      return startTestServer(kind, [hummingbirdBinary()], { env, cwd: repoRoot });
  }
}

/** A port nothing listens on (bound once, then closed). */
export async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type HttpRequestSpec = Omit<TestRequest, 'chunked'>;

/** One request on a fresh connection (so multi-worker servers spread the load), its body as text. */
export async function http(base: string, spec: HttpRequestSpec): Promise<HttpResult> {
  const r = await request(base, spec);
  return { ...r, body: r.body.toString('utf8') };
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text → samples (labels sorted; `le` normalised as a number so 1 / 1.0 compare equal). */
export function parseMetrics(text: string): { types: Record<string, string>; samples: Sample[] } {
  const types: Record<string, string> = {};
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      if (name && type) types[name] = type;
      continue;
    }
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const lm of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[lm[1]!] = lm[1] === 'le' && lm[2] !== '+Inf' ? String(Number(lm[2])) : lm[2]!;
    }
    const sorted = Object.fromEntries(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
    samples.push({ name: m[1]!, labels: sorted, value: Number(m[3]) });
  }
  return { types, samples };
}

export const sampleKey = (s: Sample): string => `${s.name}${JSON.stringify(s.labels)}`;

/** Normalise per-request ids (counter-based) so bodies from different runs compare. */
export function normaliseIds(text: string): string {
  return text.replace(/chatcmpl-stub-\d+/g, 'chatcmpl-stub-N');
}

export interface SseEvent {
  event: string;
  data: unknown;
}

export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    if (!block.trim()) continue;
    let event = '';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data += line.slice(6);
    }
    events.push({ event, data: data ? (JSON.parse(data) as unknown) : null });
  }
  return events;
}

export async function stubStats(stubUrl: string): Promise<{ requests: number; completed: number; aborted: number; failed: number; inFlight: number }> {
  const r = await http(stubUrl, { path: '/debug/stats' });
  return JSON.parse(r.body) as { requests: number; completed: number; aborted: number; failed: number; inFlight: number };
}
