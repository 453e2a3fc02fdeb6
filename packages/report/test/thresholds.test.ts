// Every sentence about a result uses the thresholds the result recorded in its design (issue 17):
// an old result measured with other values renders with its own, and a version-2 result that lacks
// a field is judged, for that field only, by the value benchsuite had when version 3 came
// (`upgradeResult`), whatever today's defaults are.
import { describe, expect, it } from 'vitest';
import { renderMarkdown, renderTerminal } from '../src/index.js';
import { loadFixture } from './helpers.js';

describe('thresholds read from the result', () => {
  it('an old result with other recorded thresholds renders with its own values', () => {
    const r = loadFixture();
    Object.assign(r.design, {
      clientBoundBusy: 0.95,
      serverSaturatedShare: 0.5,
      loaderBound: { serverShare: 0.9, loaderBusy: 0.85 },
      noisyWindowCov: 0.2,
      disturbedSteal: 0.08,
      covBands: { excellent: 0.01, acceptable: 0.02, noisy: 0.04 },
      verdictShare: 0.75,
    });
    const md = renderMarkdown(r);
    expect(md).toContain('Client-bound in 1 of 17 windows (busiest loader core 97%, over 95%)');
    expect(md).toContain('Server not saturated in 1 of 15 windows (its process tree used 42% of its 1 core, under 50%');
    expect(md).toMatch(/Loader-bound in 1 of 17 windows, judged by the server: its process tree used \d+% of its 1 core \(under 90%\) while the busiest loader core was at 97% \(over 85%\)/);
    expect(md).toContain('varied by at most 20% (CoV within blocks)');
    expect(md).toContain('or steal averaged over 8%');
    expect(md).toContain('under 1% Excellent, under 2% Acceptable, up to 4% Noisy, above Unreliable');
    expect(md).toContain('the band that at least 75% of its pairs reach or beat');
    expect(renderTerminal(r)).toContain('over 95%): that req/s is the load generator');
  });

  it('a version-2 result that lacks a threshold is judged by the value of its day for that one, and has no verdict to show', () => {
    const r = loadFixture();
    (r as { schemaVersion: number }).schemaVersion = 2;
    const d = r.design as Record<string, unknown>;
    for (const k of ['serverSaturatedShare', 'loaderBound', 'covBands', 'verdictShare', 'noisyWindowCov']) delete d[k];
    d.clientBoundBusy = 0.93;
    for (const s of r.summaries) delete s.verdict;
    delete r.overall.verdict;
    const md = renderMarkdown(r);
    expect(md).toContain('under 70%');
    expect(md).toContain('(under 97%)');
    expect(md).toContain('over 93%): that req/s');
    expect(md).not.toContain('**Verdict:');
    expect(md).toMatch(/\| ±\d+\.\d% ✓ \| — \|/);
  });
});
