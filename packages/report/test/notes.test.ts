// The sentences about verdicts (notes.ts), on fixed verdicts from the SDK's estimators.
import { DEFAULTS, pairVerdict, runVerdict, type VerdictBand } from '@benchsuite/sdk';
import { describe, expect, it } from 'vitest';
import { noteText, pairVerdictText } from '../src/notes.js';

describe('verdict sentences', () => {
  it("a pair's verdict: its word, then the blocks' and the windows' CoV", () => {
    const v = pairVerdict(
      [
        [0.9, 0.98, 1.5],
        [1.02, 0.5, 1.1],
      ],
      0.06,
      DEFAULTS.covBands,
    )!;
    expect(pairVerdictText(v)).toBe('Excellent (blocks 2.8%, windows 6.0%)');
    expect(pairVerdictText(null)).toBe('—');
  });

  it("the run's verdict is said in words with its counts", () => {
    const bands: VerdictBand[] = [...Array<VerdictBand>(9).fill('excellent'), 'noisy'];
    const v = runVerdict(bands, 0.9)!;
    expect(noteText({ kind: 'run-verdict', verdict: v })).toBe('Excellent — at least 90% of 10 pairs are Excellent or better (9 Excellent, 1 Noisy; worst Noisy)');
  });
});

describe('resume sentence', () => {
  it('says what was replayed and the plan the run continues with', () => {
    const text = noteText({
      kind: 'resume',
      dir: '/tmp/run',
      replayed: { windows: 11, blocks: 1, checks: 0, costs: 2 },
      seed: 7,
      driver: 'wrk',
      overrides: { connections: 10 },
      verify: false,
      pinning: true,
      costs: true,
    });
    expect(text).toBe(
      'resume: replaying 11 windows, 1 block, 0 checks and 2 cost figures from /tmp/run; continuing with seed 7, driver wrk, overrides {"connections":10}, verify off, pinning on, costs on',
    );
  });
});
