// The autocannon driver keeps one loader process for the run: its windows reuse it (warm JIT),
// a loader that dies is replaced, and close() ends it. A few 0.3-s windows against a tiny server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autocannonDriver } from '../src/drivers/autocannon.js';
import type { DriverRunOptions } from '../src/driver.js';

let server: Server;
let baseUrl = '';
beforeAll(async () => {
  server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await autocannonDriver.close?.();
  server.close();
});

/** One short window; the loader's pid as the driver reported it at the window's start. */
async function windowPid(extra: Partial<DriverRunOptions> = {}): Promise<{ pid: number; requests: number }> {
  let pid = 0;
  const r = await autocannonDriver.run({
    baseUrl,
    requests: [{ method: 'GET', path: '/', headers: {} }],
    connections: 4,
    warmupSec: 0,
    durationSec: 0.3,
    timeoutSec: 5,
    expectStatus: [200],
    pin: [],
    onMeasureStart: (p) => (pid = p),
    ...extra,
  });
  return { pid, requests: r.requests };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('autocannon loader kept for the run', () => {
  it('serves consecutive windows from one process, replaces one that died, and close() ends it', async () => {
    const a = await windowPid();
    const b = await windowPid();
    expect(a.requests).toBeGreaterThan(0);
    expect(b.requests).toBeGreaterThan(0);
    expect(b.pid).toBe(a.pid);
    expect(alive(a.pid)).toBe(true);

    // Killed while idle: the next window gets a new loader and still measures.
    process.kill(a.pid, 'SIGKILL');
    for (let i = 0; i < 50 && alive(a.pid); i++) await new Promise((r) => setTimeout(r, 20));
    const c = await windowPid();
    expect(c.pid).not.toBe(a.pid);
    expect(c.requests).toBeGreaterThan(0);

    await autocannonDriver.close?.();
    for (let i = 0; i < 100 && alive(c.pid); i++) await new Promise((r) => setTimeout(r, 20));
    expect(alive(c.pid)).toBe(false);
  }, 30_000);

  it('an aborted window kills its loader and rejects; the next window starts another', async () => {
    const ac = new AbortController();
    let pid = 0;
    const run = autocannonDriver.run({
      baseUrl,
      requests: [{ method: 'GET', path: '/', headers: {} }],
      connections: 4,
      warmupSec: 0,
      durationSec: 5,
      timeoutSec: 5,
      expectStatus: [200],
      pin: [],
      onMeasureStart: (p) => {
        pid = p;
        ac.abort();
      },
      signal: ac.signal,
    });
    await expect(run).rejects.toThrow(/loader ended without a result/);
    const next = await windowPid();
    expect(next.pid).not.toBe(pid);
    expect(next.requests).toBeGreaterThan(0);
  }, 30_000);
});
