import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RESULT_SCHEMA_VERSION, decodeHistogram, resultSchema } from '@benchsuite/sdk';
import { loadFixture, loadStacks, resummarize } from './helpers.js';

describe('the test fixture', () => {
  const raw = JSON.parse(readFileSync(new URL('./fixtures/result.json', import.meta.url), 'utf8'));

  it('is a valid result document of the current version', () => {
    expect(() => resultSchema.parse(raw)).not.toThrow();
    expect(raw.schemaVersion).toBe(RESULT_SCHEMA_VERSION);
  });

  it('covers what the reports must show', () => {
    const r = loadFixture();
    const ok = r.windows.filter((w) => w.status === 'ok');
    expect(r.summaries.some((s) => s.steps.length > 1)).toBe(true);
    expect(r.targets.find((t) => t.status === 'skipped')?.reason).toBe('swift not found on PATH');
    expect(r.verify.some((v) => !v.ok)).toBe(true);
    expect(r.windows.some((w) => w.status === 'failed' && w.failure.phase === 'crash')).toBe(true);
    expect(ok.some((w) => w.clientBound)).toBe(true);
    expect(ok.some((w) => w.serverNotSaturated)).toBe(true);
    expect(ok.filter((w) => w.excluded === 'steal')).toHaveLength(1);
    expect(r.blocks.some((b) => b.extraRounds === 1)).toBe(true);
    expect(r.blocks.some((b) => b.targets.some((t) => !t.steady))).toBe(true);
    expect(r.targets.some((t) => t.costs)).toBe(true);
    expect(r.rankings.some((k) => k.places.some((p) => p.targets.length > 1))).toBe(true);
    expect(r.stops.map((s) => s.reason).sort()).toEqual(['budget', 'max-blocks', 'precision']);
    expect(r.summaries.some((s) => s.precision.met)).toBe(true);
    expect(r.summaries.some((s) => !s.precision.met)).toBe(true);
    expect(r.profiles.map((p) => p.status).sort()).toEqual(['failed', 'ok', 'ok', 'unavailable']);
    expect(r.profiles.find((p) => p.status === 'unavailable')?.reason).toBeTruthy();
    expect(r.profiles.some((p) => p.summary?.top.some((f) => f.name.includes('<') && f.name.includes('&')))).toBe(true);
  });

  it('holds profile summaries that the SDK computes from its stacks files', () => {
    const r = loadFixture();
    for (const p of r.profiles.filter((x) => x.summary)) {
      const text = loadStacks(r)[p.summary!.stacksFile!]!;
      const weight = text
        .trim()
        .split('\n')
        .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
      expect(p.summary!.weight).toBe(weight);
      expect(p.summary!.byPackage.reduce((a, g) => a + g.self, 0)).toBeCloseTo(1, 3);
    }
  });

  it('holds exactly the summaries and rankings the SDK computes from its windows', () => {
    const r = loadFixture();
    const again = resummarize(loadFixture());
    expect(again.summaries).toEqual(r.summaries);
    expect(again.rankings).toEqual(r.rankings);
  });

  it('has histograms that decode to the stored latency counts', () => {
    const r = loadFixture();
    for (const s of r.summaries) expect(decodeHistogram(s.histogram).totalCount).toBe(s.latency.count);
  });
});
