import { describe, expect, it } from 'vitest';
import { CHANGE_METHOD, DEFAULTS, resultSchema, upgradeResult, type Change } from '@benchsuite/sdk';
import { classifyChange, classifyInstructions, compareExitCode, compareResults, environmentDifferences, renderCompareJson, renderCompareMarkdown, type Comparison } from '../src/index.js';
import { loadFixture, scalePair } from './helpers.js';

const change = (ratio: number, ci: [number, number] | null): Change => ({ ratio, ci95: ci, halfWidth: null, method: CHANGE_METHOD });
const compared = (o: ReturnType<typeof compareResults>): Comparison => {
  if (o.status !== 'compared') throw new Error(`refused: ${o.message}`);
  return o;
};
const pairOf = (c: Comparison, scenario: string, target: string) => c.pairs.find((p) => p.scenario === scenario && p.target === target)!;

describe('classifyChange: the regression rule', () => {
  it('is a regression only when the whole interval lies below 1 − threshold', () => {
    expect(classifyChange(change(0.92, [0.9, 0.94]), 5)).toBe('regression');
    expect(classifyChange(change(0.94, [0.93, 0.951]), 5)).toBe('slower'); // reaches above 0.95
    expect(classifyChange(change(0.9, [0.8, 1.02]), 5)).toBe('no-change'); // contains 1: noise
    expect(classifyChange(change(0.97, [0.96, 0.98]), 0)).toBe('regression'); // threshold 0: any certain drop
  });

  it('mirrors it for improvements, and calls differences inside the practical band no change', () => {
    expect(classifyChange(change(1.08, [1.06, 1.1]), 5)).toBe('improvement');
    expect(classifyChange(change(1.04, [1.02, 1.06]), 5)).toBe('faster');
    expect(classifyChange(change(1.005, [1.001, 1.009]), 5, 0.01)).toBe('no-change');
    expect(classifyChange(change(1.005, [1.001, 1.009]), 5, 0)).toBe('faster');
  });

  it('needs an interval', () => {
    expect(classifyChange(change(0.5, null), 5)).toBe('insufficient');
    expect(classifyChange(null, 5)).toBe('insufficient');
  });
});

describe('compareResults', () => {
  it('finds no change between a result and itself, and exits 0', () => {
    const c = compared(compareResults(loadFixture(), loadFixture()));
    expect(c.differences).toEqual([]);
    expect(c.pairs).toHaveLength(8);
    expect(c.counts['no-change']).toBe(8);
    expect(c.regressed).toBe(false);
    expect(compareExitCode(c)).toBe(0);
    expect(c.thresholdPct).toBe(DEFAULTS.compareThresholdPct);
    for (const p of c.pairs) {
      expect(p.change!.ratio).toBe(1);
      expect(p.change!.ci95![0]).toBeLessThan(1);
      expect(p.change!.ci95![1]).toBeGreaterThan(1);
    }
  });

  it("compares the headline figure: relative throughput, and the reference's own req/s", () => {
    const c = compared(compareResults(loadFixture(), loadFixture()));
    const r = loadFixture();
    const fastify = pairOf(c, 'baseline', 'fastify');
    expect(fastify.figure).toBe('relative');
    expect(fastify.base).toBeCloseTo(r.summaries.find((s) => s.scenario === 'baseline' && s.target === 'fastify')!.relativeRps!.point, 12);
    const ref = pairOf(c, 'baseline', 'node-http');
    expect(ref.figure).toBe('absolute');
    expect(ref.base).toBeCloseTo(r.summaries.find((s) => s.scenario === 'baseline' && s.target === 'node-http')!.rps.point, 6);
    expect(ref.samples).toEqual({ base: 17, head: 17 });
  });

  it("flags a 15% drop of one target's throughput as a regression, exit 1", () => {
    const head = scalePair(loadFixture(), 'baseline', 'fastify', 0.85);
    const c = compared(compareResults(loadFixture(), head));
    const p = pairOf(c, 'baseline', 'fastify');
    expect(p.change!.ratio).toBeCloseTo(0.85, 2);
    expect(p.change!.ci95![1]).toBeLessThan(0.95);
    expect(p.status).toBe('regression');
    expect(c.counts.regression).toBe(1);
    expect(compareExitCode(c)).toBe(1);
  });

  it('does not fail on a certain 3% drop, under the threshold', () => {
    const c = compared(compareResults(loadFixture(), scalePair(loadFixture(), 'baseline', 'fastify', 0.97)));
    const p = pairOf(c, 'baseline', 'fastify');
    expect(p.status).toBe('slower');
    expect(c.regressed).toBe(false);
    expect(compareExitCode(c)).toBe(0);
  });

  it('sees a slower reference as its own regression and as every other target getting relatively faster', () => {
    const c = compared(compareResults(loadFixture(), scalePair(loadFixture(), 'baseline', 'node-http', 0.8)));
    expect(pairOf(c, 'baseline', 'node-http').status).toBe('regression');
    expect(pairOf(c, 'baseline', 'fastify').status).toBe('improvement');
    expect(pairOf(c, 'baseline', 'fastify').change!.ratio).toBeCloseTo(1 / 0.8, 2);
  });

  it('is reproducible: the bootstrap is seeded from the two runs and the pair', () => {
    const a = compareResults(loadFixture(), scalePair(loadFixture(), 'json-post', 'fastify', 0.9));
    const b = compareResults(loadFixture(), scalePair(loadFixture(), 'json-post', 'fastify', 0.9));
    expect(a).toEqual(b);
  });

  it('reports pairs present on one side only', () => {
    const head = loadFixture();
    head.summaries = head.summaries.filter((s) => !(s.scenario === 'baseline' && s.target === 'express'));
    const c = compared(compareResults(loadFixture(), head));
    expect(pairOf(c, 'baseline', 'express').status).toBe('only-in-base');
    expect(c.counts['only-in-base']).toBe(1);
  });
});

describe('environmentDifferences and refusal', () => {
  it('refuses on CPU model, cores, driver, pinning, reference and processes, naming them (exit 2); informs on node', () => {
    const head = loadFixture();
    head.environment.cpuModel = 'Intel(R) Xeon(R) Platinum 8375C';
    head.environment.cores = 16;
    head.environment.driver.name = 'autocannon';
    head.environment.pinning = { enabled: false, tool: null, serverCpus: [], loaderCpus: [], reason: 'taskset not found' };
    head.design.reference = 'fastify';
    head.design.processes = head.design.processes === 'shared' ? 'per-scenario' : 'shared';
    head.environment.node = 'v22.11.0';
    const d = environmentDifferences(loadFixture(), head);
    expect(d.filter((x) => x.blocking).map((x) => x.field)).toEqual(['CPU model', 'cores', 'driver', 'pinning', 'reference', 'processes']);
    expect(d.filter((x) => !x.blocking).map((x) => x.field)).toEqual(['node']);
    const out = compareResults(loadFixture(), head);
    expect(out.status).toBe('incomparable');
    expect(out.status === 'incomparable' && out.fields).toEqual(['CPU model', 'cores', 'driver', 'pinning', 'reference', 'processes']);
    expect(compareExitCode(out)).toBe(2);
    expect(renderCompareMarkdown(out)).toContain('## benchsuite compare: refused');
    expect(renderCompareMarkdown(out)).toContain('differ in CPU model, cores, driver, pinning, reference, processes');
  });

  it('says, without refusing, when the fresh processes were warmed differently (a result from before the field warmed them one by one)', () => {
    const old = loadFixture() as unknown as { schemaVersion: number; design: Record<string, unknown> };
    old.schemaVersion = 2;
    delete old.design.freshWarmup;
    const base = resultSchema.parse(upgradeResult(old));
    const head = loadFixture();
    head.design.freshWarmup = 'rotation';
    expect(environmentDifferences(base, head)).toEqual([{ field: 'fresh warm-up', base: 'one-by-one', head: 'rotation', blocking: false }]);
    head.design.freshWarmup = 'one-by-one';
    expect(environmentDifferences(base, head)).toEqual([]);
  });

  it('compares anyway when forced, and says so', () => {
    const head = loadFixture();
    head.environment.cores = 16;
    const c = compared(compareResults(loadFixture(), head, { force: true }));
    expect(c.forced).toBe(true);
    expect(renderCompareMarkdown(c)).toContain('> ⚠ Compared although the environments differ in cores');
  });
});

describe('renderCompareMarkdown', () => {
  it('leads with the gate outcome, lists regressions first, and ends with the rule and method', () => {
    const head = scalePair(loadFixture(), 'concurrency-ramp', 'express', 0.8);
    head.environment.node = 'v20.21.0';
    const md = renderCompareMarkdown(compareResults(loadFixture(), head, { thresholdPct: 5 }));
    const lines = md.split('\n');
    expect(lines[0]).toBe('## benchsuite compare: ❌ 1 regression beyond 5%');
    expect(md).toContain('- node: v20.20.2 → v20.21.0');
    expect(lines.find((l) => l.startsWith('| Scenario'))).toBe('| Scenario | Target | Figure | Base → head | Change (95% interval) | p99 base → head | CPU µs/req base → head | Result |');
    const first = lines[lines.findIndex((l) => l.startsWith('|---')) + 1]!;
    expect(first).toMatch(/^\| concurrency-ramp \| express \| req\/s ÷ node-http \| 0\.317 → 0\.25\d \| ⚠ −2\d\.\d% \[−2\d\.\d%, −\d+\.\d%\] \| .* \| ❌ regression \|$/);
    expect(md).toContain('a regression is a change whose interval lies wholly below 0.95');
    expect(md).toContain(CHANGE_METHOD);
  });

  it('renders JSON that round-trips', () => {
    const c = compareResults(loadFixture(), loadFixture());
    expect(JSON.parse(renderCompareJson(c))).toEqual(c);
  });
});

describe('instruction counts in a comparison (--instructions in both runs)', () => {
  const plan = { processes: 3, warmupRequests: 3000, requests: 1000, loadedRequests: 1000 };
  const withCounts = (perRequest: number, spread = 0.0005, p = plan) => {
    const r = loadFixture();
    r.design.instructions = p;
    r.instructions = [
      {
        scenario: r.summaries[0]!.scenario,
        target: r.summaries[0]!.target,
        status: 'ok',
        runtime: 'node',
        flags: ['--single-threaded'],
        warmupRequests: p.warmupRequests,
        levels: [{ connections: 1, requests: p.requests, perProcess: [perRequest, perRequest, perRequest], perRequest, spread }],
      },
    ];
    return r;
  };

  it('classifies without a bootstrap: beyond the threshold and three spreads, unstable counts never gate', () => {
    expect(classifyInstructions(1.06, 0.001, 5, true)).toBe('regression');
    expect(classifyInstructions(1.04, 0.001, 5, true)).toBe('no-change');
    expect(classifyInstructions(0.9, 0.001, 5, true)).toBe('improvement');
    expect(classifyInstructions(1.5, 0.02, 5, true)).toBe('unstable');
    expect(classifyInstructions(1.5, 0.001, 5, false)).toBe('plan-differs');
  });

  it('fails the gate on a grown count, also with --gate instructions, and says so in the markdown', () => {
    const c = compared(compareResults(withCounts(300_000), withCounts(330_000), { gate: 'instructions' }));
    expect(c.instructions).toHaveLength(1);
    expect(c.instructions[0]).toMatchObject({ connections: 1, base: 300_000, head: 330_000, status: 'regression' });
    expect(c.regressed).toBe(true);
    expect(compareExitCode(c)).toBe(1);
    const md = renderCompareMarkdown(c);
    expect(md).toContain('Gate: instruction counts only');
    expect(md).toContain('**Instructions per request**');
    expect(md).toContain('+10.00%');
  });

  it('with --gate instructions a throughput drop alone does not fail; counts made with another plan are not compared', () => {
    const base = withCounts(300_000);
    const head = scalePair(withCounts(300_100), base.summaries[1]!.scenario, base.summaries[1]!.target, 0.5);
    expect(compared(compareResults(base, head)).regressed).toBe(true);
    expect(compared(compareResults(base, head, { gate: 'instructions' })).regressed).toBe(false);
    const other = withCounts(400_000, 0.0005, { ...plan, warmupRequests: 500 });
    const c = compared(compareResults(base, other, { gate: 'instructions' }));
    expect(c.instructions[0]!.status).toBe('plan-differs');
    expect(c.regressed).toBe(false);
  });
});
