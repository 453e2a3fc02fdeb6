// What a resumed run skips: the run's state answers whether a step is done (run/state.ts). No process starts here.
import { describe, expect, it } from 'vitest';
import { doneRecord, emptyState, isDone, reduce, type RunEvent, type RunState } from '../src/run/state.js';

// Only the fields the queries read: the records' other figures do not decide anything.
const stateOf = (events: readonly unknown[]): RunState => (events as RunEvent[]).reduce(reduce, emptyState());

describe('isDone', () => {
  it('is false for every step of a new run', () => {
    const s = emptyState();
    expect(isDone(s, { step: 'block', scenario: 'a', block: 1 })).toBe(false);
    expect(isDone(s, { step: 'verify', scenario: 'a', target: 'x' })).toBe(false);
    expect(isDone(s, { step: 'costs', target: 'x' })).toBe(false);
    expect(isDone(s, { step: 'stream', scenario: 'a', target: 'x', block: 1 })).toBe(false);
  });

  it("holds a block's part once recorded, or once a kill cut it short after a window; not another scenario's or block's", () => {
    const recorded = stateOf([{ record: 'block', block: { scenario: 'a', block: 1, rounds: 2 } }]);
    expect(isDone(recorded, { step: 'block', scenario: 'a', block: 1 })).toBe(true);
    expect(isDone(recorded, { step: 'block', scenario: 'a', block: 2 })).toBe(false);
    expect(isDone(recorded, { step: 'block', scenario: 'b', block: 1 })).toBe(false);
    const cut = stateOf([{ record: 'window', window: { scenario: 'a', block: 2, index: 0 } }]);
    expect(isDone(cut, { step: 'block', scenario: 'a', block: 2 })).toBe(true);
  });

  it('holds each per-target step for its (scenario, target) only', () => {
    const s = stateOf([
      { record: 'verify', outcome: { scenario: 'a', target: 'x', ok: true } },
      { record: 'profile', profile: { scenario: 'a', target: 'x' } },
      { record: 'instructions', instructions: { scenario: 'a', target: 'y' } },
      { record: 'capacity', capacity: { scenario: 'b', target: 'x' } },
    ]);
    expect(isDone(s, { step: 'verify', scenario: 'a', target: 'x' })).toBe(true);
    expect(isDone(s, { step: 'verify', scenario: 'a', target: 'y' })).toBe(false);
    expect(isDone(s, { step: 'profile', scenario: 'a', target: 'x' })).toBe(true);
    expect(isDone(s, { step: 'profile', scenario: 'b', target: 'x' })).toBe(false);
    expect(isDone(s, { step: 'instructions', scenario: 'a', target: 'y' })).toBe(true);
    expect(isDone(s, { step: 'capacity', scenario: 'b', target: 'x' })).toBe(true);
  });

  it("holds a ceiling per scenario and the loader's floor per (scenario, block)", () => {
    const s = stateOf([
      { record: 'ceiling', ceiling: { scenario: 'a' } },
      { record: 'floor-window', window: { scenario: 'a', block: 1 } },
    ]);
    expect(isDone(s, { step: 'ceiling', scenario: 'a' })).toBe(true);
    expect(isDone(s, { step: 'ceiling', scenario: 'b' })).toBe(false);
    expect(isDone(s, { step: 'floor', scenario: 'a', block: 1 })).toBe(true);
    expect(isDone(s, { step: 'floor', scenario: 'a', block: 2 })).toBe(false);
  });
});

describe('doneRecord', () => {
  it('gives the record that made a step done: costs by target, a capacity block and a stream block by number', () => {
    const costs = { startupMs: { median: 5 } };
    const s = stateOf([
      { record: 'costs', target: 'x', costs },
      { record: 'capacity-block', scenario: 'a', target: 'x', block: { block: 2, probes: [] } },
      { record: 'stream', scenario: 's', target: 'x', block: { block: 1, status: 'ok' } },
      { record: 'stream', scenario: 's', target: 'x', block: { block: 2, status: 'failed' } },
    ]);
    expect(doneRecord(s, { step: 'costs', target: 'x' })).toBe(costs);
    expect(doneRecord(s, { step: 'costs', target: 'y' })).toBeUndefined();
    expect(doneRecord(s, { step: 'capacity-block', scenario: 'a', target: 'x', block: 2 })).toEqual({ block: 2, probes: [] });
    expect(doneRecord(s, { step: 'capacity-block', scenario: 'a', target: 'x', block: 1 })).toBeUndefined();
    expect(doneRecord(s, { step: 'stream', scenario: 's', target: 'x', block: 2 })?.status).toBe('failed');
    expect(doneRecord(s, { step: 'stream', scenario: 's', target: 'y', block: 1 })).toBeUndefined();
  });
});
