import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeTargetNames, type NodeTargetName } from '../src/adapters/manifests.js';
import { DEFAULTS } from '@benchsuite/sdk';
import { startListening, type RunningProcess, type StartOptions } from '@benchsuite/testkit';

/** The built entry point; parity tests talk to real processes, never to `src`. */
export const servePath = fileURLToPath(new URL('../dist/serve.js', import.meta.url));

/** Contract A as the servers read it (the test reads the file itself, not the TypeScript loader). */
export const contract = JSON.parse(readFileSync(new URL('../contract/contract-a.json', import.meta.url), 'utf8')) as {
  token: string;
  payload: Record<string, string>;
  createdId: string;
  contentType: string;
  comparedHeaders: string[];
  headers: Record<string, string>;
  limits: { bodyBytes: number; rateLimit: { max: number; windowMs: number } };
  scenarios: {
    name: string;
    request: { method: string; path: string; headers?: Record<string, string>; body?: string };
    expect: { status: number | number[]; json?: unknown; headers?: Record<string, string> };
  }[];
};

/** node-http first: it is the reference the others are compared with (the manifests' order). */
export const serverNames = nodeTargetNames;
export type ServerName = NodeTargetName;
export const REFERENCE: ServerName = 'node-http';

/** Headers parity compares: CONTRACT.md's common rules, whose list contract A's file states. */
export const comparedHeaders: readonly string[] = contract.comparedHeaders;

/** The headers of an answer that parity compares. */
export function compared(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of comparedHeaders) if (headers[h] !== undefined) out[h] = headers[h]!;
  return out;
}

/** The kit's starter, with the variables a run removes from a server's environment (`DEFAULTS.unsetEnv`). */
export function startTestServer(name: string, command: readonly string[], opts: Omit<StartOptions, 'unsetEnv'> = {}): Promise<RunningProcess> {
  return startListening(name, command, { ...opts, unsetEnv: DEFAULTS.unsetEnv });
}

/** A contract A server: `node dist/serve.js <name>`, started by the package's one starter. */
export type RunningServer = RunningProcess & { name: ServerName };

/**
 * Starts `node dist/serve.js <name>` on PORT=0 and waits for its `listening on` line.
 * One retry after 500 ms if the process dies before listening: other packages' builds may be
 * rewriting `dist/` at that very moment (a real crash fails the retry too).
 */
export async function startServer(name: ServerName, env: Record<string, string> = {}): Promise<RunningServer> {
  const start = () => startTestServer(name, [process.execPath, servePath, name], { env, timeoutMs: 15_000 }) as Promise<RunningServer>;
  try {
    return await start();
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes('before listening')) throw error;
    await new Promise((r) => setTimeout(r, 500));
    return start();
  }
}

/** Starts all the servers with the same environment, in parallel; if one fails, the others are stopped. */
export async function startServers(env: Record<string, string> = {}): Promise<Record<ServerName, RunningServer>> {
  const settled = await Promise.allSettled(serverNames.map((n) => startServer(n, env)));
  const started = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await stopServers(Object.fromEntries(started.map((s) => [s.name, s])));
    throw failed.reason;
  }
  return Object.fromEntries(started.map((s) => [s.name, s])) as Record<ServerName, RunningServer>;
}

/** Kills the given servers (by their own child handles) and waits for them to exit. */
export async function stopServers(servers: Partial<Record<ServerName, RunningServer>> | undefined): Promise<void> {
  if (!servers) return;
  await Promise.all(
    Object.values(servers).map(async (s) => {
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
      await s.exited;
    }),
  );
}
