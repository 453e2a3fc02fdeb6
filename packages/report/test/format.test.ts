// Wall-time wording (format.ts): rounded once, to the unit shown.
import { describe, expect, it } from 'vitest';
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
