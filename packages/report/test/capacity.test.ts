// The capacity section (--slo) in every renderer: a server's capacity with its 95% interval, a
// loader-bound one as a lower bound with the rate where the loader gave out and the driver named
// (and a note that says so), why an interval is missing, and an older result without these fields.
import type { BenchResult, Capacity } from '@benchsuite/sdk';
import { resultSchema } from '@benchsuite/sdk';
import { describe, expect, it } from 'vitest';
import { renderHtml, renderMarkdown, renderTerminal } from '../src/index.js';
import { loadFixture } from './helpers.js';

const probe = { rate: 20_000, achievedRps: 19_990, p50: 900, p99: 4_000, errorShare: 0, meets: true, failed: null };
const block = (n: number, capacity: number, o: Partial<Capacity['blocks'][number]> = {}): Capacity['blocks'][number] => ({
  block: n,
  capacity,
  bracket: [capacity, Math.round(capacity * 1.04)],
  probes: [probe, { ...probe, rate: 40_000, meets: false, failed: 'p99<50ms' }, { ...probe, rate: 40_000, meets: false, failed: 'p99<50ms', confirmation: true }],
  bound: 'server',
  ...o,
});

function withCapacity(): BenchResult {
  const r = loadFixture();
  r.capacity = [
    {
      scenario: 'baseline',
      target: 'fastify',
      slo: 'p99<50ms',
      driver: 'oha',
      capacity: 21_000,
      interval: [20_000, 22_000],
      blocks: [block(1, 20_000), block(2, 21_000), block(3, 22_000)],
      bound: 'server',
      ci95: [18_100, 24_300],
    },
    {
      scenario: 'baseline',
      target: 'node-http',
      slo: 'p99<50ms',
      driver: 'oha',
      capacity: 28_400,
      interval: [28_000, 29_000],
      blocks: [block(1, 28_400, { bound: 'loader', loaderBoundAt: 29_600 }), block(2, 28_000), block(3, 29_000)],
      bound: 'loader',
      loaderBoundAt: 29_600,
      ci95: null,
      ci95Missing: 'lower-bound',
    },
    { scenario: 'baseline', target: 'koa', slo: 'p99<50ms', driver: 'oha', capacity: 9_000, interval: [9_000, 9_300], blocks: [block(1, 9_000)], bound: 'server', ci95: null, ci95Missing: 'blocks' },
  ];
  return resultSchema.parse(r);
}

/** The result in every renderer, with the renderer's name. */
const renders = (r: BenchResult) =>
  [
    ['markdown', renderMarkdown(r)],
    ['terminal', renderTerminal(r, { color: false })],
    ['html', renderHtml(r)],
  ] as const;

const g = (n: number) => n.toLocaleString('en-US').replace(/,/g, '\u202f');

describe('capacity section', () => {
  it('shows a server capacity with its interval, a loader-bound one as a lower bound naming the driver and the rate, and why an interval is missing', () => {
    const r = withCapacity();
    for (const [name, text] of renders(r)) {
      expect(text, name).toContain(`[${g(18_100)}, ${g(24_300)}]`);
      expect(text, name).toContain(`≥ ${g(28_400)}`);
      expect(text, name).toContain(`loader at ${g(29_600)} (oha)`);
      expect(text, name).toContain('none (a lower bound)');
      expect(text, name).toContain('none (under 2 blocks gave one)');
      expect(text, name).toMatch(/the open-loop loader \(oha\) was the limit of 1 capacity search \(node-http on baseline ≥ 28,400, loader-bound at 29,600 req\/s\)/i);
    }
  });

  it('still renders an older result whose capacity has no bound, interval or probe windows', () => {
    const r = loadFixture();
    r.capacity = [
      {
        scenario: 'baseline',
        target: 'koa',
        slo: 'p99<50ms',
        driver: 'k6',
        capacity: 7_265,
        interval: [6_147, 8_383],
        blocks: [{ block: 1, capacity: 7_265, bracket: [7_265, 7_600], probes: [probe] }],
      },
    ];
    const old = resultSchema.parse(r);
    const md = renderMarkdown(old);
    expect(md).toContain(g(7_265));
    expect(md).not.toContain(`≥ ${g(7_265)}`);
    expect(md).toContain(`[${g(6_147)}, ${g(8_383)}] (range)`);
    expect(renderTerminal(old, { color: false })).toContain(g(7_265));
    expect(renderHtml(old)).toContain(g(7_265));
  });

  it('a capacity run (--slo, no windows of rounds) shows its search and SLO, not an empty scenario table, rankings or ratios', () => {
    const r = withCapacity();
    r.windows = [];
    r.summaries = [];
    r.rankings = [];
    r.stops = [];
    r.profiles = [];
    r.design.capacity = { blocks: 3, startShare: 0.5, growth: 2, resolution: 0.05, maxProbes: 20, keptUpShare: 0.95, lateShare: 0.01, confirmFailures: true };
    r.design.capacityProbeSec = 2;
    r.scenarios = r.scenarios.filter((s) => s.name === 'baseline');
    r.verify = r.verify.filter((v) => v.scenario === 'baseline');
    r.targets = r.targets.filter((t) => ['fastify', 'node-http', 'koa'].includes(t.name));
    const run = resultSchema.parse(r);
    for (const [name, text] of renders(run)) {
      expect(text, name).toContain(`[${g(18_100)}, ${g(24_300)}]`);
      expect(text, name).toMatch(/3 blocks of fresh processes per target, each warmed closed-loop [\d–]+ s, then open-loop probes of 2 s/);
      expect(text, name).toMatch(/p99(<|&lt;)50ms: each target('|&#39;)s capacity is the highest offered rate that meets it/);
      expect(text, name).toMatch(/capacities are each target('|&#39;)s own req\/s, not ratios/i);
      expect(text, name).not.toMatch(/not run|no window was recorded|Rankings|relative figures are ratios|Precision target|rounds? per block/i);
    }
  });
});

describe('a capacity block that failed', () => {
  it('is said in every renderer: the table counts it and a note names the pair, the block and why', () => {
    const r = withCapacity();
    r.capacity![0]!.blocks[2] = { block: 3, capacity: null, bracket: null, probes: [probe], failure: 'server exited during the window (signal SIGSEGV)' };
    const run = resultSchema.parse(r);
    for (const [name, text] of renders(run)) {
      expect(text, name).toContain('3 (1 failed)');
      expect(text, name).toMatch(/1 capacity block failed \(fastify on baseline, block 3: server exited during the window \(signal SIGSEGV\)\)/);
    }
  });

  it('says how the loader was found the limit: its late sends alone, not its CPU', () => {
    const r = withCapacity();
    const c = r.capacity![1]!;
    c.blocks[0]!.probes[1] = { ...c.blocks[0]!.probes[1]!, loaderBound: true, loaderEvidence: 'late' };
    const md = renderMarkdown(resultSchema.parse(r));
    expect(md).toMatch(/its late sends alone failed the SLO \(timed from the actual send, the server met it\), while the server had room/);
  });
});
