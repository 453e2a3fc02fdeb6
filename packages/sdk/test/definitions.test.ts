import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchsuiteConfigError, DEFAULTS, resolveReference, runSuite, validateSuite, type TargetInput } from '../src/index.js';
import { tiny, tinyServer } from './_helpers.js';
import { scratch } from '@benchsuite/testkit';

const ok = { name: 'ping', request: { path: '/ping' }, expect: { status: 200 } };

/** The issues of the BenchsuiteConfigError that `f` throws (fails the test if it throws anything else). */
function issuesOf(f: () => unknown): string[] {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(BenchsuiteConfigError);
    return (err as BenchsuiteConfigError).issues;
  }
  return expect.unreachable('expected a BenchsuiteConfigError') as never;
}

/** A process target that leaves a marker file the moment its command starts. */
function marking(marker: string): TargetInput {
  return { kind: 'process', name: 'marking', command: ['sh', '-c', `touch '${marker}' && exec '${process.execPath}' '${tinyServer}'`] };
}

describe('definitions are validated before anything starts', () => {
  it('names the field of a bad scenario by its full path', () => {
    const bad = { name: 'third', request: { path: '/x' }, expect: { status: 200 }, load: { connections: 'many' } };
    expect(() => validateSuite({ scenarios: [ok, { ...ok, name: 'two' }, bad as never], targets: [tiny('t')] })).toThrowError(/scenarios\[2\]\.load\.connections: /);
  });

  it('lists every bad field at once, each with its path', () => {
    const issues = issuesOf(() =>
      validateSuite({ scenarios: [{ name: 'Bad Name', request: { path: 'no-slash' }, expect: { status: 200 } } as never], targets: [{ kind: 'process', name: 't', command: [] } as never] }),
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^scenarios\[0\]\.name: expected a kebab-case name/),
        expect.stringMatching(/^scenarios\[0\]\.request\.path: must start with "\/"/),
        expect.stringMatching(/^targets\[0\]\.command: /),
      ]),
    );
  });

  it('rejects the options of the old trial-based design by name', () => {
    const issues = issuesOf(() => validateSuite({ scenarios: [ok], targets: [tiny('t')], trials: 3 } as never));
    expect(issues).toEqual([expect.stringMatching(/Unrecognized key: "trials"/)]);
  });

  it('requires exactly one of request / requests', () => {
    expect(() => validateSuite({ scenarios: [{ name: 'x', expect: { status: 200 } } as never], targets: [tiny('t')] })).toThrowError(
      /scenarios\[0\]\.request: give exactly one of "request" or "requests"/,
    );
  });

  it('rejects duplicate names and an unknown target kind', () => {
    expect(() => validateSuite({ scenarios: [ok, ok], targets: [tiny('t')] })).toThrowError(/scenarios\[1\]\.name: duplicate name "ping"/);
    expect(() => validateSuite({ scenarios: [ok], targets: [{ kind: 'docker', name: 'x' } as never] })).toThrowError(/targets\[0\]\.kind: /);
  });

  it('applies command-line overrides to every load profile; settling only to stepped loads', () => {
    const { scenarios } = validateSuite({ scenarios: [ok, { ...ok, name: 'ramp', load: { connections: [1, 2] } }], targets: [tiny('t')], overrides: { duration: 3, warmup: 0.5 } });
    // A fixed load's block warm-up covers settling; between the steps of a ramp it applies.
    expect(scenarios.map((s) => [s.load.duration, s.load.warmup])).toEqual([
      [3, undefined],
      [3, 0.5],
    ]);
    expect(scenarios[1]!.load.connections).toEqual([1, 2]);
    const c = validateSuite({ scenarios: [ok, { ...ok, name: 'ramp', load: { connections: [1, 2] } }], targets: [tiny('t')], overrides: { connections: 7 } }).scenarios;
    expect(c.map((s) => s.load.connections)).toEqual([7, 7]);
  });
});

describe('the measuring design', () => {
  it('defaults every field from DEFAULTS, and keeps what is given', () => {
    const { opts } = validateSuite({ scenarios: [ok], targets: [tiny('t')] });
    expect(opts.design).toEqual({
      windowSec: DEFAULTS.windowSec,
      warmup: DEFAULTS.warmup,
      rounds: DEFAULTS.rounds,
      blocks: DEFAULTS.blocks,
      processes: DEFAULTS.processes,
      warmupRequests: DEFAULTS.warmupRequests,
      carriedWarmupRounds: DEFAULTS.carriedWarmupRounds,
      carriedWarmupWindowSec: DEFAULTS.carriedWarmupWindowSec,
      carriedWarmupServed: DEFAULTS.carriedWarmupServed,
      method: DEFAULTS.method,
      precision: DEFAULTS.precision,
      budgetSec: DEFAULTS.budgetSec,
      stealThreshold: DEFAULTS.stealThreshold,
      practicalBand: DEFAULTS.practicalBand,
      bootstrapResamples: DEFAULTS.bootstrapResamples,
      capacityProbeSec: DEFAULTS.capacity.probeSec,
      youngGenerationMb: DEFAULTS.youngGenerationMb,
      memoryReducer: DEFAULTS.memoryReducer,
      control: DEFAULTS.control.kind,
      replicas: DEFAULTS.replicas,
    });
    const given = validateSuite({
      scenarios: [ok],
      targets: [tiny('t'), tiny('u')],
      design: { reference: 'u', rounds: { min: 4 }, warmup: { maxSec: 8 }, precision: 0.05, processes: 'per-scenario', carriedWarmupRounds: 3, carriedWarmupWindowSec: 0.7, method: 'sequential' },
    }).opts.design;
    expect(given.method).toBe('sequential');
    expect(given.reference).toBe('u');
    expect(given.rounds).toEqual({ min: 4, max: DEFAULTS.rounds.max });
    expect(given.processes).toBe('per-scenario');
    expect(given.carriedWarmupRounds).toBe(3);
    expect(given.carriedWarmupWindowSec).toBe(0.7);
    expect(given.warmup).toEqual({ ...DEFAULTS.warmup, maxSec: 8 });
    expect(given.precision).toBe(0.05);
    expect(given.blocks).toEqual(DEFAULTS.blocks);
  });

  it('asks a fresh warm-up for DEFAULTS.warmupServedPerScenario requests per scenario it sends, at least DEFAULTS.warmup.served, unless the design gives a number', () => {
    const scenarios = (k: number) => Array.from({ length: k }, (_, i) => ({ ...ok, name: `s${i}` }));
    const served = (k: number, design = {}) => validateSuite({ scenarios: scenarios(k), targets: [tiny('t')], design }).opts.design.warmup.served;
    const shared = { processes: 'shared' };
    expect(served(3, shared)).toBe(3 * DEFAULTS.warmupServedPerScenario);
    expect(served(9, shared)).toBe(9 * DEFAULTS.warmupServedPerScenario);
    expect(served(2, shared)).toBe(DEFAULTS.warmup.served);
    // Warmed on one scenario's requests: the least (processes per scenario are the default).
    expect(served(9)).toBe(DEFAULTS.warmup.served);
    expect(served(9, { processes: 'per-scenario' })).toBe(DEFAULTS.warmup.served);
    expect(served(9, { ...shared, warmupRequests: 'first-scenario' })).toBe(DEFAULTS.warmup.served);
    expect(served(9, { warmup: { served: 5000 } })).toBe(5000);
    expect(served(9, { warmup: { served: 0 } })).toBe(0);
  });
  it('lists every design problem at once: unknown keys, a reference that is not a target, inverted ranges', () => {
    const issues = issuesOf(() =>
      validateSuite({
        scenarios: [ok],
        targets: [tiny('a'), tiny('b')],
        design: { reference: 'node-http', rounds: { min: 5, max: 2 }, blocks: { min: 0 }, warmup: { minSec: 3, maxSec: 1 }, precision: 2, windowsec: 1 } as never,
      }),
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^design: Unrecognized key: "windowsec"/),
        expect.stringMatching(/^design\.rounds: max must be ≥ min/),
        expect.stringMatching(/^design\.blocks\.min: /),
        expect.stringMatching(/^design\.warmup: maxSec must be ≥ minSec/),
        expect.stringMatching(/^design\.precision: /),
        'design.reference: "node-http" is not a target of this suite; expected one of: a, b',
      ]),
    );
    expect(issues).toHaveLength(6);
  });

  it('refuses a design option measurements rejected, saying why, once', () => {
    const issues = issuesOf(() => validateSuite({ scenarios: [ok], targets: [tiny('t')], design: { freshWarmup: 'one-by-one', precision: 0.05 } as never }));
    expect(issues).toEqual([expect.stringMatching(/^design\.freshWarmup: removed: .*rotation rounds/)]);
  });

  it('the reference: the one given, else node-http when it is a target, else the first target', () => {
    const t = (...names: string[]) => names.map((name) => ({ name }));
    expect(resolveReference({ reference: 'b' }, t('a', 'b'))).toBe('b');
    expect(resolveReference({}, t('a', 'node-http'))).toBe('node-http');
    expect(resolveReference({}, t('a', 'b'))).toBe('a');
  });
});

describe('runSuite rejects before starting any process', () => {
  it('a bad scenario field', async () => {
    await expect(runSuite({ scenarios: [{ ...ok, load: { duration: -1 } } as never], targets: [tiny('t')] })).rejects.toThrowError(/scenarios\[0\]\.load\.duration/);
  });

  it('bad design options: every problem in one error, and the target command never ran', async () => {
    const marker = join(scratch('bs-marker'), 'started');
    const err = await runSuite({
      scenarios: [ok],
      targets: [marking(marker)],
      design: { reference: 'other', rounds: { min: 3, max: 1 }, bogus: true } as never,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BenchsuiteConfigError);
    expect((err as BenchsuiteConfigError).issues).toEqual([
      'design.rounds: max must be ≥ min',
      'design: Unrecognized key: "bogus"',
      'design.reference: "other" is not a target of this suite; expected one of: marking',
    ]);
    expect(existsSync(marker)).toBe(false);
  });

  it('the marker does appear when the same target is valid and started (the check above can fail)', async () => {
    const marker = join(scratch('bs-marker'), 'started');
    // A verify-only scenario: the target is started once and sent one request, no load.
    const r = await runSuite({ scenarios: [{ ...ok, verifyOnly: true, expect: { status: 200, json: { ok: true } } }], targets: [marking(marker)], driver: 'autocannon' });
    expect(existsSync(marker)).toBe(true);
    expect(r.verify).toEqual([{ scenario: 'ping', target: 'marking', ok: true }]);
    expect(r.windows).toEqual([]);
  });

  it('an unknown driver', async () => {
    await expect(runSuite({ scenarios: [ok], targets: [tiny('t')], driver: 'gatling' })).rejects.toThrowError(BenchsuiteConfigError);
    await expect(runSuite({ scenarios: [ok], targets: [tiny('t')], driver: 'gatling' })).rejects.toThrowError(/driver: unknown driver "gatling"; expected one of: auto, wrk, h2load, autocannon/);
  });

  it('resume without a folder, or from a folder that holds no run, names what is missing', async () => {
    await expect(runSuite({ scenarios: [ok], targets: [tiny('t')], resume: true })).rejects.toThrowError(/resume: needs outDir/);
    const empty = scratch('bs-no-run');
    const err = await runSuite({ scenarios: [ok], targets: [tiny('t')], resume: true, outDir: empty }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BenchsuiteConfigError);
    expect((err as Error).message).toContain(empty);
    expect((err as Error).message).toMatch(/holds no run to resume/);
  });
});
