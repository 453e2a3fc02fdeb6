// A concurrency sweep and fixed request counts through runSuite, against real servers on real
// sockets. Loads the machine a little: run this file under the shared lock
// (`flock /tmp/bs-load.lock npx vitest run packages/sdk/test/sweep-run.test.ts`). Every run is tiny
// (0.25-s windows or 40-request windows, one block, two rounds); nothing here asserts a duration.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autocannonDriver, BenchsuiteConfigError, DEFAULTS, resolveDriver, resultSchema, runSuite, type Driver, type OkWindow, type SuiteEvent } from '../src/index.js';
import { TreeSampler } from '../src/window-resources.js';
import { tiny, tinyDesign } from './_helpers.js';

const ping = { name: 'ping', request: { path: '/ping' }, expect: { status: 200 } };

describe('a concurrency sweep end to end', () => {
  it('gives every target a curve over the levels with its status mix, a best clean point, a knee field and per-process figures', async () => {
    const r = await runSuite({
      scenarios: [ping],
      targets: [tiny('ref'), tiny('other')],
      design: { ...tinyDesign, reference: 'ref' },
      // What `--connections 1,2,4 --warmup 0.1` passes.
      overrides: { connections: [1, 2, 4], warmup: 0.1 },
      driver: 'autocannon',
      seed: 5,
    });
    expect(resultSchema.safeParse(r).success).toBe(true);
    expect(r.scenarios[0]!.load.connections).toEqual([1, 2, 4]);
    for (const w of r.windows) {
      expect(w.status).toBe('ok');
      if (w.status === 'ok') expect(w.steps.map((s) => s.connections)).toEqual([1, 2, 4]);
    }
    expect(r.summaries.map((s) => s.target).sort()).toEqual(['other', 'ref']);
    for (const s of r.summaries) {
      expect(s.steps.map((x) => x.connections)).toEqual([1, 2, 4]);
      for (const level of s.steps) {
        expect(level.rps.point).toBeGreaterThan(0);
        expect(level.rps.ci95).not.toBeNull();
        expect(level.latency.p99).toBeGreaterThanOrEqual(level.latency.p50);
        expect(level.latency.p50).toBeGreaterThan(0);
        // The status mix: every answer a 200, no error or timeout, so every level is clean.
        expect(level.statusCounts).toEqual({ '200': level.requests });
        expect(level.requests).toBeGreaterThan(0);
        expect([level.errors, level.timeouts, level.unexpected]).toEqual([0, 0, 0]);
        expect(level.clean).toBe(true);
        if (s.target === 'ref') expect(level.relativeRps).toBeNull();
        else expect(level.relativeRps!.point).toBeGreaterThan(0);
      }
      const sweep = s.sweep!;
      expect(sweep.uncleanLevels).toEqual([]);
      expect(sweep.kneeGain).toBe(0.05);
      // The best clean point is the level with the highest median req/s (all are clean here).
      const top = s.steps.reduce((a, b) => (b.rps.point > a.rps.point ? b : a));
      expect(sweep.bestClean).toMatchObject({ connections: top.connections, p50: top.latency.p50, p99: top.latency.p99 });
      expect(sweep.bestClean!.rps.point).toBe(top.rps.point);
      // The knee may or may not fall inside three levels on a shared machine; when it does, it is one of them and the next level gained < 5%.
      if (sweep.knee) {
        expect([1, 2]).toContain(sweep.knee.connections);
        expect(sweep.knee.nextGain).toBeLessThan(0.05);
      } else expect(sweep.knee).toBeNull();
      // One node process did all the work.
      expect(s.perProcess!.processes).toBe(1);
      expect(s.perProcess!.treeProcesses).toBe(1);
      expect(s.perProcess!.coresUsed.point).toBeGreaterThan(0);
      expect(s.perProcess!.rpsPerProcess.point).toBeCloseTo(s.rps.point, -1);
      expect(s.perProcess!.rpsPerCore.point).toBeGreaterThan(0);
    }
  }, 180_000);
});

describe('settles of a stepped window', () => {
  it("settles for the window's own time before its first step and for at most DEFAULTS.laterStepSettleSec before each later one, and records both", async () => {
    // The loader the run uses, with every call's settle written down on the way.
    const calls: Array<{ url: string; connections: number; warmupSec: number; measured: boolean }> = [];
    const recording: Driver = {
      ...autocannonDriver,
      name: 'recording-autocannon',
      run: (o) => {
        calls.push({ url: o.baseUrl, connections: o.connections, warmupSec: o.warmupSec, measured: o.onMeasureStart !== undefined });
        return autocannonDriver.run(o);
      },
    };
    const settle = 2 * DEFAULTS.laterStepSettleSec;
    const r = await runSuite({
      scenarios: [ping],
      targets: [tiny('ref'), tiny('other')],
      design: { ...tinyDesign, reference: 'ref' },
      overrides: { connections: [1, 2, 4], warmup: settle },
      driver: recording,
      seed: 6,
    });
    // The targets are the servers loaded at 4 connections; the loader floor's responder, loaded at
    // the low steps only (1 and 2) after the block, is not one of them.
    const targets = new Set(calls.filter((c) => c.connections > DEFAULTS.lowConnections).map((c) => c.url));
    expect(targets.size).toBe(2);
    expect(calls.filter((c) => !targets.has(c.url))).toHaveLength(2 * DEFAULTS.loaderFloor.windowsPerBlock);
    const measured = calls.filter((c) => c.measured && targets.has(c.url));
    // 2 targets × 2 rounds × 3 steps, each step its own loader call (and 3 more per extra round
    // that replaced a window lost to steal).
    const rounds = r.blocks[0]!.rounds;
    expect(rounds).toBe(2 + r.blocks[0]!.extraRounds);
    expect(measured).toHaveLength(2 * rounds * 3);
    for (const c of measured) expect(c.warmupSec).toBe(c.connections === 1 ? settle : DEFAULTS.laterStepSettleSec);
    // Warm-up windows settle nothing: they are unrecorded load already.
    for (const c of calls.filter((x) => !x.measured && targets.has(x.url))) expect(c.warmupSec).toBe(0);
    expect(r.scenarios[0]!.load).toMatchObject({ warmupSec: settle, stepWarmupSec: DEFAULTS.laterStepSettleSec });
    expect(r.windows.every((w) => w.status === 'ok')).toBe(true);
  }, 120_000);
});

describe('fixed request counts (--requests)', () => {
  let server: Server;
  let url = '';
  let count = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/count-me') count++;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  // No verify request and no warm-up, so every request the server sees belongs to a measured window.
  // Steal leaves no window out (tinyDesign), so these counts follow the driver, not the host.
  const design = { ...tinyDesign, warmup: { minSec: 0, maxSec: 0 } };
  const counted = { name: 'counted', request: { path: '/count-me' }, expect: { status: 200 } };

  it.each([
    ['one connection (a sequential run)', 1, 40],
    ['a stepped load, every step with its own 40', [1, 4], 40],
  ] as const)(
    'sends exactly N requests per window: %s',
    async (_, connections, n) => {
      count = 0;
      const perWindow: number[] = [];
      let seen = 0;
      const onEvent = (e: SuiteEvent) => {
        if (e.type !== 'window') return;
        perWindow.push(count - seen);
        seen = count;
      };
      const r = await runSuite({
        scenarios: [counted],
        targets: [{ kind: 'url', name: 'counter', url }],
        design,
        overrides: { requests: n, connections, warmup: 0 },
        driver: 'autocannon',
        verify: false,
        pinning: false,
        seed: 1,
        onEvent,
      });
      const steps = Array.isArray(connections) ? connections.length : 1;
      const ok = r.windows.filter((w): w is OkWindow => w.status === 'ok');
      expect(ok).toHaveLength(2);
      // The server counted exactly N per step of every window, and nothing else.
      expect(perWindow).toEqual([n * steps, n * steps]);
      expect(count).toBe(2 * n * steps);
      // The window records say so.
      for (const w of ok) {
        expect(w.fixedRequests).toBe(n);
        expect(w.requests).toBe(n * steps);
        for (const s of w.steps) {
          expect(s.requests).toBe(n);
          expect(s.statusCounts).toEqual({ '200': n });
          expect(s.latency.count).toBe(n);
        }
      }
      expect(r.scenarios[0]!.load.requests).toBe(n);
      expect(r.environment.driver.flags).toContain(`amount=${n}`);
    },
    120_000,
  );

  it('a driver that cannot send a fixed count refuses before anything starts; auto picks one that can and says why', async () => {
    count = 0;
    const run = runSuite({ scenarios: [counted], targets: [{ kind: 'url', name: 'counter', url }], design, overrides: { requests: 10, connections: 1 }, driver: 'wrk', pinning: false });
    await expect(run).rejects.toThrowError(BenchsuiteConfigError);
    await expect(run).rejects.toThrowError(/driver: wrk cannot send a fixed number of requests per window \(--requests\).*\(h2load or autocannon can\)/);
    expect(count).toBe(0);
    // Without h2load (the preferred driver for fixed counts, tested in h2load.test.ts), autocannon.
    const was = process.env.BENCHSUITE_H2LOAD;
    process.env.BENCHSUITE_H2LOAD = '/nonexistent/h2load';
    try {
      const auto = await resolveDriver('auto', { fixedRequests: true });
      expect(auto.driver.name).toBe('autocannon');
      expect(auto.reason).toMatch(/^h2load not available .*; wrk cannot send a fixed number of requests per window \(--requests\).*: using autocannon/);
    } finally {
      if (was === undefined) delete process.env.BENCHSUITE_H2LOAD;
      else process.env.BENCHSUITE_H2LOAD = was;
    }
  });

  it('refuses fewer requests than connections, naming the field', async () => {
    await expect(runSuite({ scenarios: [counted], targets: [{ kind: 'url', name: 'counter', url }], overrides: { requests: 3, connections: [1, 4] } })).rejects.toThrowError(
      /overrides\.requests: 3 requests cannot keep 4 connections busy \(scenario counted\); give at least 4/,
    );
    await expect(runSuite({ scenarios: [{ ...counted, load: { connections: 8, requests: 2 } }], targets: [{ kind: 'url', name: 'counter', url }] })).rejects.toThrowError(
      /scenarios\[0\]\.load\.requests: 2 requests cannot keep 8 connections busy/,
    );
  });
});

describe('working processes of a real server tree', () => {
  it('counts the busy processes of the tree as workers, not the idle parent or an idle helper', async () => {
    // A supervisor (idle) with two busy workers (each spins for at most 3 s) and an idle helper.
    const script = [
      "const { spawn } = require('node:child_process');",
      "for (const i of [1, 2]) spawn(process.execPath, ['-e', 'const e = Date.now() + 3000; while (Date.now() < e) {}'], { stdio: 'ignore' });",
      "spawn('sleep', ['20'], { stdio: 'ignore' });",
      'setTimeout(() => {}, 20000);',
    ].join('\n');
    const parent = spawn(process.execPath, ['-e', script], { stdio: 'ignore', detached: true });
    try {
      await sleep(400); // the children are running
      const sampler = new TreeSampler(parent.pid, [], []);
      sampler.windowStart(process.pid);
      await sleep(800);
      const r = sampler.windowEnd();
      sampler.stop();
      expect(r.serverProcesses).toBe(4);
      expect(r.serverWorkers).toBe(2);
      expect(r.serverCpuSeconds).toBeGreaterThan(0);
    } finally {
      process.kill(-parent.pid!, 'SIGKILL');
    }
  }, 30_000);
});
