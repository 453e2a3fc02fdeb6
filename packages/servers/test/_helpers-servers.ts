import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeTargetNames, type NodeTargetName } from '../src/adapters/manifests.js';

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

/** A server child process and the URL it printed. */
export interface RunningServer {
  name: ServerName;
  url: string;
  child: ChildProcess;
  /** Everything it wrote to stdout so far (must be the one `listening on` line). */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
}

const LISTENING = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m;

/**
 * Starts `node dist/serve.js <name>` on PORT=0 and waits for its `listening on` line.
 * One retry after 500 ms if the process dies before listening: other packages' builds may be
 * rewriting `dist/` at that very moment (a real crash fails the retry too).
 */
export async function startServer(name: ServerName, env: Record<string, string> = {}): Promise<RunningServer> {
  try {
    return await spawnServer(name, env);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes('before listening')) throw error;
    await new Promise((r) => setTimeout(r, 500));
    return spawnServer(name, env);
  }
}

function spawnServer(name: ServerName, env: Record<string, string>): Promise<RunningServer> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: '0', ...env };
  // As the SDK does: these slow every Node start and are not part of what is measured.
  delete childEnv.NODE_EXTRA_CA_CERTS;
  delete childEnv.NODE_OPTIONS;
  const child = spawn(process.execPath, [servePath, name], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  // Always drained: a child blocks once a pipe nobody reads fills up.
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not print "listening on" within 15 s; stderr: ${err}`));
    }, 15_000);
    const onData = (): void => {
      const m = LISTENING.exec(out);
      if (!m?.[1]) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      resolve({ name, url: m[1], child, stdout: () => out, stderr: () => err, exited });
    };
    child.stdout.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening; stderr: ${err}`));
    });
  });
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
