import { describe, expect, it } from 'vitest';
import { toGithubActionBenchmark } from '../src/index.js';
import { loadFixture } from './helpers.js';

describe('toGithubActionBenchmark', () => {
  it('emits customBiggerIsBetter entries: {name, unit, value, range, extra}, one per pair and per step', () => {
    const entries = toGithubActionBenchmark(loadFixture());
    expect(entries.map((e) => e.name)).toEqual([
      'plaintext / node-http', 'plaintext / fastify', 'plaintext / express',
      'json-validate / node-http', 'json-validate / fastify',
      'plaintext-steps / node-http',
      'plaintext-steps / node-http @ 16 connections', 'plaintext-steps / node-http @ 64 connections', 'plaintext-steps / node-http @ 256 connections',
      'plaintext-steps / fastify',
      'plaintext-steps / fastify @ 16 connections', 'plaintext-steps / fastify @ 64 connections', 'plaintext-steps / fastify @ 256 connections',
      'plaintext-steps / express',
      'plaintext-steps / express @ 16 connections', 'plaintext-steps / express @ 64 connections', 'plaintext-steps / express @ 256 connections',
    ]);
    expect(entries[0]).toMatchInlineSnapshot(`
      {
        "extra": "trials: 3
      CoV: 2.7%
      verdict: acceptable
      p99: 2.721 ms
      client-bound trials: 1 (RPS is the load generator's ceiling)",
        "name": "plaintext / node-http",
        "range": "± 4117.3",
        "unit": "req/s",
        "value": 61384.3,
      }
    `);
    for (const e of entries) {
      expect(Object.keys(e).every((k) => ['name', 'unit', 'value', 'range', 'extra'].includes(k))).toBe(true);
      expect(typeof e.value).toBe('number');
    }
  });

  it('emits customSmallerIsBetter p99 entries in ms', () => {
    const [first] = toGithubActionBenchmark(loadFixture(), { metric: 'p99' });
    expect(first).toMatchObject({ name: 'plaintext / node-http', unit: 'ms' });
    expect(first!.value).toBeGreaterThan(1);
    expect(first!.value).toBeLessThan(10);
  });
});
