// The run loop (plan → replay → schedule → assemble: run/suite.ts, run/scheduler.ts, run/block.ts,
// run/journal.ts) on a scripted executor and clock (./_fake-executor.ts): no server, no socket, no
// lock, each run in well under a second. The real executor's processes and drivers are tested
// against real servers elsewhere (suite, resume, shared processes).
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scratch } from '@benchsuite/testkit';
import { ABSOLUTE_METHOD, estimate } from '../src/analysis/summarize.js';
import { createHistogram, encodeHistogram, resultSchema, type BenchResult, type DesignOptions, type ScenarioInput, type SuiteEvent, type WindowRecord } from '../src/index.js';
import { replayJournal } from '../src/run/journal.js';
import { emptyState, reduce, type JournalEvent } from '../src/run/state.js';
import { planSuiteRun } from '../src/run/planning.js';
import { runSuiteWith } from '../src/run/suite.js';
import { fakeDriver, fakeSeam, fakeSlicingDriver, fakeTargets, type FakeModel } from './_fake-executor.js';
import { likelyRange } from '../src/analysis/forecast.js';
import type { RunForecast } from '../src/analysis/budget.js';
import { DEFAULTS } from '../src/defaults.js';

const ping = { name: 'ping', request: { path: '/ping' }, expect: { status: 200 }, load: { connections: 10 } } satisfies ScenarioInput;
const other = { ...ping, name: 'other', request: { path: '/other' } };
const ramp = { ...ping, name: 'ramp', request: { path: '/ramp' }, load: { connections: [10, 50] } };
/** The reference at 10k req/s, `b` at 8k: a ratio of 0.8, its interval as wide as the noise makes it. */
const rps = (t: string) => (t === 'ref' ? 10_000 : 8000);
const quiet: FakeModel = { rps, noise: { between: 0.005, within: 0.01, seed: 1 } };
const noisy: FakeModel = { rps, noise: { between: 0.3, within: 0.3, seed: 1 } };

interface FakeRun {
  scenarios?: ScenarioInput[];
  design: DesignOptions;
  model: FakeModel;
  outDir?: string;
  resume?: boolean;
  signal?: AbortSignal;
  onEvent?: (e: SuiteEvent) => void;
  /** The fake driver by default (it cannot slice: rounds one window after another). */
  driver?: typeof fakeDriver;
  targets?: string[];
}

async function fakeRun(o: FakeRun): Promise<{ r: BenchResult; events: SuiteEvent[]; seam: ReturnType<typeof fakeSeam> }> {
  const seam = fakeSeam(o.model);
  const events: SuiteEvent[] = [];
  const r = await runSuiteWith(
    {
      scenarios: o.scenarios ?? [ping],
      targets: fakeTargets(...(o.targets ?? ['ref', 'b'])),
      design: { reference: 'ref', ...o.design },
      driver: o.driver ?? fakeDriver,
      seed: 3,
      verify: false,
      pinning: false,
      ...(o.outDir ? { outDir: o.outDir } : {}),
      ...(o.resume ? { resume: true } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      onEvent: (e) => {
        events.push(e);
        o.onEvent?.(e);
      },
    },
    seam,
  );
  expect(resultSchema.safeParse(r).success).toBe(true);
  return { r, events, seam };
}

const key = (w: WindowRecord) => `${w.scenario}/${w.block}/${w.round}/${w.target}`;
const decisions = (events: SuiteEvent[], scenario: string) => events.flatMap((e) => (e.type === 'precision' && e.scenario === scenario ? [e.decision] : []));

/**
 * A result holds each window once, in index order, and each complete block's rounds measure each of
 * its targets once: every round for a target that stayed, up to its failed window for one that left.
 */
function expectConsistent(r: BenchResult): void {
  expect(new Set(r.windows.map(key)).size).toBe(r.windows.length);
  expect(r.windows.map((w) => w.index).sort((a, b) => a - b)).toEqual(r.windows.map((_, i) => i));
  // Every window's block has one record, a block a kill cut short included.
  for (const w of r.windows)
    expect(
      r.blocks.filter((b) => b.scenario === w.scenario && b.block === w.block),
      key(w),
    ).toHaveLength(1);
  for (const b of r.blocks.filter((x) => x.complete && x.plannedRounds > 0)) {
    expect(b.rounds).toBe(b.plannedRounds + b.extraRounds);
    for (const t of b.targets) {
      const mine = r.windows.filter((w) => w.scenario === b.scenario && w.block === b.block && w.target === t.target);
      const failedAt = mine.find((w) => w.status === 'failed')?.round;
      expect(mine.map((w) => w.round)).toEqual(Array.from({ length: t.status === 'ok' ? b.rounds : (failedAt ?? 0) }, (_, i) => i + 1));
    }
  }
}

describe.each(['shared', 'per-scenario'] as const)('the stopping rule, with %s processes', (processes) => {
  it('stops on precision once every headline interval is within the target, not before the minimum of blocks', async () => {
    const { r, events } = await fakeRun({ scenarios: [ping, other], design: { processes, precision: 0.02, blocks: { min: 2, max: 8 }, budgetSec: 3600 }, model: quiet });
    expectConsistent(r);
    for (const s of r.stops) {
      expect(s.reason).toBe('precision');
      expect(s.blocks).toBeGreaterThanOrEqual(2);
      expect(s.worstHalfWidth).toBeLessThanOrEqual(0.02);
      // Never before the minimum of blocks, then on the first block that reaches the target.
      expect(decisions(events, s.scenario)).toEqual([...Array.from({ length: s.blocks - 1 }, () => 'continue'), 'precision']);
    }
    const b = r.summaries.find((x) => x.target === 'b' && x.scenario === 'ping')!;
    expect(b.relativeRps!.point).toBeCloseTo(0.8, 1);
  });

  it('stops at the maximum of blocks when the noise keeps the interval wide', async () => {
    const { r, events } = await fakeRun({ scenarios: [ping, other], design: { processes, precision: 0.02, blocks: { min: 2, max: 4 }, rounds: { min: 3, max: 3 }, budgetSec: 3600 }, model: noisy });
    expectConsistent(r);
    for (const s of r.stops) {
      expect(s).toMatchObject({ reason: 'max-blocks', blocks: 4, rounds: 12 });
      expect(s.worstHalfWidth).toBeGreaterThan(0.02);
      expect(decisions(events, s.scenario)).toEqual(['continue', 'continue', 'continue', 'max-blocks']);
    }
  });

  it('stops on the budget: no block starts that the time left cannot hold, and the run ends within it', async () => {
    const budgetSec = 120;
    const { r, seam } = await fakeRun({ scenarios: [ping, other], design: { processes, precision: 0.001, blocks: { min: 2, max: 12 }, budgetSec }, model: noisy });
    expectConsistent(r);
    for (const s of r.stops) expect(s.reason).toBe('budget');
    expect(r.blocks.every((b) => b.complete)).toBe(true);
    // Every scenario reached its minimum, and the run kept its budget on the scripted clock.
    for (const s of r.stops) expect(s.blocks).toBeGreaterThanOrEqual(2);
    expect(seam.clock.now()).toBeLessThanOrEqual(budgetSec);
    expect(r.runner.wallSec).toBeCloseTo(seam.clock.now(), 6);
  });

  it('ends within every budget from 60 s to 120 s, every 3 s: a block whose first part warms its processes from cold is priced with that warm-up (shared processes overran 72 s by 2.9 s without)', {
    timeout: 60_000,
  }, async () => {
    for (let budgetSec = 60; budgetSec <= 120; budgetSec += 3) {
      const { r, seam } = await fakeRun({ scenarios: [ping, other, ramp], design: { processes, precision: 0.001, blocks: { min: 2, max: 12 }, rounds: { min: 2, max: 20 }, budgetSec }, model: quiet });
      expectConsistent(r);
      expect(seam.clock.now(), `budget ${budgetSec} s`).toBeLessThanOrEqual(budgetSec);
    }
  });
});

describe('processes per scenario: blocks before rounds across scenarios', () => {
  // A stepped load's round is five windows long, so by cost per round (the rule until 2026-11-29)
  // it took most of the budget and the single-step scenarios were left with their minimum.
  const stepped = { ...ping, name: 'stepped', request: { path: '/stepped' }, load: { connections: [10, 20, 30, 40, 50] } } satisfies ScenarioInput;
  const single = ['a', 'b', 'c', 'd'].map((name) => ({ ...ping, name, request: { path: `/${name}` } }));
  it('brings every scenario to the common number of blocks the budget buys before any takes more (240 s by cost per round: 2, 4, 2, 3, 3), and keeps the budget', async () => {
    for (const budgetSec of [240, 330]) {
      const { r, seam } = await fakeRun({
        scenarios: [single[0]!, stepped, ...single.slice(1)],
        design: { processes: 'per-scenario', precision: 0.001, blocks: { min: 2, max: 12 }, rounds: { min: 2, max: 2 }, budgetSec },
        model: noisy,
      });
      const blocks = new Map(r.stops.map((s) => [s.scenario, s.blocks]));
      const counts = [...blocks.values()];
      expect(Math.max(...counts) - Math.min(...counts), `budget ${budgetSec} s: ${JSON.stringify([...blocks])}`).toBeLessThanOrEqual(1);
      // The stepped scenario, second and the costliest, is not given blocks the others then lack.
      expect(blocks.get('stepped'), `budget ${budgetSec} s`).toBeLessThanOrEqual(Math.min(...single.map((s) => blocks.get(s.name)!)) + 1);
      expect(seam.clock.now()).toBeLessThanOrEqual(budgetSec);
    }
  });
  /** Every window of one scenario's first block over the steal threshold, in the five scenarios' run of 330 s. */
  async function firstBlockStolen(scenario: string) {
    // The fake counts starts of processes over the run: the scenario's first is the one it first measures on.
    let firstStart: number | undefined;
    const burst: FakeModel = {
      ...noisy,
      steal: (w) => {
        if (w.scenario !== scenario) return 0;
        firstStart ??= w.start;
        return w.start === firstStart ? 0.5 : 0;
      },
    };
    const run = await fakeRun({
      scenarios: [single[0]!, stepped, ...single.slice(1)],
      design: { processes: 'per-scenario', precision: 0.001, blocks: { min: 2, max: 12 }, rounds: { min: 2, max: 2 }, budgetSec: 330 },
      model: burst,
    });
    expectConsistent(run.r);
    expect(run.seam.clock.now()).toBeLessThanOrEqual(330);
    return { ...run, first: run.r.blocks.find((b) => b.scenario === scenario && b.block === 1)! };
  }
  it("a block that lost every window and whose part has no room for a round still adds one, within the scenario's share, and no second", async () => {
    const { r, first } = await firstBlockStolen('a');
    expect(first.extraRounds, `${first.rounds} rounds in ${first.wallSec.toFixed(1)} s`).toBe(1);
    expect(r.windows.filter((w) => w.scenario === 'a' && w.block === 1 && w.status === 'ok' && w.excluded === null)).toHaveLength(0);
  });
  it("a burst of steal on the stepped scenario's first block: its extra rounds end within the block's part, and every scenario keeps the common number of blocks", async () => {
    // Each of the stepped block's rounds asks for another, and a round is five windows.
    const { r, first } = await firstBlockStolen('stepped');
    const round = first.roundsWallSec / first.rounds;
    // An extra round replaced a round's lost windows while its part had room, not as many as were
    // planned: with the extra rounds running while the scenario's whole share lasted (until
    // 2026-12-03) the block ran 2 + 2 rounds in 49.1 s; its part ends 42.7 s after its start.
    expect(first.extraRounds).toBeGreaterThanOrEqual(1);
    expect(first.extraRounds, `${first.rounds} rounds of ${round.toFixed(1)} s in ${first.wallSec.toFixed(1)} s`).toBeLessThan(first.plannedRounds);
    const blocks = new Map(r.stops.map((s) => [s.scenario, s.blocks]));
    const counts = [...blocks.values()];
    expect(Math.max(...counts) - Math.min(...counts), JSON.stringify([...blocks])).toBeLessThanOrEqual(1);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(2);
  });
});

describe.each(['shared', 'per-scenario'] as const)('spending the budget where the noise is, with %s processes', (processes) => {
  it('a pair that met the precision target after the minimum of blocks takes no more windows; the wide one and the reference go on', async () => {
    const seam = fakeSeam({ rps, noise: { between: 0.02, within: 0.2, seed: 4 }, noiseScale: (t) => (t === 'b' ? 1 : 0.05) });
    const r = await runSuiteWith(
      {
        scenarios: [ping],
        targets: fakeTargets('ref', 'a', 'b'),
        design: { reference: 'ref', processes, precision: 0.02, blocks: { min: 2, max: 6 }, rounds: { min: 3, max: 3 }, budgetSec: 3600 },
        driver: fakeDriver,
        seed: 3,
        verify: false,
        pinning: false,
      },
      seam,
    );
    expectConsistent(r);
    const blocksOf = (t: string) => [...new Set(r.windows.filter((w) => w.target === t).map((w) => w.block))];
    const a = r.summaries.find((s) => s.target === 'a')!;
    // a met ±2% once it had the minimum of blocks (with 2, Student's t of 12.7 keeps it wider) and
    // took no block after that; b, still wide, went on to the maximum with the reference.
    const k = blocksOf('a').length;
    expect(a.precision.met).toBe(true);
    expect(k).toBeGreaterThanOrEqual(2);
    expect(k).toBeLessThan(6);
    expect(blocksOf('a')).toEqual(Array.from({ length: k }, (_, i) => i + 1));
    expect(blocksOf('b')).toEqual([1, 2, 3, 4, 5, 6]);
    expect(blocksOf('ref')).toEqual([1, 2, 3, 4, 5, 6]);
    expect(r.stops[0]!.reason).toBe('max-blocks');
    // Its later blocks' rounds measured two targets, not three; a's figure is from its own blocks.
    expect(
      seam.calls
        .filter((c) => c.op === 'measure')
        .slice(-1)[0]!
        .targets.sort(),
    ).toEqual(['b', 'ref']);
    expect(a.blocks).toBe(k);
  });
});

describe('time-sliced rounds on the scripted executor', () => {
  it("runs the sliced method's rounds (every target of a round in the same seconds, slots recorded) until the stopping rule stops each scenario", async () => {
    const { r, events, seam } = await fakeRun({
      scenarios: [ping, other],
      targets: ['ref', 'b', 'c'],
      driver: fakeSlicingDriver,
      design: { method: 'sliced', precision: 0.02, blocks: { min: 2, max: 8 }, budgetSec: 3600 },
      model: quiet,
    });
    expectConsistent(r);
    expect(r.design.method).toBe('sliced');
    expect(r.design.budgetPlan?.forecast?.method).toBe('sliced');
    // The planner's price of each scenario's block is kept: what a replay of the forecast after block 2 prices the scenarios to come by.
    const priced = r.design.budgetPlan?.blockSec ?? {};
    expect(Object.keys(priced).sort()).toEqual([ping.name, other.name].sort());
    for (const sec of Object.values(priced)) expect(sec).toBeGreaterThan(0);
    const ok = r.windows.filter((w) => w.status === 'ok');
    expect(ok.length).toBeGreaterThan(0);
    // Every step of every window was measured in slots.
    for (const w of ok) for (const s of w.steps) expect(s.slice?.slots).toBeGreaterThan(0);
    // Each round of a block covers the same targets, the reference among them (every target in the
    // first blocks; a pair that met the precision leaves later ones), all of them in the same seconds.
    const rounds = new Map<string, WindowRecord[]>();
    for (const w of r.windows) rounds.set(`${w.scenario}/${w.block}/${w.round}`, [...(rounds.get(`${w.scenario}/${w.block}/${w.round}`) ?? []), w]);
    const covered = (scenario: string, block: number) =>
      [...rounds.entries()]
        .filter(([k]) => k.startsWith(`${scenario}/${block}/`))
        .map(([, ws]) =>
          ws
            .map((w) => w.target)
            .sort()
            .join(),
        );
    for (const [k, ws] of rounds) {
      const [scenario, block] = k.split('/');
      expect(new Set(covered(scenario!, Number(block))).size).toBe(1);
      expect(ws.map((w) => w.target)).toContain('ref');
      expect(new Set(ws.map((w) => w.startedAt)).size).toBe(1);
      if (block === '1') expect(ws.map((w) => w.target).sort()).toEqual(['b', 'c', 'ref']);
    }
    // The scripted executor was asked for whole rounds, and measured them as one (one measure call per round).
    expect(seam.calls.filter((c) => c.op === 'measure').length).toBe(rounds.size);
    for (const s of r.stops) {
      expect(s.reason).toBe('precision');
      expect(s.blocks).toBeGreaterThanOrEqual(2);
      expect(decisions(events, s.scenario)).toEqual([...Array.from({ length: s.blocks - 1 }, () => 'continue'), 'precision']);
    }
    const b = r.summaries.find((x) => x.target === 'b' && x.scenario === 'ping')!;
    expect(b.relativeRps!.point).toBeCloseTo(0.8, 1);
    // Processes per scenario, blocks interleaved: one forecast, once every scenario has had its
    // block 2 (none after block 1, which has no record), with both scenarios begun.
    const said = events.filter((e): e is Extract<SuiteEvent, { type: 'forecast' }> => e.type === 'forecast' && e.afterBlock !== undefined);
    expect(said.map((e) => [e.afterBlock, e.scenarios?.begun, e.scenarios?.of])).toEqual([[2, 2, 2]]);
    // The record's bias is for scenarios not begun (the prior's): with both begun the range centres on the model's figure itself.
    const centre = (e: (typeof said)[number]) => Math.sqrt(e.forecast.likely!.low * e.forecast.likely!.high) / e.forecast.halfWidth;
    expect(centre(said[0]!)).toBeCloseTo(1, 6);
    expect(DEFAULTS.forecast.record.logBias).not.toBe(0);
  });
});

describe('shared and per-scenario processes', () => {
  const design = { precision: 0.001, blocks: { min: 3, max: 3 }, rounds: { min: 3, max: 3 }, budgetSec: 3600 } satisfies DesignOptions;
  it('shared: a carried process whose rotation window served fewer requests than the design asks takes more windows until it has, a fast one none', async () => {
    // 0.5-s windows: the reference (10k req/s) serves about 5,000 in one, b and c (8k) 4,000, so they take a second.
    const { r } = await fakeRun({
      scenarios: [ping, other],
      design: { ...design, processes: 'shared', warmupRequests: 'first-scenario', carriedWarmupRounds: 1, carriedWarmupWindowSec: 0.5, carriedWarmupServed: 4500 },
      model: quiet,
    });
    expectConsistent(r);
    expect(r.design.carriedWarmupServed).toBe(4500);
    for (const later of r.blocks.filter((b) => b.position === 2)) {
      for (const t of later.targets) {
        expect(t.carried).toBe(true);
        expect(t.warmupRps, t.target).toHaveLength(t.target === 'ref' ? 1 : 2);
        expect(t.warmupRequests!, t.target).toBeGreaterThanOrEqual(4500);
        expect(t.steady).toBe(true);
      }
    }
  });

  it("shared, warmed on every scenario's requests (the default): the fresh warm-up sends them all, no later part takes a rotation round", async () => {
    const { r, seam } = await fakeRun({ scenarios: [ping, other, ramp], design: { ...design, processes: 'shared' }, model: quiet });
    expectConsistent(r);
    expect(r.design.warmupRequests).toBe('all-scenarios');
    const warms = seam.calls.filter((c) => c.op === 'warm');
    expect(warms.length).toBeGreaterThan(0);
    // Every warm-up round is a block's fresh start, on its first scenario's part, and sends each target every scenario's path.
    for (const w of warms) for (const paths of w.paths!) expect([...paths].sort()).toEqual(['/other', '/ping', '/ramp']);
    const firsts = new Set(r.blocks.filter((b) => b.position === 1).map((b) => b.scenario));
    expect(warms.every((w) => firsts.has(w.scenario!))).toBe(true);
    for (const later of r.blocks.filter((b) => b.position! > 1)) expect(later.targets.every((t) => t.carried === true && t.warmupRps.length === 0)).toBe(true);
    for (const first of r.blocks.filter((b) => b.position === 1)) expect(first.targets.every((t) => t.carried === false && t.warmupRps.length >= 1)).toBe(true);
  });

  it("shared, warmed on the first scenario's requests: one start per block serves every scenario in a seeded order per block; a later part's processes are carried and warmed by rotation rounds", async () => {
    // The rotation round alone (carriedWarmupServed 0): one window per carried process.
    const { r, seam, events } = await fakeRun({
      scenarios: [ping, other, ramp],
      design: { ...design, processes: 'shared', warmupRequests: 'first-scenario', carriedWarmupRounds: 1, carriedWarmupWindowSec: 0.3, carriedWarmupServed: 0 },
      model: quiet,
    });
    expectConsistent(r);
    expect(seam.calls.filter((c) => c.op === 'start')).toHaveLength(3);
    for (const block of [1, 2, 3]) {
      const parts = r.blocks.filter((b) => b.block === block).sort((a, b) => a.position! - b.position!);
      expect(parts.map((b) => b.position)).toEqual([1, 2, 3]);
      expect(parts[0]!.targets.every((t) => t.carried === false && t.warmupRps.length >= 1)).toBe(true);
      for (const later of parts.slice(1)) expect(later.targets.every((t) => t.carried === true && t.warmupRps.length === 1)).toBe(true);
    }
    // The order is drawn afresh per block: not every block starts with the same scenario.
    const firsts = [1, 2, 3].map((block) => r.blocks.find((b) => b.block === block && b.position === 1)!.scenario);
    expect(new Set(firsts).size).toBeGreaterThan(1);
    // A part is announced at its turn, once its processes are up.
    expect(events.filter((e) => e.type === 'block-start')).toHaveLength(9);
    // Rotation windows of 0.3 s, the fresh warm-up's of 0.5 s.
    expect(seam.calls.filter((c) => c.op === 'warm' && c.windowSec === 0.3)).toHaveLength(3 * 2);
    // Each warm-up round sends its part's scenario only.
    for (const w of seam.calls.filter((c) => c.op === 'warm')) for (const paths of w.paths!) expect(paths).toEqual([`/${w.scenario}`]);
  });

  it("per-scenario: each block starts processes for one scenario, the scenarios' blocks interleaved (every scenario's block b before any's b + 1, in a seeded order per b), none carried", async () => {
    const { r, seam } = await fakeRun({ scenarios: [ping, other, ramp], design: { ...design, processes: 'per-scenario', carriedWarmupWindowSec: 0.3 }, model: quiet });
    expectConsistent(r);
    expect(seam.calls.filter((c) => c.op === 'start')).toHaveLength(9);
    const order = r.blocks.map((b) => `${b.scenario}${b.block}`);
    for (const b of [1, 2, 3]) expect(order.slice(3 * (b - 1), 3 * b).sort()).toEqual([`other${b}`, `ping${b}`, `ramp${b}`]);
    // The order within a block number is drawn afresh for each: not one order every time.
    expect(
      new Set(
        [0, 3, 6].map((i) =>
          order
            .slice(i, i + 3)
            .map((y) => y.replace(/\d$/, ''))
            .join(),
        ),
      ).size,
    ).toBeGreaterThan(1);
    for (const b of r.blocks) {
      expect(b.position).toBeUndefined();
      expect(b.targets.every((t) => t.carried === undefined)).toBe(true);
    }
    expect(seam.calls.filter((c) => c.op === 'warm' && c.windowSec === 0.3)).toHaveLength(0);
    expect(seam.calls.filter((c) => c.op === 'warm' && c.windowSec === 0.5).length).toBeGreaterThan(0);
  });
});

describe('a target that fails mid-block', () => {
  // b's process dies in its second measured window of the first start.
  const model: FakeModel = { ...quiet, crash: (w) => w.target === 'b' && w.start === 1 && w.window === 2 };
  const design = { precision: 0.001, blocks: { min: 2, max: 2 }, rounds: { min: 3, max: 3 }, budgetSec: 3600 } satisfies DesignOptions;
  it('leaves the block: its failed window is recorded, the reference goes on, and the next block starts it afresh', async () => {
    const { r } = await fakeRun({ design: { ...design, processes: 'per-scenario' }, model });
    expectConsistent(r);
    const failed = r.windows.filter((w) => w.status === 'failed');
    expect(failed.map(key)).toEqual(['ping/1/2/b']);
    expect(failed[0]).toMatchObject({ failure: { phase: 'crash' } });
    expect(r.windows.filter((w) => w.block === 1 && w.target === 'b' && w.round > 2)).toEqual([]);
    expect(r.windows.filter((w) => w.block === 1 && w.target === 'ref')).toHaveLength(3);
    const b1 = r.blocks.find((b) => b.block === 1)!.targets.find((t) => t.target === 'b')!;
    expect(b1).toMatchObject({ status: 'failed', failure: { phase: 'crash' } });
    expect(r.blocks.find((b) => b.block === 2)!.targets.every((t) => t.status === 'ok')).toBe(true);
    expect(r.windows.filter((w) => w.block === 2 && w.status === 'ok')).toHaveLength(6);
  });
  it('with shared processes, the later parts of its block find it gone', async () => {
    const { r } = await fakeRun({ scenarios: [ping, other], design: { ...design, processes: 'shared' }, model });
    expectConsistent(r);
    const block1 = r.blocks.filter((b) => b.block === 1).sort((a, b) => a.position! - b.position!);
    const [first, later] = block1.map((b) => b.targets.find((t) => t.target === 'b')!);
    expect(first).toMatchObject({ status: 'failed', failure: { phase: 'crash' } });
    expect(later).toMatchObject({ status: 'failed', failure: { phase: 'crash', message: 'the server exited while serving an earlier scenario of the block' } });
    expect(r.windows.filter((w) => w.block === 1 && w.scenario === block1[1]!.scenario && w.target === 'b')).toEqual([]);
    expect(r.blocks.filter((b) => b.block === 2).every((b) => b.targets.every((t) => t.status === 'ok'))).toBe(true);
  });
});

// Processes per scenario, 74 s for three scenarios (blocks interleaved, the stepped ramp's first):
// the ramp's second block does not fit what is left once the other scenarios' minimum (2 blocks of
// 3 rounds here; ping's first block runs 3 s late per window) is kept, unless every warm-up from then
// on stops at its minimum (3 s → 0.5 s per target).
const tight = {
  scenarios: [ping, other, ramp],
  design: { processes: 'per-scenario', precision: 0.02, budgetSec: 74, rounds: { min: 3, max: 20 }, windowSec: 0.5, warmup: { minSec: 0.5, maxSec: 3 } } satisfies DesignOptions,
  model: { rps, noise: { between: 0.05, within: 0.1, seed: 1 }, lateSec: (w) => (w.scenario === 'ping' && w.start === 1 ? 3 : 0) } satisfies FakeModel,
};

describe('a replan', () => {
  it('a warm-up cut to reach a minimum is journalled and said; later warm-ups use it; the recorded design keeps the plan and lists the change', async () => {
    const outDir = scratch('bs-replan');
    const { r, events, seam } = await fakeRun({ ...tight, outDir });
    const replans = events.filter((e) => e.type === 'replan');
    expect(replans).toEqual([{ type: 'replan', change: { what: 'warmup', from: 3, to: 0.5, atSec: expect.any(Number), scenario: 'ramp' } }]);
    const change = (replans[0] as Extract<SuiteEvent, { type: 'replan' }>).change;
    // With it every scenario reached its minimum of blocks, within the budget.
    for (const s of r.stops) expect(s.blocks, s.scenario).toBeGreaterThanOrEqual(2);
    expect(seam.clock.now()).toBeLessThanOrEqual(74);
    // The plan's design is the result's; the cut is in its budget plan, from when it applied.
    expect(r.design.warmup.maxSec).toBe(3);
    expect(r.design.budgetPlan!.changes).toContainEqual(change);
    // Before the cut fresh processes warmed in windows of 0.5 s (up to 3 s); after it, in two of 0.25 s (0.5 s).
    const warms = seam.calls.filter((c) => c.op === 'warm');
    expect(new Set(warms.filter((c) => c.at < change.atSec! - 0.5).map((c) => c.windowSec))).toEqual(new Set([0.5]));
    expect(new Set(warms.filter((c) => c.at > change.atSec! + 0.5).map((c) => c.windowSec))).toEqual(new Set([0.25]));
    const after = r.blocks.filter((b) => new Date(b.startedAt).getTime() > new Date(r.startedAt).getTime() + (change.atSec! + 0.5) * 1000);
    expect(after.length).toBeGreaterThan(0);
    for (const b of after) for (const t of b.targets) expect(t.warmupRps.length).toBeLessThanOrEqual(2);
    // The journal holds it, so a resumed run continues with it.
    const lines = readFileSync(join(outDir, 'windows.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { record: string });
    expect(lines.filter((l) => l.record === 'replan')).toEqual([{ record: 'replan', change }]);
    // The plan file was written before it and never changes.
    expect(JSON.parse(readFileSync(join(outDir, 'run.json'), 'utf8')).design.warmup.maxSec).toBe(3);
  });
});

describe('resume from a journal cut after every kind of event', () => {
  type Line = { record: string; window?: WindowRecord };
  /** A finished run's folder, then copies of it whose journal ends after a line of each kind (and one cut inside a line). */
  async function cuts(o: FakeRun): Promise<{ full: BenchResult; copies: Array<{ label: string; dir: string; before: WindowRecord[] }> }> {
    const dir = scratch('bs-journal');
    const { r: full } = await fakeRun({ ...o, outDir: dir });
    const text = readFileSync(join(dir, 'windows.jsonl'), 'utf8');
    const lines = text.trim().split('\n');
    const parsed = lines.map((l) => JSON.parse(l) as Line);
    const copies: Array<{ label: string; dir: string; before: WindowRecord[] }> = [];
    const copy = (label: string, journal: string, kept: Line[]) => {
      const to = scratch('bs-cut');
      mkdirSync(to, { recursive: true });
      writeFileSync(join(to, 'run.json'), readFileSync(join(dir, 'run.json')));
      writeFileSync(join(to, 'windows.jsonl'), journal);
      copies.push({ label, dir: to, before: kept.flatMap((l) => (l.window ? [l.window] : [])) });
    };
    for (const kind of new Set(parsed.map((l) => l.record))) {
      // After the middle line of each kind: partway through the run.
      const at = parsed.map((l, i) => (l.record === kind ? i : -1)).filter((i) => i >= 0);
      const i = at[Math.floor(at.length / 2)]!;
      copy(`after a ${kind} line (${i + 1} of ${lines.length})`, `${lines.slice(0, i + 1).join('\n')}\n`, parsed.slice(0, i + 1));
    }
    const half = Math.floor(lines.length / 2);
    copy('inside a line', `${lines.slice(0, half).join('\n')}\n${lines[half]!.slice(0, 40)}`, parsed.slice(0, half));
    return { full, copies };
  }

  it.each([
    ['shared processes', { scenarios: [ping, other, ramp], design: { processes: 'shared', precision: 0.001, blocks: { min: 3, max: 3 }, rounds: { min: 3, max: 3 }, budgetSec: 3600 }, model: quiet }],
    ['processes per scenario, with a replan', tight],
  ] as Array<[string, FakeRun]>)('%s: every window once, the earlier ones unchanged, the plan and its replans kept', async (_, o) => {
    const { full, copies } = await cuts(o);
    expect(copies.map((c) => c.label.split(' (')[0])).toEqual(expect.arrayContaining(['after a window line', 'after a block line', 'inside a line']));
    if (full.design.budgetPlan!.changes.length) expect(copies.some((c) => c.label.startsWith('after a replan line'))).toBe(true);
    for (const c of copies) {
      const { r, events } = await fakeRun({ ...o, outDir: c.dir, resume: true });
      expectConsistent(r);
      expect(r.resumed, c.label).toBe(true);
      expect(events[0], c.label).toMatchObject({ type: 'resume', replayed: { windows: c.before.length } });
      // Every window the cut journal held is in the result, unchanged, and nothing ran twice. Its
      // exclusion as round 1 of a pair found unsteady is the whole run's verdict, made when the
      // result is assembled (the resumed run measured other blocks than the uninterrupted one).
      const asMeasured = (x: WindowRecord | undefined) => x && (x.excluded === 'unsteady' ? { ...x, excluded: null } : x);
      for (const w of c.before) expect(asMeasured(r.windows.find((x) => key(x) === key(w))), c.label).toEqual(w);
      const added = r.windows.filter((w) => !c.before.some((b) => key(b) === key(w)));
      expect(
        added.every((w) => w.index > Math.max(-1, ...c.before.map((b) => b.index))),
        c.label,
      ).toBe(true);
      // The same shape as the uninterrupted run: each scenario's complete blocks and stop reason.
      for (const s of full.stops) {
        const again = r.stops.find((x) => x.scenario === s.scenario)!;
        expect(again.reason, c.label).toBe(s.reason);
        if (s.reason !== 'budget')
          expect(r.blocks.filter((b) => b.scenario === s.scenario && b.complete).length, c.label).toBe(full.blocks.filter((b) => b.scenario === s.scenario && b.complete).length);
      }
      // A replan the journal held is the resumed run's too.
      const journalled = readFileSync(join(c.dir, 'windows.jsonl'), 'utf8');
      if (/"record":"replan"/.test(journalled)) expect(r.design.budgetPlan!.changes.filter((x) => typeof x === 'object' && x.atSec !== undefined).length, c.label).toBeGreaterThan(0);
      // The journal now holds the whole run once: a second resume would read the same windows.
      const windows = journalled
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line)
        .flatMap((l) => (l.window ? [key(l.window)] : []));
      expect(windows.sort(), c.label).toEqual(r.windows.map(key).sort());
    }
  });
});

describe('replaying a journal', () => {
  it('replays a line of every kind into the state, and a journal cut after any line into the state of the lines before it', async () => {
    // A run's windows, blocks and replan, then one record of each other kind, as a run journals them.
    const dir = scratch('bs-kinds');
    await fakeRun({ ...tight, outDir: dir });
    const run = readFileSync(join(dir, 'windows.jsonl'), 'utf8').trim().split('\n');
    const est = { reference: 'ref', precision: 0.02, practicalBand: 0.01, bootstrapResamples: 200, confidence: 0.95, seed: 1 };
    const others: JournalEvent[] = [
      { record: 'verify', outcome: { scenario: 'ping', target: 'b', ok: true } },
      {
        record: 'costs',
        target: 'b',
        costs: { startupMs: { median: 50, samples: [50], method: 'spawn → ready' }, idleRssBytes: 1, idlePssBytes: null, processCount: 1, peakRssBytes: null, artifact: null },
      },
      { record: 'ceiling', ceiling: { scenario: 'ping', service: 'stub', from: 'b', connections: 10, rps: estimate([[900, 1000, 1100]], est, ['c'], ABSOLUTE_METHOD), clientBound: false } },
      {
        record: 'floor-window',
        window: { scenario: 'ping', block: 1, connections: 1, requests: 1000, durationSec: 0.1, rps: 10_000, histogram: encodeHistogram(createHistogram()), clientBound: false },
      },
      { record: 'profile', profile: { scenario: 'ping', target: 'b', status: 'unavailable', profiler: 'none', reason: 'a URL target' } },
      { record: 'instructions', instructions: { scenario: 'ping', target: 'b', status: 'skipped', reason: 'a URL target', warmupRequests: 3000, levels: [] } },
      { record: 'stream', scenario: 'chat', target: 'b', block: { block: 1, status: 'failed', failure: 'gone', levels: [], cancel: null, backpressure: null, wallSec: 1 } },
      { record: 'stream', scenario: 'chat', target: 'b', block: { block: 2, status: 'failed', failure: 'gone', levels: [], cancel: null, backpressure: null, wallSec: 1 } },
      // A capacity search's finished block: its probe's window is numbered among the run's (index 1000).
      {
        record: 'capacity-block',
        scenario: 'ping',
        target: 'b',
        block: {
          block: 1,
          capacity: null,
          bracket: null,
          bound: 'server',
          probes: [
            {
              rate: 100,
              achievedRps: 0,
              p50: 0,
              p99: 0,
              errorShare: 1,
              meets: false,
              failed: 'window failed: gone',
              loaderBound: false,
              window: {
                scenario: 'ping',
                target: 'b',
                block: 1,
                round: 1,
                position: 0,
                index: 1000,
                startedAt: new Date(0).toISOString(),
                elapsedSec: 1,
                status: 'failed',
                failure: { phase: 'load', message: 'gone' },
              },
            },
          ],
        },
      },
    ];
    const lines = [...run, ...others.map((e) => JSON.stringify(e))];
    writeFileSync(join(dir, 'windows.jsonl'), `${lines.join('\n')}\n`);
    const kinds = new Set(lines.map((l) => (JSON.parse(l) as JournalEvent).record));
    expect([...kinds].sort()).toEqual(['block', 'capacity-block', 'ceiling', 'costs', 'floor-window', 'instructions', 'profile', 'replan', 'stream', 'verify', 'window']);
    const whole = replayJournal(dir);
    expect(whole.verify).toEqual([{ scenario: 'ping', target: 'b', ok: true }]);
    expect(whole.costs.get('b')).toMatchObject({ startupMs: { median: 50 } });
    expect(whole.ceilings).toHaveLength(1);
    expect(whole.floorWindows).toEqual([expect.objectContaining({ scenario: 'ping', block: 1, rps: 10_000 })]);
    expect(whole.profiles).toHaveLength(1);
    expect(whole.instructions).toHaveLength(1);
    expect(whole.streams).toEqual([{ scenario: 'chat', target: 'b', blocks: [expect.objectContaining({ block: 1 }), expect.objectContaining({ block: 2 })] }]);
    expect(whole.replans).toHaveLength(1);
    expect(whole.capacityBlocks).toEqual([{ scenario: 'ping', target: 'b', block: expect.objectContaining({ block: 1, bound: 'server' }) }]);
    // The next window comes after the run's windows and after the journalled probes' windows.
    expect(whole.windows.length).toBeLessThan(1000);
    expect(whole.nextIndex).toBe(1001);
    expect(whole.loadSec).toBeGreaterThan(0);
    // Cut after the first line of each kind: the state is what those lines make, nothing more.
    for (const kind of kinds) {
      const i = lines.findIndex((l) => (JSON.parse(l) as JournalEvent).record === kind);
      const cut = scratch('bs-kinds-cut');
      writeFileSync(join(cut, 'windows.jsonl'), `${lines.slice(0, i + 1).join('\n')}\n`);
      const expected = lines.slice(0, i + 1).reduce((st, l) => reduce(st, JSON.parse(l) as JournalEvent), emptyState());
      expect(replayJournal(cut), kind).toEqual(expected);
    }
  });
});

describe('a run written before the journal rework', () => {
  it('resumes: its plan and windows as commit 0c2e9fe wrote them (a block cut short without its record), every window once, as many blocks as planned', async () => {
    // fixtures/main-run: run.json and windows.jsonl of runSuite at commit 0c2e9fe, on URL targets
    // `ref` and `b` with a scripted driver (nothing started), shared processes, 2 blocks of 2
    // rounds, seed 5, interrupted by its signal after its 7th window.
    const outDir = scratch('bs-main-run');
    cpSync(fileURLToPath(new URL('./fixtures/main-run', import.meta.url)), outDir, { recursive: true });
    const before = readFileSync(join(outDir, 'windows.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .flatMap((l) => {
        const line = JSON.parse(l) as { window?: WindowRecord };
        return line.window ? [line.window] : [];
      });
    expect(before).toHaveLength(7);
    const { r } = await fakeRun({ scenarios: [ping, other], design: {}, model: quiet, outDir, resume: true });
    expectConsistent(r);
    expect(r).toMatchObject({ resumed: true, interrupted: false, seed: 5, suite: 'fixture' });
    expect(r.design).toMatchObject({ windowSec: 0.1, rounds: { min: 2, max: 2 }, blocks: { min: 2, max: 2 }, processes: 'shared', freshWarmup: 'rotation' });
    for (const w of before) expect(r.windows.find((x) => key(x) === key(w))).toEqual(w);
    expect(r.blocks.find((b) => b.scenario === 'ping' && b.block === 1)).toMatchObject({ complete: false });
    for (const name of ['ping', 'other']) {
      expect(r.blocks.filter((b) => b.scenario === name && b.complete)).toHaveLength(2);
      expect(r.stops.find((s) => s.scenario === name)).toMatchObject({ reason: 'max-blocks' });
    }
  });
});

describe('an interrupted run', () => {
  it('ends the block it was in, incomplete and journalled, and stops every scenario as interrupted; resuming it completes the plan', async () => {
    const outDir = scratch('bs-interrupt');
    const ac = new AbortController();
    let windows = 0;
    const o: FakeRun = { scenarios: [ping, other], design: { processes: 'shared', precision: 0.001, blocks: { min: 2, max: 2 }, rounds: { min: 3, max: 3 }, budgetSec: 3600 }, model: quiet };
    const { r } = await fakeRun({ ...o, outDir, signal: ac.signal, onEvent: (e) => e.type === 'window' && ++windows === 9 && ac.abort() });
    expect(r.interrupted).toBe(true);
    expect(r.windows).toHaveLength(9);
    expect(r.stops.map((s) => s.reason)).toEqual(['interrupted', 'interrupted']);
    const cut = r.blocks.filter((b) => !b.complete);
    expect(cut).toHaveLength(1);
    expect(existsSync(join(outDir, 'windows.jsonl'))).toBe(true);
    const { r: done } = await fakeRun({ ...o, outDir, resume: true });
    expectConsistent(done);
    expect(done.interrupted).toBe(false);
    for (const s of done.stops) expect(s).toMatchObject({ reason: 'max-blocks' });
    for (const name of ['ping', 'other']) expect(done.blocks.filter((b) => b.scenario === name && b.complete)).toHaveLength(2);
    for (const w of r.windows) expect(done.windows.find((x) => key(x) === key(w))).toEqual(w);
  });
});

describe('one plan: runSuite given a plan runs it and plans nothing', () => {
  const options = {
    scenarios: [ping],
    targets: fakeTargets('ref', 'b'),
    design: { reference: 'ref', precision: 0.5, blocks: { min: 2, max: 6 }, rounds: { min: 3, max: 3 }, budgetSec: 3600 },
    driver: fakeDriver,
    seed: 3,
    verify: false,
    pinning: false,
  };
  const shape = (r: BenchResult) => [...new Set(r.windows.map((w) => `${w.block}/${w.round}`))];

  it('the plan is frozen and holds the driver, its reason and the design with its method', async () => {
    const plan = await planSuiteRun(options);
    expect(Object.isFrozen(plan)).toBe(true);
    expect(Object.isFrozen(plan.design)).toBe(true);
    expect(plan.driver.driver).toBe(fakeDriver);
    expect(plan.driver.reason).toBeTruthy();
    // The fake driver cannot slice: the plan's design says the method the run measures with.
    expect(plan.design.method).toBe('sequential');
    expect(plan.outlook.budget.forecast?.method).toBe('sequential');
    expect(plan.targets.map((t) => t.name)).toEqual(['ref', 'b']);
  });

  it("the forecast before the run is said with its record's range, and a goal's budget is the least whose range centres on it", async () => {
    // Time-sliced: the sequential prior cannot reach ±5% within the limits.
    const design = { ...options.design, method: 'sliced' as const, blocks: { min: 2, max: 12 }, rounds: { min: 2, max: 20 } };
    const sliced = { ...options, driver: fakeSlicingDriver };
    const f = (await planSuiteRun({ ...sliced, design })).outlook.budget.forecast!;
    expect(f.method).toBe('sliced');
    expect(f.source).toBe('prior');
    expect(f.likely).toEqual(likelyRange(f.halfWidth, DEFAULTS.forecast.priorRecord));
    const centre = (x: RunForecast) => Math.sqrt(x.likely!.low * x.likely!.high);
    // The record's bias: the centre is about twice the model's figure.
    expect(centre(f) / f.halfWidth).toBeCloseTo(Math.exp(-DEFAULTS.forecast.priorRecord.logBias), 9);
    const goal = f.budgetFor.find((g) => g.precision === 0.05)!;
    expect(goal.budgetSec).not.toBeNull();
    const at = async (budgetSec: number) => (await planSuiteRun({ ...sliced, design: { ...design, budgetSec } })).outlook.budget.forecast!;
    expect(centre(await at(goal.budgetSec!))).toBeLessThanOrEqual(0.05);
    expect(centre(await at(goal.budgetSec! - 1))).toBeGreaterThan(0.05);
  });

  it('a plan from planSuiteRun gives the result the same options give (the same windows, events and figures)', async () => {
    const fromOptions = await fakeRun({ design: options.design, model: quiet });
    const events: SuiteEvent[] = [];
    const r = await runSuiteWith(await planSuiteRun(options), fakeSeam(quiet), { onEvent: (e) => events.push(e) });
    expect(r.windows).toEqual(fromOptions.r.windows);
    expect(r.summaries).toEqual(fromOptions.r.summaries);
    expect(r.design).toEqual(fromOptions.r.design);
    expect(events).toEqual(fromOptions.events);
  });

  it('a plan whose design planning these options would never give runs as given: 4 blocks of 5 rounds, not 2 of 3', async () => {
    const planned = await runSuiteWith(await planSuiteRun(options), fakeSeam(quiet));
    // The options stop at their minimum of 2 blocks of 3 rounds (a ±50% goal is met at once).
    expect(shape(planned)).toEqual(['1/1', '1/2', '1/3', '2/1', '2/2', '2/3']);
    const plan = await planSuiteRun(options);
    const edited = { ...plan, design: Object.freeze({ ...plan.design, blocks: { min: 4, max: 4 }, rounds: { min: 5, max: 5 } }) };
    const r = await runSuiteWith(edited, fakeSeam(quiet));
    expectConsistent(r);
    expect(r.design).toMatchObject({ blocks: { min: 4, max: 4 }, rounds: { min: 5, max: 5 } });
    expect(shape(r)).toEqual(Array.from({ length: 4 }, (_, b) => Array.from({ length: 5 }, (_, i) => `${b + 1}/${i + 1}`)).flat());
  });
});

describe('fresh warm-ups end together', () => {
  it("from a scenario's second block, a target that warmed in fewer windows starts later, so its last warm-up window is in the slowest one's last round", async () => {
    // ref at 20k req/s serves 12,000 requests in 2 half-second windows; b at 4k needs all 6.
    const model: FakeModel = { rps: (t) => (t === 'ref' ? 20_000 : 4000), noise: { between: 0.005, within: 0.01, seed: 1 } };
    const { r, seam } = await fakeRun({
      design: { precision: 0.001, blocks: { min: 2, max: 2 }, rounds: { min: 2, max: 2 }, budgetSec: 3600, warmup: { minSec: 0.5, maxSec: 3, tolerance: 0.05, served: 12_000, windowSec: 0.5 } },
      model,
    });
    expectConsistent(r);
    const windows = (block: number) => Object.fromEntries(r.blocks.find((b) => b.block === block)!.targets.map((t) => [t.target, t.warmupRps.length]));
    expect(windows(1)).toEqual({ ref: 2, b: 6 });
    expect(windows(2)).toEqual({ ref: 2, b: 6 });
    // The warm-up rounds of each block, in order: who took a window in each.
    const starts = seam.calls.filter((c) => c.op === 'start').map((c) => c.at);
    const rounds = (block: number) =>
      seam.calls.filter((c) => c.op === 'warm' && c.at >= starts[block - 1]! && (block === starts.length || c.at < starts[block]!)).map((c) => [...c.targets].sort().join('+'));
    // Block 1 knows nothing yet: both start together, and ref then idles for 4 rounds.
    expect(rounds(1)).toEqual(['b+ref', 'b+ref', 'b', 'b', 'b', 'b']);
    // Block 2: ref's 2 windows are the last 2 rounds.
    expect(rounds(2)).toEqual(['b', 'b', 'b', 'b', 'b+ref', 'b+ref']);
  });
});

describe('the window fitted to a block', () => {
  it("from a scenario's second block, takes the latency at its most connections from what the earlier blocks measured there, not only the climbing warm-up", async () => {
    // b at 2,000 req/s: its two warm-up windows read 1,000 and 1,500 (the fake warm-up climbs), so
    // 5 responses on each of 500 connections need 2,500 ÷ 1,500 = 1.67 s in block 1; block 1's
    // rounds measured 2,000 at 500 connections, so block 2 needs 2,500 ÷ 2,000 = 1.25 s.
    const wide = { ...ping, name: 'wide', request: { path: '/wide' }, load: { connections: [10, 500], duration: 0.5 } };
    const { events } = await fakeRun({
      scenarios: [wide],
      design: { precision: 0.001, blocks: { min: 2, max: 2 }, rounds: { min: 2, max: 2 }, budgetSec: 3600, warmup: { minSec: 1, maxSec: 1, tolerance: 0.05, served: 20_000, windowSec: 0.5 } },
      model: { rps: (t) => (t === 'ref' ? 20_000 : 2000) },
    });
    const fits = events.filter((e) => e.type === 'window-fit').map((e) => (e.type === 'window-fit' ? [e.block, e.toSec] : []));
    expect(fits).toHaveLength(2);
    expect(fits[0]![0]).toBe(1);
    expect(fits[0]![1]).toBeCloseTo(2500 / 1500, 6);
    expect(fits[1]![0]).toBe(2);
    // (the fake counts whole requests, so to 3 places)
    expect(fits[1]![1]).toBeCloseTo(2500 / 2000, 3);
  });
});
