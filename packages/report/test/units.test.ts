// Wording of wall times (units.ts) and of the design (model.ts).
import { describe, expect, it } from 'vitest';
import { runHeaderFacts, warmupText, type RunOutlook } from '../src/model.js';
import { fmtDuration } from '../src/units.js';

describe('fmtDuration', () => {
  it('rounds to the unit it shows, so seconds and minutes never read 60', () => {
    expect(fmtDuration(12.34)).toBe('12.3 s');
    expect(fmtDuration(59.96)).toBe('1 min 00 s');
    expect(fmtDuration(359.6)).toBe('6 min 00 s');
    expect(fmtDuration(1075)).toBe('17 min 55 s');
    expect(fmtDuration(3599.6)).toBe('1 h 00 min');
    expect(fmtDuration(7170)).toBe('2 h 00 min');
    expect(fmtDuration(3725)).toBe('1 h 02 min');
  });
  it('shows a dash for what is not a duration', () => {
    expect(fmtDuration(-1)).toBe('—');
    expect(fmtDuration(Number.NaN)).toBe('—');
  });
});

const d = {
  windowSec: 0.8,
  rounds: { min: 3, max: 20 },
  blocks: { min: 2, max: 12 },
  warmup: { minSec: 2, maxSec: 3, tolerance: 0.05 },
  processes: 'shared' as const,
  freshWarmup: 'rotation' as const,
  carriedWarmupRounds: 1,
  carriedWarmupWindowSec: 0.5,
};

describe('warmupText', () => {
  it('says how a block warmed its fresh processes: in rotation, or one by one with a wake-up window each', () => {
    expect(warmupText(d)).toBe(
      '2–3 s per target in each block, the targets in rotation (one 1-s window each per round), until per-second req/s is within ±5%, then 1 rotation round of 0.5-s windows before each later scenario',
    );
    expect(warmupText({ ...d, freshWarmup: 'one-by-one' })).toBe(
      '2–3 s per block until per-second req/s is within ±5%, one target after another, then a wake-up window each, then 1 rotation round of 0.5-s windows before each later scenario',
    );
    expect(warmupText({ ...d, processes: 'per-scenario' })).not.toContain('rotation round');
    // Warmed on every scenario's requests: no rotation round, whatever the design's count says.
    expect(warmupText({ ...d, warmupRequests: 'all-scenarios' })).toBe(
      "2–3 s per target in each block, the targets in rotation (one 1-s window each per round), until per-second req/s is within ±5%, on every scenario's requests of the block at once, so no rotation round before a later scenario",
    );
  });
});

describe("the run's header", () => {
  const o: RunOutlook = {
    suite: 'framework',
    scenarios: ['baseline', 'json-post'],
    targets: ['node-http', 'express', 'fastify'],
    reference: 'node-http',
    design: { ...d, precision: 0.02, budgetSec: 1080 },
    minimumSec: 477,
    driver: { name: 'wrk', reason: 'wrk has the highest ceiling of the drivers available' },
  };
  it('is a few short lines: suite, targets, budget and what it buys, design, driver and why', () => {
    expect(runHeaderFacts(o)).toEqual([
      { label: 'suite', text: 'framework: 2 scenarios × 3 targets' },
      { label: 'targets', text: 'node-http (reference), express, fastify' },
      { label: 'budget', text: '18 min 00 s to bring every interval within ±2.0%; the minimum design takes about 7 min 57 s' },
      { label: 'design', text: '0.8 s windows, 3–20 rounds per block, 2–12 blocks of fresh processes shared by every scenario' },
      { label: 'driver', text: 'wrk: wrk has the highest ceiling of the drivers available' },
    ]);
    for (const f of runHeaderFacts(o)) expect((f.text as string).length).toBeLessThanOrEqual(100);
  });
  it('says the half-width the budget is expected to reach when the plan has one, and nothing without', () => {
    const budget = (x: RunOutlook) => runHeaderFacts(x).find((f) => f.label === 'budget')!.text;
    expect(budget({ ...o, expectedHalfWidth: 0.013 })).toBe('18 min 00 s to bring every interval within ±2.0% (expected: about ±1.3%); the minimum design takes about 7 min 57 s');
    expect(budget(o)).not.toContain('expected');
    expect(runHeaderFacts({ ...o, requests: 100, design: { ...o.design, processes: 'per-scenario' } }).find((f) => f.label === 'design')!.text).toBe(
      'windows of exactly 100 requests each (per connection step), 3–20 rounds per block, 2–12 blocks of fresh processes per scenario',
    );
  });
});
