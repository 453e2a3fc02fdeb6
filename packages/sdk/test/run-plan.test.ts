// The run plan a resumed run reads back (run/plan.ts `readPlan`, `diffPlans`): plans that recorded a design
// option measurements rejected are refused with why, or mapped when they ask what every run does
// today. Files only: no process starts here.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratch } from '@benchsuite/testkit';
import { BenchsuiteConfigError, DEFAULTS, diffPlans, readPlan, warmupWindows } from '../src/index.js';
import { recordedThresholds } from '../src/design-thresholds.js';

/** A run.json as the current version writes it, with `design` changed by `edit`. */
function planDir(edit: (design: Record<string, unknown>) => void = () => undefined): string {
  const design: Record<string, unknown> = {
    reference: 'a',
    windowSec: 0.8,
    warmup: { ...DEFAULTS.warmup },
    rounds: { ...DEFAULTS.rounds },
    blocks: { ...DEFAULTS.blocks },
    processes: 'shared',
    freshWarmup: 'rotation',
    carriedWarmupRounds: 1,
    carriedWarmupWindowSec: 0.5,
    precision: 0.02,
    budgetSec: 1080,
    stealThreshold: 0.1,
    practicalBand: 0.01,
    bootstrapResamples: 2000,
    confidence: 0.95,
    ...recordedThresholds(),
  };
  edit(design);
  const dir = scratch('bs-plan');
  const plan = {
    suite: 'tiny',
    seed: 3,
    design,
    driver: 'wrk',
    scenarios: ['ping'],
    targets: ['a', 'b'],
    startedAt: '2026-11-26T10:00:00.000Z',
    options: { overrides: {}, verify: true, costs: false, profile: false, pinning: 'auto' },
  };
  writeFileSync(join(dir, 'run.json'), JSON.stringify(plan));
  return dir;
}

const refusal = (dir: string) => {
  try {
    readPlan(dir);
  } catch (err) {
    expect(err).toBeInstanceOf(BenchsuiteConfigError);
    return (err as Error).message;
  }
  throw new Error('readPlan accepted the plan');
};

describe('readPlan: design options measurements rejected', () => {
  it('reads a plan of today', () => {
    expect(readPlan(planDir()).design).toMatchObject({ processes: 'shared', freshWarmup: 'rotation', carriedWarmupRounds: 1 });
  });
  it('refuses a run that warmed fresh processes one by one, recorded or from before the field, saying why', () => {
    expect(refusal(planDir((d) => (d.freshWarmup = 'one-by-one')))).toMatch(/recorded design\.freshWarmup 'one-by-one', which this version cannot continue \(removed: .*\); start a new run/);
    expect(
      refusal(
        planDir((d) => {
          delete d.freshWarmup;
        }),
      ),
    ).toMatch(/design\.freshWarmup absent \(a plan from before rotation warm-ups/);
  });
  it("continues a run as it was warmed: on every scenario's requests or the first scenario's, and one from before the field on the first scenario's", () => {
    expect(readPlan(planDir((d) => (d.warmupRequests = 'all-scenarios'))).design.warmupRequests).toBe('all-scenarios');
    expect(readPlan(planDir((d) => (d.warmupRequests = 'first-scenario'))).design.warmupRequests).toBe('first-scenario');
    expect(readPlan(planDir()).design.warmupRequests).toBe('first-scenario');
    expect(refusal(planDir((d) => (d.warmupRequests = 'some-scenarios')))).toMatch(/is not a benchsuite run plan/);
  });
  it('continues a plan from before the warm-up had a window length in its 1-s windows, and one with it in its own', () => {
    const before = readPlan(planDir((d) => delete (d.warmup as Record<string, unknown>).windowSec)).design;
    expect(before.warmup.windowSec).toBe(1);
    expect(warmupWindows(before.warmup).windowSec).toBe(1);
    expect(readPlan(planDir((d) => ((d.warmup as Record<string, unknown>).windowSec = 0.5))).design.warmup.windowSec).toBe(0.5);
  });
  it('reads a plan without a method as one window after another, and refuses a method this version does not know', () => {
    expect(readPlan(planDir()).design.method).toBe('sequential');
    expect(readPlan(planDir((d) => (d.method = 'sliced'))).design.method).toBe('sliced');
    expect(refusal(planDir((d) => (d.method = 'quantum')))).toMatch(/recorded design\.method 'quantum', which this version does not know \(it knows sliced, sequential\); start a new run/);
  });
});

describe('diffPlans: where a run asks what its recorded plan holds otherwise', () => {
  const plan = readPlan(planDir());
  it('names each differing fact by its path, and none when every asked fact agrees', () => {
    expect(diffPlans(plan, {})).toEqual([]);
    expect(diffPlans(plan, { seed: 3, driver: 'wrk', suite: 'tiny', design: { precision: 0.02, rounds: { ...DEFAULTS.rounds } } })).toEqual([]);
    expect(diffPlans(plan, { seed: 4, design: { precision: 0.05, budgetSec: 1080 }, overrides: { connections: 7 } })).toEqual(['seed', 'design.precision', 'overrides.connections']);
  });
  it('compares scenarios and targets as sets, options as asked (on or off), and an absent fact with one asked as absent', () => {
    expect(diffPlans(plan, { targets: ['b', 'a'], scenarios: ['ping'] })).toEqual([]);
    expect(diffPlans(plan, { targets: ['a'] })).toEqual(['targets']);
    expect(diffPlans(plan, { options: { costs: false, pinning: true, instructions: false, thresholds: [], runtimes: [], slo: undefined } })).toEqual([]);
    expect(diffPlans(plan, { options: { costs: true, verify: false, pinning: false } })).toEqual(['options.costs', 'options.verify', 'options.pinning']);
    expect(diffPlans(plan, { overrides: { duration: undefined } })).toEqual([]);
    expect(diffPlans(plan, { design: { reference: undefined } })).toEqual(['design.reference']);
  });
});
