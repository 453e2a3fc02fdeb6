// startProcess (process.ts): real child processes, each started and stopped here; no load.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratch } from '@benchsuite/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { ProcessStartError, startProcess, type RunningProcess } from '../src/index.js';
import { tinyServer } from './_helpers.js';

const dir = scratch('benchsuite-process-test');
const script = (name: string, body: string): string => {
  const file = join(dir, name);
  writeFileSync(file, body);
  return file;
};
const node = (file: string): string[] => [process.execPath, file];
const started: RunningProcess[] = [];
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop(500)));
});

/** The error startProcess threw, or a failure when it started. */
async function startError(options: Parameters<typeof startProcess>[0]): Promise<ProcessStartError> {
  try {
    started.push(await startProcess(options));
  } catch (e) {
    expect(e).toBeInstanceOf(ProcessStartError);
    return e as ProcessStartError;
  }
  throw new Error('expected startProcess to fail');
}

// A child that ignores SIGTERM, and says so once it does.
const IGNORES_TERM = "process.on('SIGTERM', () => {}); console.log('ignoring TERM'); setInterval(() => {}, 1000)";

/** Running: a zombie counts as dead (an orphan's new parent, PID 1 here, may reap it late). */
const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

describe('startProcess', () => {
  it('is ready on the "listening on" line, answers at its URL, and stops with SIGTERM', async () => {
    const p = await startProcess({ command: node(tinyServer), unsetEnv: ['NODE_EXTRA_CA_CERTS'] });
    started.push(p);
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(p.readyMs).toBeGreaterThan(0);
    expect((await fetch(`${p.url}/ping`)).status).toBe(200);
    const info = await p.stop();
    expect(info.signal === 'SIGTERM' || info.code === 0).toBe(true);
    expect(p.exitInfo()).toEqual(info);
    expect(alive(p.pid)).toBe(false);
  });

  it('is ready on a 200 from a health path, on the port it was given', async () => {
    const server = script(
      'health.mjs',
      `import { createServer } from 'node:http';
setTimeout(() => createServer((q, s) => { s.statusCode = q.url === '/healthz' ? 200 : 404; s.end(); }).listen(Number(process.env.PORT), '127.0.0.1'), 150);
`,
    );
    const p = await startProcess({ command: node(server), ready: { type: 'healthz', path: '/healthz' }, healthPollMs: 5 });
    started.push(p);
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(p.readyMs).toBeGreaterThanOrEqual(140);
    await p.stop();
  });

  it('passes env, removes unset variables, and runs in cwd', async () => {
    const server = script(
      'env.mjs',
      `import { createServer } from 'node:http';
const s = createServer((q, r) => r.end(JSON.stringify({ a: process.env.BENCH_A ?? null, b: process.env.BENCH_B ?? null, cwd: process.cwd() })));
s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));
`,
    );
    process.env.BENCH_B = 'from the runner';
    try {
      const p = await startProcess({ command: node(server), cwd: dir, env: { BENCH_A: 'given' }, unsetEnv: ['BENCH_B'] });
      started.push(p);
      expect(await (await fetch(p.url)).json()).toEqual({ a: 'given', b: null, cwd: dir });
      await p.stop();
    } finally {
      delete process.env.BENCH_B;
    }
  });

  it('names a command that does not exist', async () => {
    const e = await startError({ command: ['/nonexistent/benchsuite-no-such-server'] });
    expect(e.phase).toBe('start');
    expect(e.message).toMatch(/could not start \/nonexistent\/benchsuite-no-such-server: .*ENOENT/);
  });

  it('says how a process that exits before it is ready ended, with its output', async () => {
    const e = await startError({ command: node(script('exit3.mjs', `console.error('config missing: PORT_FILE'); process.exit(3);\n`)) });
    expect(e.phase).toBe('start');
    expect(e.message).toBe('exited before it was ready (exit code 3)');
    expect(e.exit).toEqual({ code: 3, signal: null });
    expect(e.tail).toContain('config missing: PORT_FILE');
  });

  it('times out a process that never says it listens, and stops it', async () => {
    const e = await startError({ command: node(script('silent.mjs', `console.log('starting'); setInterval(() => {}, 1000);\n`)), readyTimeoutMs: 300 });
    expect(e.phase).toBe('ready');
    expect(e.message).toBe('not ready after 300 ms (no "listening on" line on stdout)');
    expect(e.tail).toContain('starting');
  });

  it('stops starting when its signal aborts', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const t = performance.now();
    const e = await startError({ command: node(script('slow.mjs', `setInterval(() => {}, 1000);\n`)), signal: ac.signal, readyTimeoutMs: 10_000 });
    expect(e.message).toBe('interrupted while starting');
    expect(performance.now() - t).toBeLessThan(3000);
  });

  it('kills a process that ignores SIGTERM after the grace period, and the rest of its group', async () => {
    const server = script(
      'stubborn.mjs',
      `import { spawn } from 'node:child_process';
const IGNORES_TERM = ${JSON.stringify(IGNORES_TERM)};
import { createServer } from 'node:http';
process.on('SIGTERM', () => {});
const child = spawn(process.execPath, ['-e', IGNORES_TERM], { stdio: ['ignore', 'pipe', 'ignore'] });
const s = createServer((q, r) => r.end(String(child.pid)));
child.stdout.once('data', () => s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port)));
`,
    );
    const p = await startProcess({ command: node(server) });
    started.push(p);
    const grandchild = Number(await (await fetch(p.url)).text());
    expect(alive(grandchild)).toBe(true);
    const t = performance.now();
    const info = await p.stop(300);
    expect(performance.now() - t).toBeGreaterThanOrEqual(290);
    expect(info.signal).toBe('SIGKILL');
    await new Promise((r) => setTimeout(r, 100));
    expect(alive(p.pid)).toBe(false);
    expect(alive(grandchild)).toBe(false);
  });

  it('kills what is left of the group when the server itself exits on SIGTERM (a worker that ignored it)', async () => {
    const server = script(
      'leaves-a-worker.mjs',
      `import { spawn } from 'node:child_process';
const IGNORES_TERM = ${JSON.stringify(IGNORES_TERM)};
import { createServer } from 'node:http';
const worker = spawn(process.execPath, ['-e', IGNORES_TERM], { stdio: ['ignore', 'pipe', 'ignore'] });
const s = createServer((q, r) => r.end(String(worker.pid)));
process.on('SIGTERM', () => process.exit(0));
worker.stdout.once('data', () => s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port)));
`,
    );
    const p = await startProcess({ command: node(server) });
    started.push(p);
    const worker = Number(await (await fetch(p.url)).text());
    const info = await p.stop(5000);
    expect(info).toEqual({ code: 0, signal: null });
    await new Promise((r) => setTimeout(r, 100));
    expect(alive(worker)).toBe(false);
  });
});
