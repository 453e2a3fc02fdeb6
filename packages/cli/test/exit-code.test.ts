// The run's exit code from its result: a capacity block that failed (a crash, a start that failed) fails the run.
import type { BenchResult } from '@benchsuite/sdk';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../src/_errors.js';
import { runExitCode } from '../src/commands/run.js';

const result = (failure?: string) =>
  ({
    interrupted: false,
    windows: [],
    blocks: [],
    verify: [],
    targets: [],
    capacity: [
      {
        scenario: 'baseline',
        target: 'koa',
        slo: 'p99<50ms',
        driver: 'oha',
        capacity: 9_000,
        interval: null,
        blocks: [
          { block: 1, capacity: 9_000, bracket: [9_000, 9_400], probes: [] },
          { block: 2, capacity: null, bracket: null, probes: [], ...(failure ? { failure } : {}) },
        ],
      },
    ],
  }) as unknown as BenchResult;

describe('runExitCode', () => {
  it('exits 1 when a capacity block failed, 0 when every block finished', () => {
    expect(runExitCode(result('server exited during the window (signal SIGSEGV)'))).toBe(EXIT.failed);
    expect(runExitCode(result())).toBe(EXIT.ok);
  });
});
