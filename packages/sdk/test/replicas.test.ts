// Replicas (`design.replicas`: k processes of every target in each block, issue 41): names, the
// pairing of a round's processes, the intervals by simulation (replicas nested in blocks), and the
// run loop on the scripted executor (no server).
import { describe, expect, it } from 'vitest';
import { estimate, resultSchema, WindowIndex, type EstimatorOptions, type ScenarioInput, type WindowRecord } from '../src/index.js';
import { mulberry32, normalDraw } from '../src/random.js';
import { isReplica, processOf, replicaName, windowAsProcess } from '../src/replicas.js';
import { runSuiteWith } from '../src/run/suite.js';
import { fakeDriver, fakeSeam, type FakeModel } from './_fake-executor.js';
import { okWindow } from './_helpers.js';

describe('replica names', () => {
  it('name the second to k-th processes apart from any target name, and read them back', () => {
    expect(replicaName('fastify', 1)).toBe('fastify');
    expect(replicaName('fastify', 3)).toBe('fastify~3');
    expect(processOf('fastify~3')).toEqual({ target: 'fastify', replica: 3 });
    expect(processOf('node-http.twin~2')).toEqual({ target: 'node-http.twin', replica: 2 });
    expect(processOf('fastify')).toEqual({ target: 'fastify', replica: 1 });
    expect(isReplica('fastify~2')).toBe(true);
    expect(isReplica('fastify')).toBe(false);
  });
});

describe('a round of replicas', () => {
  const w = (target: string, rps: number, round = 1): WindowRecord => windowAsProcess(okWindow({ scenario: 's', target, block: 1, round, rps }));

  it('is the geometric mean of the target’s processes ÷ that of the reference’s', () => {
    const index = new WindowIndex([w('a', 100), w('a~2', 400), w('r', 200), w('r~2', 200)]);
    // √(100·400) ÷ 200 = 1.
    expect(index.pairedRound('s', 1, 1, 'a', 'r', (t, r) => t.rps / r.rps)).toBeCloseTo(1, 12);
    expect(index.all('s', 1, 1, 'a').map((x) => x.process ?? 1)).toEqual([1, 2]);
  });

  it('with one process each is the ratio itself, bit for bit', () => {
    const index = new WindowIndex([w('a', 123.456), w('r', 789.123)]);
    expect(index.pairedRound('s', 1, 1, 'a', 'r', (t, r) => t.rps / r.rps)).toBe(123.456 / 789.123);
  });

  it('reads a run’s internal names (`a~2`) as the result’s target and process', () => {
    const raw = okWindow({ scenario: 's', target: 'a~2', block: 1, round: 1, rps: 50 });
    const index = new WindowIndex([okWindow({ scenario: 's', target: 'a', block: 1, round: 1, rps: 200 }), raw, okWindow({ scenario: 's', target: 'r', block: 1, round: 1, rps: 100 })]);
    expect(index.pairedRound('s', 1, 1, 'a', 'r', (t, r) => t.rps / r.rps)).toBeCloseTo(1, 12);
    expect(windowAsProcess(raw)).toMatchObject({ target: 'a', process: 2 });
  });
});

/**
 * One simulated pair with k processes of each side per block: every process its own level (SD
 * `proc`), every window its own noise (SD `within`), a round's figure the geometric mean over processes.
 */
function simulateReplicas(rnd: () => number, blocks: number, rounds: number, k: number, proc: number, within: number): number[][] {
  const normal = () => normalDraw(rnd);
  const windows: WindowRecord[] = [];
  for (let b = 1; b <= blocks; b++) {
    for (const side of ['t', 'r']) {
      for (let p = 1; p <= k; p++) {
        const level = proc * normal();
        const name = p === 1 ? side : `${side}~${p}`;
        for (let r = 1; r <= rounds; r++) windows.push(okWindow({ scenario: 's', target: name, block: b, round: r, rps: 1000 * Math.exp(level + within * normal()) }));
      }
    }
  }
  return new WindowIndex(windows).paired(
    's',
    't',
    'r',
    () => rounds,
    (t, r) => t.rps / r.rps,
  );
}

const est = (seed: number): EstimatorOptions => ({ reference: 'r', precision: 0.02, practicalBand: 0.01, bootstrapResamples: 200, confidence: 0.95, seed });

describe('intervals with replicas nested in blocks, by simulation (process SD 0.06, window SD 0.07, 2 rounds)', () => {
  for (const [blocks, k] of [
    [3, 2],
    [5, 3],
  ] as const) {
    it(`hold the true ratio in at least 95% of 600 simulated runs at ${blocks} blocks × ${k} processes`, { timeout: 120_000 }, () => {
      const rnd = mulberry32(9100 + 10 * blocks + k);
      let hits = 0;
      for (let run = 0; run < 600; run++) {
        const ci = estimate(simulateReplicas(rnd, blocks, 2, k, 0.06, 0.07), est(run), ['replicas', blocks, k], 'sim').ci95;
        if (ci && ci[0] <= 1 && 1 <= ci[1]) hits++;
      }
      expect(hits / 600).toBeGreaterThanOrEqual(0.95);
    });
  }

  it('are narrower with more processes: 4 processes per side at 5 blocks against 1', { timeout: 60_000 }, () => {
    const width = (k: number) => {
      const rnd = mulberry32(77);
      const hs: number[] = [];
      for (let run = 0; run < 200; run++) hs.push(estimate(simulateReplicas(rnd, 5, 2, k, 0.06, 0.03), est(run), ['w', k], 'sim').halfWidth ?? Number.NaN);
      return hs.sort((a, b) => a - b)[100]!;
    };
    // The block level's SD falls by √4 = 2 when the process part dominates.
    expect(width(4) / width(1)).toBeLessThan(0.65);
    expect(width(4) / width(1)).toBeGreaterThan(0.4);
  });
});

const ping = { name: 'ping', request: { path: '/ping' }, expect: { status: 200 }, load: { connections: 10 } } satisfies ScenarioInput;
const other = { ...ping, name: 'other', request: { path: '/other' } };
const processTargets = (...names: string[]) => names.map((name) => ({ kind: 'process' as const, name, command: ['node', `${name}.js`] }));
// A replica is its target's process: the same level, its own process noise.
const level = (t: string) => (processOf(t).target === 'b' ? 8000 : 10_000);

async function fakeRun(model: FakeModel, design: Record<string, unknown> = {}) {
  const seam = fakeSeam(model);
  const r = await runSuiteWith(
    {
      scenarios: [ping, other],
      targets: processTargets('ref', 'b'),
      design: { reference: 'ref', blocks: { min: 6, max: 6 }, rounds: { min: 2, max: 2 }, budgetSec: 3600, ...design },
      driver: fakeDriver,
      seed: 11,
      verify: false,
      pinning: false,
    },
    seam,
  );
  expect(resultSchema.safeParse(r).success).toBe(true);
  return { r, seam };
}

describe('replicas in a run (scripted executor)', () => {
  it('loads k processes of every target, the A/A twin’s too, in every round, and reports them under their target', async () => {
    const { r, seam } = await fakeRun({ rps: level, noise: { between: 0.05, within: 0.02, seed: 3 } }, { replicas: 3 });
    const names = ['ref', 'ref~2', 'ref~3', 'b', 'b~2', 'b~3', 'ref.twin', 'ref.twin~2', 'ref.twin~3'];
    const measures = seam.calls.filter((c) => c.op === 'measure');
    expect(measures.length).toBeGreaterThan(0);
    for (const c of measures) expect([...c.targets].sort()).toEqual([...names].sort());
    expect(r.design.replicas).toBe(3);
    // The result names targets only; a replica's windows and block entries carry its process number.
    expect(r.targets.map((t) => t.name).sort()).toEqual(['b', 'ref', 'ref.twin']);
    expect(r.windows.every((w) => !w.target.includes('~'))).toBe(true);
    expect(new Set(r.windows.filter((w) => w.target === 'b').map((w) => w.process ?? 1))).toEqual(new Set([1, 2, 3]));
    expect(
      r.blocks
        .flatMap((b) => b.targets)
        .filter((t) => t.target === 'b')
        .map((t) => t.process ?? 1),
    ).toContain(3);
    expect(r.summaries.map((s) => `${s.scenario}/${s.target}`).sort()).toEqual(['other/b', 'other/ref', 'ping/b', 'ping/ref']);
    const b = r.summaries.find((s) => s.scenario === 'ping' && s.target === 'b')!;
    expect(b.relativeRps!.point).toBeCloseTo(0.8, 1);
    expect(b.blocks).toBe(6);
    // The control is measured as every pair is: k twins ÷ k reference processes.
    expect(r.control!.scenarios.every((s) => s.blocks === 6)).toBe(true);
  });

  it('pools its processes: the spread between blocks falls as 1 ÷ √k (4 processes against 1, same seeds), the rounds stay as quiet', async () => {
    const model: FakeModel = { rps: level, noise: { between: 0.08, within: 0.01, seed: 21 } };
    const spread = async (replicas: number) => {
      const { r } = await fakeRun(model, { replicas, control: 'none', blocks: { min: 10, max: 10 } });
      const mine = r.summaries.filter((s) => s.target === 'b');
      const mean = (f: (s: (typeof mine)[number]) => number) => mine.reduce((a, s) => a + f(s), 0) / mine.length;
      return { between: mean((s) => s.variance.betweenBlocks!), within: mean((s) => s.variance.withinBlocks!) };
    };
    const one = await spread(1);
    const four = await spread(4);
    // Planted: 0.08 per process, 0.113 for a pair; with 4 per side 0.057. A round's figure from
    // any one process instead of all four would read the processes' spread within blocks.
    expect(one.between).toBeGreaterThan(0.07);
    expect(four.between / one.between).toBeLessThan(0.7);
    expect(four.within).toBeLessThan(0.03);
  });

  it('leaves a run with one process per target as it was: no process numbers, no replica names', async () => {
    const { r, seam } = await fakeRun({ rps: level }, {});
    expect(r.design.replicas).toBe(1);
    expect(r.windows.some((w) => w.process !== undefined)).toBe(false);
    for (const c of seam.calls) expect(c.targets.some((t) => t.includes('~'))).toBe(false);
  });
});
