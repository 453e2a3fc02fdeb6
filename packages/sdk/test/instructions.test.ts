// --instructions end to end: the tiny server under valgrind's callgrind, on three fresh processes
// (repeatability), and with a known extra loop per request (BUSY_ITERS, once and twice). About two
// minutes of one busy core (valgrind is slow); nothing here asserts a duration.
import { describe, expect, it } from 'vitest';
import { callgrindAvailable } from '../src/instructions/callgrind.js';
import { resultSchema, runSuite, type BenchResult } from '../src/index.js';
import { tiny, tinyDesign } from './_helpers.js';

const why = callgrindAvailable();
const ping = { name: 'ping', request: { path: '/ping' }, expect: { status: 200 }, load: { connections: 4 } };
const iters = 100_000;

describe.skipIf(why !== true)(`instruction counts under callgrind${why === true ? '' : ` (skipped: ${why})`}`, () => {
  const design = { ...tinyDesign, reference: 'base' };
  // The count at one connection is the default's length: shorter counts amortize the collections less.
  const counts = { warmupRequests: 3000, requests: 2000, loadedRequests: 300 };
  let repeat: BenchResult;
  let loops: BenchResult;
  const level = (r: BenchResult, target: string, connections: number) => {
    const x = r.instructions!.find((i) => i.target === target)!;
    expect(x.status, x.reason).toBe('ok');
    return x.levels.find((l) => l.connections === connections)!;
  };

  it("counts a target on three fresh processes, at one connection and at the scenario's", async () => {
    repeat = await runSuite({ scenarios: [ping], targets: [tiny('base')], design, driver: 'autocannon', verify: false, instructions: { processes: 3, ...counts }, seed: 1 });
    expect(resultSchema.safeParse(repeat).success).toBe(true);
    expect(repeat.design.instructions).toEqual({ processes: 3, ...counts });
    const [x] = repeat.instructions!;
    expect(x!.runtime).toBe('node');
    expect(x!.flags).toContain('--predictable-gc-schedule');
    expect(x!.levels.map((l) => l.connections)).toEqual([1, 4]);
    for (const l of x!.levels) expect(l.perProcess).toHaveLength(3);
  }, 600_000);

  // Within 1%, not 0.1%: counted at the settled path (re-settled connections, collections left out)
  // the count is 3–5× smaller than the deoptimised path it was, so the work of timers that fire
  // during it (the count runs for seconds under valgrind) is likely a larger part: 0.29–0.33% here on
  // 2026-11-29, where the old counts agreed within 0.01–0.06% (DEFAULTS.instructions).
  it('repeats across the three processes within 1% at one connection', () => {
    expect(level(repeat, 'base', 1).spread).toBeLessThan(0.01);
  });

  it('sees the known extra loop: twice the iterations, twice the extra instructions', async () => {
    loops = await runSuite({
      scenarios: [ping],
      targets: [tiny('base'), tiny('loop', { BUSY_ITERS: String(iters) }), tiny('loop2', { BUSY_ITERS: String(2 * iters) })],
      design,
      driver: 'autocannon',
      verify: false,
      instructions: { processes: 1, ...counts },
      seed: 2,
    });
    const base = level(loops, 'base', 1).perRequest;
    const once = level(loops, 'loop', 1).perRequest - base;
    const twice = level(loops, 'loop2', 1).perRequest - base;
    // A few instructions per iteration of the LCG (multiply, add, compare, branch).
    expect(once / iters).toBeGreaterThan(2);
    expect(once / iters).toBeLessThan(20);
    expect(twice / once).toBeGreaterThan(1.98);
    expect(twice / once).toBeLessThan(2.02);
  }, 600_000);
});
