// The loader's round-trip floor and each pair's share of it, drawn by every renderer from one
// spec: the share beside the headline figure, flagged with its note above the run's threshold,
// and the floor's own table. A result without floors shows neither.
import type { BenchResult, LoaderFloor } from '@benchsuite/sdk';
import { summarizePair, WindowIndex } from '@benchsuite/sdk';
import { describe, expect, it } from 'vitest';
import { renderHtml, renderMarkdown, renderTerminal } from '../src/index.js';
import { estimatorOptions, loadFixture } from './helpers.js';

const lat = (p50: number) => ({ p50, p90: p50 * 1.2, p99: p50 * 2, p999: p50 * 3, min: p50 / 2, max: p50 * 4, mean: p50 * 1.1, stdev: 1, count: 1000 });

/** The fixture with a floor on its baseline scenario (50 connections here, as if low), summaries recomputed with it. */
function withFloor(floorRps: number, flag?: number): BenchResult {
  const r = loadFixture();
  if (flag !== undefined) r.design.loaderShareFlag = flag;
  const floor: LoaderFloor = {
    scenario: 'baseline',
    driver: 'h2load',
    responder: 'raw socket (node:net, no HTTP parser), one fixed 11-byte JSON response, pinned to the server cores',
    steps: [{ connections: 50, rps: { point: floorRps, ci95: [floorRps * 0.97, floorRps * 1.03], halfWidth: 0.03, n: 4, method: 'median over windows' }, latency: lat(700), clientBoundWindows: 1 }],
    windows: [1, 1, 2, 2].map((block, i) => ({ block, connections: 50, requests: 1000, durationSec: 0.01, rps: floorRps * (0.98 + i * 0.01), clientBound: i === 0 })),
  };
  r.loaderFloors = [floor];
  const index = new WindowIndex(r.windows);
  r.summaries = r.summaries.map((s) =>
    summarizePair({
      scenario: s.scenario,
      target: s.target,
      windows: r.windows,
      estimator: estimatorOptions(r),
      serverCpus: s.serverCpus,
      thresholds: r.design,
      index,
      loaderFloor: r.loaderFloors?.find((f) => f.scenario === s.scenario),
    }),
  );
  return r;
}

describe("the loader's share of the round trip in the reports", () => {
  it('is computed per pair from the floor at the same connections, and flagged above the recorded threshold', () => {
    const r = withFloor(100_000, 0.5);
    const base = r.summaries.filter((s) => s.scenario === 'baseline');
    for (const s of base) {
      expect(s.loaderShare!.share).toBeCloseTo(s.steps[0]!.rps.point / 100_000, 9);
      expect(s.loaderShare!.flagged).toBe(s.loaderShare!.share > 0.5);
    }
    // node-http (60k of a 100k floor) is flagged at 50%, express (18k) is not.
    expect(base.find((s) => s.target === 'node-http')!.loaderShare!.flagged).toBe(true);
    expect(base.find((s) => s.target === 'express')!.loaderShare!.flagged).toBe(false);
    // Scenarios without a floor have no share.
    expect(r.summaries.filter((s) => s.scenario !== 'baseline').every((s) => s.loaderShare === undefined)).toBe(true);
  });

  it('markdown, HTML and the terminal show the share beside the figure, the note on a flagged pair, and the floor table', () => {
    const r = withFloor(100_000, 0.5);
    const md = renderMarkdown(r);
    expect(md).toMatch(/\| Loader share \|/);
    expect(md).toMatch(/⚠ 60% at c=50 \|/);
    expect(md).toMatch(/18% at c=50 \|/);
    expect(md).toMatch(/The loader's share of the round trip was 60% at 50 connections .*over 50%: .*shows at about 40% of its size/);
    expect(md).toMatch(/## Loader's round-trip floor/);
    expect(md).toMatch(/\| baseline \| h2load \| 50 \| 100\u202f000 \[97\u202f000, 103\u202f000\] \| ⚠ 4 \(1\) \| 0\.700 ms \| 0\.770 ms \|/);
    const html = renderHtml(r);
    expect(html).toMatch(/<th[^>]*>Loader share<\/th>/);
    expect(html).toMatch(/id="loader-floor"/);
    expect(html).toMatch(/class="[^"]*warn[^"]*"[^>]*>60% at c=50</);
    const term = renderTerminal(r, { color: false });
    expect(term).toMatch(/Loader share/);
    expect(term).toMatch(/loader's round-trip floor/);
    expect(term).toMatch(/60% at c=50/);
  });

  it('a result without floors (older ones too) shows no share column and no floor table', () => {
    const r = loadFixture();
    const md = renderMarkdown(r);
    expect(md).not.toMatch(/Loader share/);
    expect(md).not.toMatch(/round-trip floor/);
    expect(renderHtml(r)).not.toMatch(/id="loader-floor"/);
  });
});
