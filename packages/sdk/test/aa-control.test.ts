// The A/A control (the reference's second process in every block, `result.control`), the
// design-bias check (`result.designBias`) and the runtime flags of Node targets: the statistics by
// hand-computed values and by simulation, the run loop on the scripted executor (no server).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  chiSquareQuantile,
  estimate,
  memoryReducerFlags,
  nodeRuntimeFlags,
  processSdOf,
  resultSchema,
  roundOneUnits,
  tQuantile,
  twinOf,
  withNodeFlags,
  youngGenerationFlags,
  type EstimatorOptions,
  type ScenarioInput,
} from '../src/index.js';
import { mulberry32, normalDraw as normalOf } from '../src/random.js';
import { runSuiteWith } from '../src/run/suite.js';
import { fakeDriver, fakeSeam, type FakeModel } from './_fake-executor.js';

describe('chi-square quantile', () => {
  it('matches the tables (0.025 and 0.975 at 1, 3, 4 and 10 df)', () => {
    expect(chiSquareQuantile(0.975, 1)).toBeCloseTo(5.0239, 3);
    expect(chiSquareQuantile(0.025, 1)).toBeCloseTo(0.000982, 5);
    expect(chiSquareQuantile(0.975, 3)).toBeCloseTo(9.3484, 3);
    expect(chiSquareQuantile(0.025, 3)).toBeCloseTo(0.2158, 3);
    expect(chiSquareQuantile(0.975, 4)).toBeCloseTo(11.1433, 3);
    expect(chiSquareQuantile(0.025, 4)).toBeCloseTo(0.4844, 3);
    expect(chiSquareQuantile(0.5, 10)).toBeCloseTo(9.3418, 3);
  });
});

describe('one process SD from the A/A spread', () => {
  it('is the between-block SD ÷ √2, with blocks − 1 df and a chi-square interval (by hand)', () => {
    // Between 0.1 at 5 blocks: 0.1/√2 = 0.070711; df 4; 0.070711·√(4/11.1433) = 0.042365, ·√(4/0.48442) = 0.20320.
    const sd = processSdOf([{ between: 0.1, blocks: 5 }])!;
    expect(sd.point).toBeCloseTo(0.070711, 5);
    expect(sd.df).toBe(4);
    expect(sd.ci95![0]).toBeCloseTo(0.042365, 4);
    expect(sd.ci95![1]).toBeCloseTo(0.2032, 3);
  });

  it('pools scenarios by their variances, keeps the processes’ df, and gives nothing below two blocks', () => {
    // (0.1² + 0.2²)/2 = 0.025; /2 → 0.0125; √ = 0.1118.
    const sd = processSdOf([
      { between: 0.1, blocks: 4 },
      { between: 0.2, blocks: 4 },
    ])!;
    expect(sd.point).toBeCloseTo(0.1118, 4);
    expect(sd.df).toBe(3);
    expect(processSdOf([{ between: 0.1, blocks: 1 }])).toBeNull();
    expect(processSdOf([{ between: null, blocks: 4 }])).toBeNull();
  });

  it('bounds it from above by the block means’ spread, so a between part read as 0 from few blocks is not said as [0, 0] (by hand)', () => {
    // Between 0 at 5 blocks, block means' SD 0.04: 0.04/√2 = 0.028284; ·√(4/0.48442) = 0.081275.
    const sd = processSdOf([{ between: 0, blocks: 5, meansSd: 0.04 }])!;
    expect(sd.point).toBe(0);
    expect(sd.ci95![0]).toBe(0);
    expect(sd.ci95![1]).toBeCloseTo(0.081275, 4);
    // With a between part the lower end stays its own; the upper is the block means' (never below the point's).
    const both = processSdOf([{ between: 0.03, blocks: 5, meansSd: 0.04 }])!;
    expect(both.ci95![0]).toBeCloseTo((0.03 / Math.SQRT2) * Math.sqrt(4 / chiSquareQuantile(0.975, 4)), 6);
    expect(both.ci95![1]).toBeCloseTo(0.081275, 4);
    // Means unknown for a scenario (older callers): the point's own bounds.
    expect(processSdOf([{ between: 0.1, blocks: 5 }])!.ci95![1]).toBeCloseTo(0.2032, 3);
  });

  it('with processes per scenario, each scenario’s blocks add their own df (its processes are its own)', () => {
    const scenarios = [
      { between: 0.1, blocks: 4 },
      { between: 0.2, blocks: 5 },
    ];
    const perScenario = processSdOf(scenarios, 0.95, 'per-scenario')!;
    const shared = processSdOf(scenarios)!;
    expect(perScenario.point).toBeCloseTo(shared.point, 12);
    expect([shared.df, perScenario.df]).toEqual([4, 7]);
    // More df, a narrower interval around the same point: 0.1118·√(7/16.0128) and ·√(7/1.6899).
    expect(perScenario.ci95![0]).toBeCloseTo(0.1118 * Math.sqrt(7 / 16.0128), 3);
    expect(perScenario.ci95![1]).toBeCloseTo(0.1118 * Math.sqrt(7 / 1.68987), 3);
  });
});

/** One simulated A/A pair: two processes per block, each with its own level (SD `proc`), and independent round noise. */
function simulateAA(rnd: () => number, blocks: number, rounds: number, proc: number, within: number): number[][] {
  const normal = () => normalOf(rnd);
  return Array.from({ length: blocks }, () => {
    const a = proc * normal();
    const b = proc * normal();
    return Array.from({ length: rounds }, () => Math.exp(b - a + within * normal()));
  });
}

const est = (seed: number): EstimatorOptions => ({ reference: 'r', precision: 0.02, practicalBand: 0.01, bootstrapResamples: 200, confidence: 0.95, seed });

describe('A/A intervals by simulation (process SD 0.06 per process, round SD 0.07 within a block, 3 rounds)', () => {
  for (const blocks of [2, 3, 5]) {
    it(`hold 1 in at least 95% of 1000 simulated runs at ${blocks} blocks`, { timeout: 120_000 }, () => {
      const rnd = mulberry32(4100 + blocks);
      let hits = 0;
      for (let run = 0; run < 1000; run++) {
        const ci = estimate(simulateAA(rnd, blocks, 3, 0.06, 0.07), est(run), ['aa', blocks], 'sim').ci95;
        if (ci && ci[0] <= 1 && 1 <= ci[1]) hits++;
      }
      expect(hits / 1000).toBeGreaterThanOrEqual(0.95);
    });
  }
});

const ping = { name: 'ping', request: { path: '/ping' }, expect: { status: 200 }, load: { connections: 10 } } satisfies ScenarioInput;
const other = { ...ping, name: 'other', request: { path: '/other' } };
/** Process targets (the fake executor starts nothing): the reference gets its A/A twin. */
const processTargets = (...names: string[]) => names.map((name) => ({ kind: 'process' as const, name, command: ['node', `${name}.js`] }));

async function fakeRun(model: FakeModel, design: Record<string, unknown> = {}, targets = ['ref', 'b']) {
  const seam = fakeSeam(model);
  const r = await runSuiteWith(
    {
      scenarios: [ping, other],
      targets: processTargets(...targets),
      design: { reference: 'ref', blocks: { min: 5, max: 5 }, rounds: { min: 4, max: 4 }, budgetSec: 3600, ...design },
      driver: fakeDriver,
      seed: 5,
      verify: false,
      pinning: false,
    },
    seam,
  );
  expect(resultSchema.safeParse(r).success).toBe(true);
  return { r, seam };
}

// The twin is a second process of the reference: the same level, its own process noise.
const level = (t: string) => (t === 'b' ? 8000 : 10_000);

describe('the A/A control in a run (scripted executor)', () => {
  it.each([
    ['per-scenario', 8],
    ['shared', 4],
  ] as const)(
    'loads the twin in every block and round beside the reference, and reports it as the control, not as a pair (%s processes: %i df, one per block after the first of every set of processes)',
    async (processes, df) => {
      const { r, seam } = await fakeRun({ rps: level, noise: { between: 0.05, within: 0.03, seed: 7 } }, { processes });
      const twin = twinOf('ref');
      expect(twin).toBe('ref.twin');
      for (const c of seam.calls.filter((x) => x.op === 'measure')) expect(c.targets).toContain(twin);
      expect(r.summaries.map((s) => s.target)).not.toContain(twin);
      expect(r.rankings.flatMap((x) => x.places.flatMap((p) => p.targets))).not.toContain(twin);
      expect(r.design.control).toBe('aa');
      const c = r.control!;
      expect(c).toMatchObject({ reference: 'ref', twin });
      expect(c.scenarios.map((s) => s.scenario)).toEqual(['ping', 'other']);
      for (const s of c.scenarios) {
        expect(s.blocks).toBe(5);
        expect(s.containsOne).toBe(s.ratio!.ci95![0] <= 1 && 1 <= s.ratio!.ci95![1]);
      }
      expect(c.processSd!.df).toBe(df);
      // The planted process SD (0.05 each) lies inside the measured interval.
      expect(c.processSd!.ci95![0]).toBeLessThan(0.05);
      expect(c.processSd!.ci95![1]).toBeGreaterThan(0.05);
    },
  );

  it('measures no twin with control none, or when the reference is a URL', async () => {
    const { r } = await fakeRun({ rps: level }, { control: 'none' });
    expect(r.control).toBeUndefined();
    expect(r.windows.some((w) => w.target === 'ref.twin')).toBe(false);
  });

  it('finds a twin that differs: its interval misses 1 and `holds` is false', async () => {
    const { r } = await fakeRun({ rps: (t) => (t === 'ref.twin' ? 11_000 : level(t)), noise: { between: 0.01, within: 0.01, seed: 2 } });
    expect(r.control!.holds).toBe(false);
    expect(r.control!.scenarios[0]!.ratio!.point).toBeCloseTo(1.1, 1);
  });
});

describe('the design-bias check (scripted executor)', () => {
  it('finds a planted round-1 deficit of one target and a switch cost of another, and flags both pairs', async () => {
    const { r } = await fakeRun(
      {
        rps: (t) => (t === 'c' ? 9000 : level(t)),
        noise: { between: 0.02, within: 0.005, seed: 3 },
        factor: (w) => (w.target === 'b' && w.window === 1 ? 0.94 : 1),
        firstHalf: (t) => (t === 'c' ? 0.9 : 1),
      },
      {},
      ['ref', 'b', 'c'],
    );
    const bias = r.designBias!;
    const b = bias.roundOne.pairs.find((p) => p.target === 'b' && p.scenario === 'ping')!;
    expect(b.roundOne!.point).toBeCloseTo(0.94, 2);
    expect(b.flagged).toBe(true);
    for (const p of bias.roundOne.pairs.filter((x) => x.target !== 'b')) expect(p.flagged, `${p.target}/${p.scenario}`).toBe(false);
    expect(bias.slotHalves.targets.find((t) => t.target === 'ref')!.firstHalf!.point).toBeCloseTo(1, 3);
    const c = bias.slotHalves.pairs.find((p) => p.target === 'c' && p.scenario === 'ping')!;
    // (1 + 0.9)/2 ÷ (1 + 1)/2 = 0.95.
    expect(c.onRatio).toBeCloseTo(0.95, 2);
    expect(c.flagged).toBe(true);
    expect(bias.slotHalves.pairs.find((p) => p.target === 'b' && p.scenario === 'ping')!.flagged).toBe(false);
    // The unsteady round 1 is left out of b's estimates (kept in the raw data), so its ratio is the later rounds' 0.8.
    const r1 = r.windows.filter((w) => w.target === 'b' && w.round === 1);
    expect(r1.length).toBeGreaterThan(0);
    for (const w of r1) expect(w.status === 'ok' && w.excluded).toBe('unsteady');
    expect(r.windows.filter((w) => w.target === 'c' && w.status === 'ok' && w.excluded === 'unsteady')).toEqual([]);
    // 5 blocks × 3 later rounds of 4; b's level 0.8 of the reference's.
    const bRatio = r.summaries.find((s) => s.target === 'b' && s.scenario === 'ping')!.relativeRps!;
    expect(bRatio.n).toBe(15);
    expect(Math.abs(bRatio.point / 0.8 - 1)).toBeLessThan(0.025);
  });
});

describe("the design-bias check's switch cost on a pair's ratio", () => {
  // Every server pays a switch cost (first half 0.92 of the second), c a larger one (0.80), and each
  // window's halves stray by a seeded 8% in log, as a noisy host's do.
  const noisyHalves = (seed: number) => {
    const rnd = mulberry32(seed);
    return (t: string) => (t === 'c' ? 0.8 : 0.92) * Math.exp(0.08 * normalOf(rnd));
  };

  it('gives each pair its factor with a t-interval over blocks, by hand from the halves the windows counted', async () => {
    const { r } = await fakeRun({ rps: level, firstHalf: noisyHalves(21) }, {}, ['ref', 'b', 'c']);
    for (const p of r.designBias!.slotHalves.pairs) {
      // Per block: log((1 + first ÷ second) ÷ 2) of the target's windows' mean log halves, less the reference's.
      const onRate = (target: string, block: number) => {
        const hs = r.windows
          .filter((w) => w.scenario === p.scenario && w.target === target && w.block === block)
          .flatMap((w) => (w.status === 'ok' ? [Math.log(w.steps[0]!.slice!.halves![0] / w.steps[0]!.slice!.halves![1])] : []));
        return Math.log((1 + Math.exp(hs.reduce((a, x) => a + x, 0) / hs.length)) / 2);
      };
      // The reference's side as the ratio takes it: the mean over its two processes, except for the twin's own pair.
      const refOn = (b: number) => (p.target === twinOf('ref') ? onRate('ref', b) : (onRate('ref', b) + onRate(twinOf('ref'), b)) / 2);
      const xs = [1, 2, 3, 4, 5].map((b) => onRate(p.target, b) - refOn(b));
      const m = xs.reduce((a, x) => a + x, 0) / xs.length;
      const sd = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
      const h = tQuantile(0.975, xs.length - 1) * (sd / Math.sqrt(xs.length));
      expect(p.n).toBe(5);
      expect(p.onRatio).toBeCloseTo(Math.exp(m), 6);
      expect(p.ci95![0]).toBeCloseTo(Math.exp(m - h), 6);
      expect(p.ci95![1]).toBeCloseTo(Math.exp(m + h), 6);
    }
  });

  it('flags a pair whose switch cost differs from the reference’s, not one that pays the same (the A/A twin), over 10 seeds', async () => {
    let same = 0;
    let sameFlagged = 0;
    let differs = 0;
    let differsFlagged = 0;
    let ownFlagged = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const { r } = await fakeRun({ rps: level, firstHalf: noisyHalves(100 + seed) }, {}, ['ref', 'b', 'c']);
      const bias = r.designBias!;
      ownFlagged += bias.slotHalves.targets.filter((t) => t.target !== 'c' && t.flagged).length;
      for (const p of bias.slotHalves.pairs) {
        if (p.target === 'c') {
          differs++;
          if (p.flagged) differsFlagged++;
        } else {
          same++;
          if (p.flagged) sameFlagged++;
        }
      }
    }
    // Every server's own halves read under 1, beyond their noise: each target's check says so.
    expect(ownFlagged).toBeGreaterThanOrEqual(55);
    // (1 + 0.8) ÷ (1 + 0.92) = 0.9375 on c's ratio: found in every run.
    expect(differs).toBe(20);
    expect(differsFlagged).toBe(20);
    // The twin and b pay the reference's cost: a 95% interval misses 1 about once in 20 pairs. The
    // rule before took the point alone once either side's own halves were flagged, and flagged
    // 12 of these 40.
    expect(same).toBe(40);
    expect(sameFlagged).toBeLessThanOrEqual(5);
  });
});

describe('the design-bias check over all pairs', () => {
  it.each([
    ['per-scenario', 10],
    ['shared', 5],
  ] as const)('takes a set of processes as its unit, not a pair: pairs that divide by the same reference round 1 are one sample (%s processes: %i units)', async (processes, units) => {
    // Only the reference's round 1 moves, by its own factor in each start of processes: every pair
    // of that block reads the same round-1 effect (−log f), so the pairs are not independent.
    const rnd = mulberry32(11);
    const f = new Map<number, number>();
    const planted = (start: number) => {
      if (!f.has(start)) f.set(start, Math.exp(0.04 * normalOf(rnd)));
      return f.get(start)!;
    };
    const { r } = await fakeRun({ rps: level, factor: (w) => (w.target === 'ref' && w.window === 1 ? planted(w.start) : 1) }, { processes }, ['ref', 'b', 'c', 'd']);
    const o = r.designBias!.roundOne;
    expect(o.overallOver).toBe('blocks');
    expect(o.overall!.n).toBe(units);
    // By hand: per unit, the mean over its four pairs: the A/A twin's reads −log f (its ratio is to
    // the reference alone), b's, c's and d's −log f ÷ 2 (theirs divide by the geometric mean of the
    // reference and the twin, whose round 1 did not move), so −(5/8)·log f; then the mean over the
    // units and its t-interval (units − 1 df); the fake executor counts whole requests, so to 4 places.
    const byUnit = [...f.values()];
    expect(byUnit.length).toBe(units);
    const xs = byUnit.map((x) => (-5 / 8) * Math.log(x));
    const m = xs.reduce((a, x) => a + x, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
    const h = tQuantile(0.975, xs.length - 1) * (sd / Math.sqrt(xs.length));
    expect(o.overall!.point).toBeCloseTo(Math.exp(m), 4);
    expect(o.overall!.ci95![0]).toBeCloseTo(Math.exp(m - h), 4);
    expect(o.overall!.ci95![1]).toBeCloseTo(Math.exp(m + h), 4);
    // The units themselves, as a bench pools them over runs (`roundOneUnits`, with the round-1
    // windows the check left out as unsteady put back, as it read them): the same values.
    const asc = (a: number, b: number) => a - b;
    const read = r.windows.map((w) => (w.status === 'ok' && w.excluded === 'unsteady' ? { ...w, excluded: null } : w));
    const mine = roundOneUnits(read, [...new Set(r.windows.map((w) => w.scenario))], 'ref', processes).sort(asc);
    expect(mine).toHaveLength(units);
    for (const [i, x] of [...xs].sort(asc).entries()) expect(mine[i]).toBeCloseTo(x, 4);
    // Taken over pairs, the four pairs' identical effects would have given an interval of no width.
    expect(o.overall!.ci95![1] / o.overall!.ci95![0]).toBeGreaterThan(1.02);
  });

  it("bench:round-one --by-scenario says whose trend it is: the reference's raw round 1 on the scenario where it moved, the others' not", async () => {
    // The reference's round 1 runs at 0.9 of its level on ping alone; nothing else moves. Per
    // scenario over its 5 blocks: ping's ratios' round 1 ÷ later (5/8)·−log 0.9 up (as above), its
    // reference's raw 0.900 with no spread, the others' 1.000; other's all 1.000.
    const { r } = await fakeRun({ rps: level, factor: (w) => (w.target === 'ref' && w.window === 1 && w.scenario === 'ping' ? 0.9 : 1) }, {}, ['ref', 'b', 'c', 'd']);
    const dir = await mkdtemp(join(tmpdir(), 'round-one-'));
    const file = join(dir, 'results.json');
    await writeFile(file, JSON.stringify(r));
    const script = fileURLToPath(new URL('../bench/round-one.mjs', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [script, '--from', `${file},${file}`, '--by-scenario']);
    await rm(dir, { recursive: true });
    const line = (s: string) => stdout.split('\n').find((l) => l.trim().startsWith(`${s} `)) ?? '';
    const ratios = Math.exp((-5 / 8) * Math.log(0.9)).toFixed(3);
    expect(line('ping')).toMatch(new RegExp(`ratios ${ratios} .* over 10 blocks; reference 0\\.900 .*over 10 blocks; others 1\\.000 `));
    expect(line('other')).toMatch(/ratios 1\.000 .*; reference 1\.000 .*; others 1\.000 /);
  });
});

describe('Node runtime flags', () => {
  const flags = youngGenerationFlags(32);
  it('fix the young generation right after a Node binary, leave other runtimes and a target’s own flag alone', () => {
    expect(flags).toEqual(['--min-semi-space-size=32', '--max-semi-space-size=32']);
    expect(youngGenerationFlags('default')).toEqual([]);
    expect(withNodeFlags(['/usr/bin/node', 'serve.js', 'x'], flags)).toEqual(['/usr/bin/node', ...flags, 'serve.js', 'x']);
    expect(withNodeFlags(['node', '--max-semi-space-size=8', 's.js'], flags)).toEqual(['node', '--min-semi-space-size=32', '--max-semi-space-size=8', 's.js']);
    expect(withNodeFlags(['/opt/bun/bin/bun', 's.js'], flags)).toEqual(['/opt/bun/bin/bun', 's.js']);
    expect(withNodeFlags(['python3', '-m', 'uvicorn'], flags)).toEqual(['python3', '-m', 'uvicorn']);
  });
  it('turn the memory reducer off after the young generation, unless the design keeps it or the target asks for it', () => {
    expect(memoryReducerFlags('off')).toEqual(['--no-memory-reducer']);
    expect(memoryReducerFlags('default')).toEqual([]);
    expect(nodeRuntimeFlags({ youngGenerationMb: 32, memoryReducer: 'off' })).toEqual([...flags, '--no-memory-reducer']);
    expect(nodeRuntimeFlags({ youngGenerationMb: 'default', memoryReducer: 'default' })).toEqual([]);
    // A design from before either existed: the runtime's own.
    expect(nodeRuntimeFlags({})).toEqual([]);
    const both = nodeRuntimeFlags({ youngGenerationMb: 32, memoryReducer: 'off' });
    // The flag and its --no- form are one flag: the target's own wins either way.
    expect(withNodeFlags(['node', '--memory-reducer', 's.js'], both)).toEqual(['node', ...flags, '--memory-reducer', 's.js']);
    expect(withNodeFlags(['node', '--no-memory-reducer', 's.js'], both)).toEqual(['node', ...flags, '--no-memory-reducer', 's.js']);
  });
});
