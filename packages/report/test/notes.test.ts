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
