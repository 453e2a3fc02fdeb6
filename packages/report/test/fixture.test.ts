import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeHistogram, resultSchema } from '@benchsuite/sdk';

describe('the test fixture', () => {
  const raw = JSON.parse(readFileSync(new URL('./fixtures/result.json', import.meta.url), 'utf8'));

  it('is a valid result document', () => {
    expect(() => resultSchema.parse(raw)).not.toThrow();
  });

  it('covers what the report must show: stepped load, skipped, failed verify, crash, client-bound, noisy pair, costs', () => {
    const r = resultSchema.parse(raw);
    expect(r.summaries.some((s) => s.steps.length > 1)).toBe(true);
    expect(r.targets.find((t) => t.status === 'skipped')?.reason).toBe('swift not found on PATH');
    expect(r.verify.some((v) => !v.ok)).toBe(true);
    expect(r.trials.some((t) => t.status === 'failed' && t.failure.phase === 'crash')).toBe(true);
    expect(r.trials.some((t) => t.status === 'ok' && t.clientBound)).toBe(true);
    expect(r.summaries.some((s) => s.verdict === 'noisy')).toBe(true);
    expect(r.targets.some((t) => t.costs)).toBe(true);
    expect(r.rankings.some((k) => k.places.some((p) => p.targets.length > 1))).toBe(true);
  });

  it('has histograms that decode to the stored latency counts', () => {
    const r = resultSchema.parse(raw);
    for (const s of r.summaries) expect(decodeHistogram(s.histogram).totalCount).toBe(s.latency.count);
  });
});
