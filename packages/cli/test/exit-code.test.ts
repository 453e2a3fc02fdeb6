// How `run` chooses its exit code, on results built by hand (no server): a target that failed
// verify fails every threshold named on it, so the run exits with the thresholds' code, not 1; a
// capacity block that failed (a crash, a start that failed) fails the run.
import { DEFAULTS, failedVerifyOutcomes, parseThresholds, type BenchResult } from '@benchsuite/sdk';
import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../report/test/helpers.js';
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
  const clean = (): BenchResult => ({ ...loadFixture(), interrupted: false, windows: [], blocks: [], thresholds: undefined });
  const wrong = { scenario: 'baseline', target: 'koa', ok: false, reason: 'status 500, expected 200' };

  it(`exits ${DEFAULTS.thresholdExitCode} when a target that failed verify had thresholds named on it`, () => {
    const r = { ...clean(), verify: [wrong], thresholds: failedVerifyOutcomes(wrong, parseThresholds('errors<1%')) };
    expect(r.thresholds[0]).toMatchObject({ pass: false, measured: null, failedVerify: 'status 500, expected 200' });
    expect(runExitCode(r)).toBe(DEFAULTS.thresholdExitCode);
  });

  it('exits 1 when a target failed verify and no threshold was named', () => {
    expect(runExitCode({ ...clean(), verify: [wrong] })).toBe(1);
  });
  it('exits 1 when a capacity block failed, 0 when every block finished', () => {
    expect(runExitCode(result('server exited during the window (signal SIGSEGV)'))).toBe(EXIT.failed);
    expect(runExitCode(result())).toBe(EXIT.ok);
  });
});
