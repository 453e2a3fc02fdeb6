import { describe, expect, it } from 'vitest';
import { compareResults, environmentDifferences, renderCompareJson, renderCompareMarkdown, welchDifference } from '../src/index.js';
import { loadFixture, setPair } from './helpers.js';

describe('welchDifference', () => {
  it('matches a hand-computed Welch interval', () => {
    // base mean 12, var 4; head mean 18, var 4; se = √(4/3 + 4/3) = 1.63299; df = 4; t(0.975, 4) = 2.776445
    const w = welchDifference([10, 12, 14], [16, 18, 20]);
    expect(w.diff).toBe(6);
    expect(w.df).toBeCloseTo(4, 10);
    expect(w.ci![0]).toBeCloseTo(6 - 2.776445 * 1.632993, 4);
    expect(w.ci![1]).toBeCloseTo(6 + 2.776445 * 1.632993, 4);
    expect(w.significant).toBe(true);
  });

  it('uses Welch–Satterthwaite degrees of freedom for unequal variances', () => {
    // qa = 1/3, qb = 100/3 → df = (101/3)² / ((1/3)²/2 + (100/3)²/2) = 2.0396…
    const w = welchDifference([9, 10, 11], [90, 100, 110]);
    expect(w.df).toBeCloseTo((101 / 3) ** 2 / ((1 / 9) / 2 + (10000 / 9) / 2), 8);
  });

  it('is not significant when the interval spans 0, and untestable below 2 values', () => {
    expect(welchDifference([100, 110, 90], [95, 115, 100]).significant).toBe(false);
    expect(welchDifference([100], [90, 91])).toEqual({ diff: -9.5, ci: null, df: null, significant: false });
  });

  it('treats exactly repeatable values as a zero-width interval', () => {
    expect(welchDifference([5, 5], [6, 6])).toMatchObject({ ci: [1, 1], significant: true });
    expect(welchDifference([5, 5], [5, 5])).toMatchObject({ ci: [0, 0], significant: false });
  });
});

describe('compareResults', () => {
  it('finds no change between a result and itself', () => {
    const cmp = compareResults(loadFixture(), loadFixture());
    expect(cmp.regressed).toBe(false);
    expect(cmp.environment).toEqual({ comparable: true, differences: [] });
    expect(cmp.counts['no-significant-change']).toBe(8);
  });

  it('flags a significant RPS drop beyond the threshold as a regression', () => {
    const base = loadFixture();
    const head = setPair(loadFixture(), 'plaintext', 'fastify', 'rps', [52000, 52400, 51800]);
    const cmp = compareResults(base, head, { threshold: 5 });
    const p = cmp.pairs.find((x) => x.scenario === 'plaintext' && x.target === 'fastify')!;
    expect(p.status).toBe('regression');
    expect(p.rps!.significant).toBe(true);
    expect(p.rps!.changePct).toBeCloseTo((52066.667 / 61336.333 - 1) * 100, 2);
    expect(cmp.regressed).toBe(true);
  });

  it('does not fail on a significant drop smaller than the threshold', () => {
    const head = setPair(loadFixture(), 'plaintext', 'fastify', 'rps', [59800, 59900, 59700]);
    const cmp = compareResults(loadFixture(), head, { threshold: 5 });
    expect(cmp.pairs.find((x) => x.scenario === 'plaintext' && x.target === 'fastify')!.status).toBe('within-threshold');
    expect(cmp.regressed).toBe(false);
  });

  it('does not fail on a large but noisy change (interval spans 0)', () => {
    const head = setPair(loadFixture(), 'plaintext', 'fastify', 'rps', [38000, 75000, 52000]);
    const cmp = compareResults(loadFixture(), head, { threshold: 5 });
    const p = cmp.pairs.find((x) => x.scenario === 'plaintext' && x.target === 'fastify')!;
    expect(p.rps!.changePct).toBeLessThan(-5);
    expect(p.status).toBe('no-significant-change');
    expect(cmp.regressed).toBe(false);
  });

  it('counts a significant p99 increase beyond the threshold as a regression, and a faster p99 as an improvement', () => {
    const base = loadFixture();
    const p99 = base.summaries.find((s) => s.scenario === 'plaintext' && s.target === 'express')!.p99.values;
    const slower = setPair(loadFixture(), 'plaintext', 'express', 'p99', p99.map((v) => v * 1.3));
    expect(compareResults(base, slower).pairs.find((x) => x.target === 'express' && x.scenario === 'plaintext')!.status).toBe('regression');
    const faster = setPair(loadFixture(), 'plaintext', 'express', 'p99', p99.map((v) => v * 0.7));
    const cmp = compareResults(base, faster);
    expect(cmp.pairs.find((x) => x.target === 'express' && x.scenario === 'plaintext')!.status).toBe('improvement');
    expect(cmp.regressed).toBe(false);
  });

  it('reports pairs present on one side only', () => {
    const head = loadFixture();
    head.summaries = head.summaries.filter((s) => !(s.scenario === 'plaintext' && s.target === 'express'));
    expect(compareResults(loadFixture(), head).counts['only-in-base']).toBe(1);
  });
});

describe('environmentDifferences', () => {
  it('blocks on CPU model, cores, driver and pinning; informs on node and driver version', () => {
    const head = loadFixture();
    head.environment.cpuModel = 'Intel(R) Xeon(R) Platinum 8375C';
    head.environment.cores = 16;
    head.environment.driver.name = 'wrk';
    head.environment.pinning = { enabled: false, tool: null, serverCpus: [], loaderCpus: [], reason: 'taskset not found' };
    head.environment.node = 'v22.11.0';
    const d = environmentDifferences(loadFixture(), head);
    expect(d.filter((x) => x.blocking).map((x) => x.field)).toEqual(['CPU model', 'cores', 'driver', 'pinning']);
    expect(d.filter((x) => !x.blocking).map((x) => x.field)).toEqual(['node']);
    expect(compareResults(loadFixture(), head).environment.comparable).toBe(false);
  });
});

describe('renderCompareMarkdown', () => {
  it('leads with the gate outcome and sorts regressions first, fit for a PR comment', () => {
    const head = setPair(loadFixture(), 'plaintext', 'fastify', 'rps', [52000, 52400, 51800]);
    head.environment.node = 'v20.19.0';
    const md = renderCompareMarkdown(compareResults(loadFixture(), head, { threshold: 5 }));
    expect(md).toMatchInlineSnapshot(`
      "## benchsuite compare: ❌ 1 significant regression beyond 5%

      Base: frameworks @ 3f9c2a1d8e7b (2025-03-14 09:00:00 UTC) · Head: frameworks @ 3f9c2a1d8e7b (2025-03-14 09:00:00 UTC)

      **Environment differences** (not blocking):

      - node: v20.18.1 → v20.19.0

      | Scenario | Target | RPS base → head | Δ RPS [95% CI] | p99 (mean of trials) base → head | Δ p99 [95% CI] | Result |
      |---|---|---:|---:|---:|---:|---|
      | plaintext | fastify | 61,336 → 52,067 | **−15.1% [−16.6%, −13.6%]** | 2.591 ms → 2.591 ms | ±0.0% [−9.4%, +9.4%] | ❌ regression |
      | plaintext | node-http | 61,384 → 61,384 | ±0.0% [−6.1%, +6.1%] | 2.681 ms → 2.681 ms | ±0.0% [−7.1%, +7.1%] | · no significant change |
      | plaintext | express | 18,534 → 18,534 | ±0.0% [−3.9%, +3.9%] | 9.327 ms → 9.327 ms | ±0.0% [−8.4%, +8.4%] | · no significant change |
      | json-validate | node-http | 31,230 → 31,230 | ±0.0% [−1.1%, +1.1%] | 5.476 ms → 5.476 ms | ±0.0% [−38.7%, +38.7%] | · no significant change (head unreliable) |
      | json-validate | fastify | 41,768 → 41,768 | ±0.0% [−10.7%, +10.7%] | 3.582 ms → 3.582 ms | ±0.0% [−16.1%, +16.1%] | · no significant change (head noisy) |
      | plaintext-steps | node-http | 53,537 → 53,537 | ±0.0% [−0.5%, +0.5%] | 8.663 ms → 8.663 ms | ±0.0% [−5.0%, +5.0%] | · no significant change |
      | plaintext-steps | fastify | 52,560 → 52,560 | ±0.0% [−1.4%, +1.4%] | 9.018 ms → 9.018 ms | ±0.0% [−5.2%, +5.2%] | · no significant change |
      | plaintext-steps | express | 16,728 → 16,728 | ±0.0% [−5.3%, +5.3%] | 28.791 ms → 28.791 ms | ±0.0% [−21.5%, +21.5%] | · no significant change |

      <sub>Δ is head − base as a percentage of base, with the 95% confidence interval of a Welch two-sample test over per-trial means (RPS) and per-trial p99; **bold** when the interval excludes 0. A regression is significant and worse than 5%.</sub>
      "
    `);
  });

  it('renders JSON that round-trips', () => {
    const cmp = compareResults(loadFixture(), loadFixture());
    expect(JSON.parse(renderCompareJson(cmp))).toEqual(cmp);
  });
});
