// Wording of wall times (format.ts) and of the design (model.ts).
import { describe, expect, it } from 'vitest';
import { designText } from '../src/model.js';
import { fmtDuration } from '../src/format.js';

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

describe('designText', () => {
  const d = {
    windowSec: 0.8,
    rounds: { min: 3, max: 20 },
    blocks: { min: 2, max: 12 },
    warmup: { minSec: 2, maxSec: 3, tolerance: 0.05 },
    processes: 'shared' as const,
    carriedWarmupRounds: 1,
    carriedWarmupWindowSec: 0.5,
  };
  it('says how a block warmed its fresh processes: in rotation, or one by one with a wake-up window each (results from before the field)', () => {
    expect(designText({ ...d, freshWarmup: 'rotation' })).toContain(
      'warm-up 2–3 s per target in each block, the targets in rotation (one 1-s window each per round), until per-second req/s is within ±5%, then 1 rotation round of 0.5-s windows before each later scenario',
    );
    for (const freshWarmup of ['one-by-one', undefined] as const) {
      expect(designText({ ...d, freshWarmup })).toContain('warm-up 2–3 s per block until per-second req/s is within ±5%, one target after another, then a wake-up window each, then 1 rotation round');
    }
  });
});
