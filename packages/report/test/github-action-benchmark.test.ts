import { describe, expect, it } from 'vitest';
import { toGithubActionBenchmark } from '../src/index.js';
import { loadFixture } from './helpers.js';

describe('toGithubActionBenchmark', () => {
  const r = loadFixture();
  const pair = (scenario: string, target: string) => r.summaries.find((x) => x.scenario === scenario && x.target === target)!;

  it('emits customBiggerIsBetter req/s entries {name, unit, value, range, extra}, one per pair and per step', () => {
    const entries = toGithubActionBenchmark(r);
    expect(entries.map((e) => e.name)).toEqual([
      'baseline / node-http',
      'baseline / fastify',
      'baseline / express',
      'json-post / node-http',
      'json-post / fastify',
      'concurrency-ramp / node-http',
      'concurrency-ramp / node-http @ 10 connections',
      'concurrency-ramp / node-http @ 50 connections',
      'concurrency-ramp / node-http @ 200 connections',
      'concurrency-ramp / fastify',
      'concurrency-ramp / fastify @ 10 connections',
      'concurrency-ramp / fastify @ 50 connections',
      'concurrency-ramp / fastify @ 200 connections',
      'concurrency-ramp / express',
      'concurrency-ramp / express @ 10 connections',
      'concurrency-ramp / express @ 50 connections',
      'concurrency-ramp / express @ 200 connections',
    ]);
    for (const e of entries) {
      expect(Object.keys(e).every((k) => ['name', 'unit', 'value', 'range', 'extra'].includes(k))).toBe(true);
      expect(e.unit).toBe('req/s');
      expect(typeof e.value).toBe('number');
    }
    const p = pair('baseline', 'fastify');
    const e = entries[1]!;
    expect(e.value).toBe(Math.round(p.rps.point * 10) / 10);
    expect(e.range).toBe(`± ${Math.round(((p.rps.ci95![1] - p.rps.ci95![0]) / 2) * 10) / 10}`);
    expect(e.extra!.split('\n')).toEqual([
      expect.stringMatching(/^95% interval: \[\d+(\.\d)?, \d+(\.\d)?\]; n = 16$/),
      expect.stringMatching(/^relative to node-http: 0\.7\d\d \[0\.7\d\d, 0\.7\d\d\]$/),
      expect.stringMatching(/^precision ±1\.\d% \(target ±2\.0%\) met$/),
      'noise: disturbed, steal 2.1%',
      'blocks: 2; windows: 16 used, 1 left out for steal, 0 failed',
      `p99: ${(p.latency.p99 / 1000).toFixed(3)} ms`,
    ]);
    expect(entries[0]!.extra).toContain("client-bound windows: 1 (req/s there is the load generator's ceiling)");
  });

  it('emits the side-by-side ratio for `relative`, leaving out the reference', () => {
    const entries = toGithubActionBenchmark(r, { metric: 'relative' });
    expect(entries.some((e) => e.name.includes('node-http'))).toBe(false);
    const e = entries.find((x) => x.name === 'baseline / fastify')!;
    expect(e).toMatchObject({ unit: '× node-http', value: Math.round(pair('baseline', 'fastify').relativeRps!.point * 1e4) / 1e4 });
    expect(entries.filter((x) => x.name.startsWith('concurrency-ramp / fastify @'))).toHaveLength(3);
  });

  it('emits customSmallerIsBetter figures: CPU µs per request and p99 in ms', () => {
    const cpu = toGithubActionBenchmark(r, { metric: 'cpu' });
    expect(cpu).toHaveLength(8);
    expect(cpu[0]).toMatchObject({ name: 'baseline / node-http', unit: 'µs/req', value: Math.round(pair('baseline', 'node-http').cpuPerRequestUs!.point * 100) / 100 });
    const [first] = toGithubActionBenchmark(r, { metric: 'p99' });
    expect(first).toMatchObject({ name: 'baseline / node-http', unit: 'ms', value: Math.round(pair('baseline', 'node-http').latency.p99) / 1000 });
  });

  it('re-estimates against another reference when asked', () => {
    const e = toGithubActionBenchmark(loadFixture(), { metric: 'relative', reference: 'fastify' }).find((x) => x.name === 'baseline / node-http')!;
    expect(e.unit).toBe('× fastify');
    expect(e.value).toBeCloseTo(1 / pair('baseline', 'fastify').relativeRps!.point, 1);
  });
});
