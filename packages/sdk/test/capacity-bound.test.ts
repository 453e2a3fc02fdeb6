// The capacity search (`--slo`) against real servers and a real loader process on real sockets
// (`_open-loop-driver.ts`): a loader slowed on purpose gives a capacity marked loader-bound, never a
// server capacity; a server that stalls once fails one probe, which a second probe at the same rate
// overrules; every probe keeps its window with its resources, in the result and in the journal,
// and `--resume` replays finished blocks instead of probing again.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULTS, runSuite, type Driver, type DriverRunOptions, type SuiteEvent } from '../src/index.js';
import { replayJournal } from '../src/run/journal.js';
import { scratch } from '@benchsuite/testkit';
import { nodeOpenLoopDriver } from './_open-loop-driver.js';
import { tiny, tinyDesign } from './_helpers.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const hello = { name: 'hello', request: { path: '/' }, expect: { status: 200 }, load: { connections: 8 } };

describe('capacity search', () => {
  it('a loader slowed on purpose (it cannot send the rates asked) gives a capacity marked loader-bound, never a server capacity; resume replays it', { timeout: 180_000 }, async () => {
    const outDir = scratch('bs-capacity-loader');
    dirs.push(outDir);
    // 600 µs of CPU before every send: this loader cannot send much more than 1,500 req/s, where
    // the tiny server answers tens of thousands. Under a tight p99 its own delays fail a probe
    // before its thread is full (0.66–0.80 of it crossed 50 ms with the server at 7–15% of its
    // core): those failures are the loader's by its lateness (`loaderLate`: the SLO is met from the
    // actual send), whatever its CPU reads, so the search still ends loader-bound.
    const driver = nodeOpenLoopDriver({ burnUs: 600, name: 'slow-loader' });
    const options = {
      scenarios: [hello],
      targets: [tiny('fast')],
      design: { ...tinyDesign, capacityProbeSec: 0.5, warmup: { minSec: 0.4, maxSec: 0.6 } },
      driver,
      slo: 'p99<50ms,errors<1%',
      verify: false,
      outDir,
    };
    const seen: SuiteEvent[] = [];
    const result = await runSuite({ ...options, onEvent: (e) => seen.push(e) });
    // A capacity run is not fitted to the budget: no budget warning, no forecast of a pair's interval.
    expect(seen.filter((e) => e.type === 'budget' || e.type === 'forecast')).toEqual([]);
    const c = result.capacity![0]!;
    const probes = c.blocks.flatMap((b) => b.probes);
    const summary = JSON.stringify(probes.map((p) => [p.rate, Math.round(p.achievedRps), p.meets, p.loaderBound, p.window?.status === 'ok' && +p.window.resources.loaderBusiestCore.toFixed(2)]));
    expect(c.bound, summary).toBe('loader');
    expect(c.driver).toBe('slow-loader');
    expect(c.loaderBoundAt, summary).toBeGreaterThan(0);
    expect(c.ci95).toBeNull();
    expect(c.ci95Missing).toBe('lower-bound');
    expect(c.blocks).toHaveLength(3);
    // Every probe keeps its window; the loader-bound ones saw a server with room and either a busy
    // loader or a failure its late sends alone made (met when timed from the actual send).
    for (const p of probes) expect(p.window?.status, summary).toBe('ok');
    const bound = probes.filter((p) => p.loaderBound);
    expect(bound.length, summary).toBeGreaterThan(0);
    for (const p of bound) {
      if (p.window?.status !== 'ok') continue;
      expect(p.window.resources.serverCoreShare).toBeLessThan(0.97);
      // Busy is the loader's asking for its core: the CPU it used plus the time it waited for one.
      const r = p.window.resources;
      if (p.loaderEvidence === 'busy') expect(r.loaderThreadBusy + (r.loaderThreadWait ?? 0), summary).toBeGreaterThan(DEFAULTS.loaderBound.loaderBusy);
      else {
        expect(p.loaderEvidence, summary).toBe('late');
        expect(p.window.latency.p99, summary).toBeLessThan(50_000);
      }
    }
    // The journal holds every finished block with its probes' windows…
    const journalled = replayJournal(outDir).capacityBlocks;
    expect(journalled.map((x) => x.block.block)).toEqual([1, 2, 3]);
    expect(journalled.flatMap((x) => x.block.probes).length).toBe(probes.length);
    // …and a resumed run replays them: no probe runs again, and the figure is the same.
    const events: SuiteEvent[] = [];
    const again = await runSuite({ ...options, resume: true, onEvent: (e) => events.push(e) });
    expect(events.filter((e) => e.type === 'capacity' && e.probe)).toHaveLength(0);
    expect(again.capacity![0]).toMatchObject({ capacity: c.capacity, bound: 'loader', loaderBoundAt: c.loaderBoundAt });
  });

  it('a server that stalls once fails one probe, which a second probe at the same rate overrules: the stall does not bound the search', { timeout: 180_000 }, async () => {
    const base = nodeOpenLoopDriver({ burnUs: 0 });
    let openWindows = 0;
    let stalledRate: number | undefined;
    // The server stalls 400 ms inside the first open-loop probe, and never again.
    const driver: Driver = {
      ...base,
      name: 'node-open-loop',
      run(o: DriverRunOptions) {
        if (o.openLoop && o.rate && openWindows++ === 0) {
          stalledRate = o.rate;
          setTimeout(() => void fetch(`${o.baseUrl}/stall?ms=400`).catch(() => undefined), 150);
        }
        return base.run(o);
      },
    };
    const result = await runSuite({
      scenarios: [hello],
      // A few ms of CPU per request: a capacity of a few hundred req/s, far below what the loader
      // sends with its core mostly idle (at 2,000 req/s it was the loader that fell behind here).
      targets: [tiny('busy', { BUSY_ITERS: '1500000', STALL_ON_DEMAND: '1' })],
      design: { ...tinyDesign, capacityProbeSec: 1, warmup: { minSec: 0.6, maxSec: 1 } },
      driver,
      slo: 'p99<100ms,errors<1%',
      verify: false,
    });
    const c = result.capacity![0]!;
    const first = c.blocks[0]!.probes;
    const summary = JSON.stringify(first.map((p) => [p.rate, Math.round(p.achievedRps), Math.round(p.p99 / 1000), p.meets, p.confirmation ?? false]));
    expect(stalledRate).toBeDefined();
    expect(first[0], summary).toMatchObject({ rate: stalledRate, meets: false });
    expect(first[1], summary).toMatchObject({ rate: stalledRate, meets: true, confirmation: true });
    expect(first[2]!.rate, summary).toBeGreaterThan(stalledRate!);
    expect(c.blocks[0]!.capacity!, summary).toBeGreaterThan(stalledRate!);
    const all = JSON.stringify(
      c.blocks.map((b) =>
        b.probes.map((p) => [
          p.rate,
          Math.round(p.achievedRps),
          Math.round(p.p99 / 1000),
          p.meets,
          p.loaderBound,
          p.window?.status === 'ok' && [
            +p.window.resources.loaderBusiestCore.toFixed(2),
            +p.window.resources.loaderThreadBusy.toFixed(2),
            +p.window.resources.serverCoreShare.toFixed(2),
            p.window.openLoop?.late,
            p.window.openLoop?.dropped,
          ],
        ]),
      ),
    );
    expect(c.bound, all).toBe('server');
    expect(c.ci95, all).not.toBeNull();
  });
});
