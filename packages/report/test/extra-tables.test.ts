// The sections beside the pairs' tables: streaming (kind 'stream') and instruction counts
// (--instructions), drawn by every renderer from one spec.
import { readFileSync } from 'node:fs';
import { resultSchema, upgradeResult, type BenchResult } from '@benchsuite/sdk';
import { describe, expect, it } from 'vitest';
import { renderHtml, renderMarkdown, renderTerminal } from '../src/index.js';
import { loadFixture } from './helpers.js';

const lat = (p50: number) => ({ p50, p90: p50 * 1.5, p99: p50 * 2, p999: p50 * 2, min: p50 / 2, max: p50 * 2, mean: p50, stdev: 1, count: 100 });

function withExtras(): BenchResult {
  const r = loadFixture();
  const [a, b] = [r.summaries[0]!, r.summaries[1]!];
  r.design.instructions = { processes: 3, warmupRequests: 3000, requests: 1000, loadedRequests: 1000 };
  r.instructions = [
    {
      scenario: a.scenario,
      target: r.design.reference,
      status: 'ok',
      runtime: 'node',
      flags: ['--single-threaded'],
      warmupRequests: 3000,
      levels: [{ connections: 1, requests: 1000, perProcess: [300_000, 300_030, 299_990], perRequest: 300_000, spread: 0.00013 }],
    },
    {
      scenario: a.scenario,
      target: b.target === r.design.reference ? a.target : b.target,
      status: 'ok',
      runtime: 'node',
      flags: ['--single-threaded'],
      warmupRequests: 3000,
      levels: [{ connections: 1, requests: 1000, perProcess: [450_000, 450_000, 450_000], perRequest: 450_000, spread: 0 }],
    },
    { scenario: a.scenario, target: 'pyapp', status: 'skipped', reason: "2 processes in the server's tree: callgrind counts only the one it started", warmupRequests: 3000, levels: [] },
  ];
  r.streaming = [
    {
      scenario: 'sse',
      target: 'gw',
      blocks: [
        {
          block: 1,
          status: 'ok',
          levels: [
            {
              streams: 50,
              durationSec: 5,
              started: 900,
              completed: 880,
              errors: 0,
              events: 20_000,
              eventsPerSec: 4000,
              streamsPerSec: 176,
              ttfb: lat(9000),
              firstDelta: lat(24_000),
              gap: lat(10_300),
              peakRssBytes: 90e6,
              cpuSteal: 0,
            },
          ],
          cancel: { disconnects: 40, aborted: 0, neverAborted: 40, failed: 0, afterEvents: 2, waitMs: 2000, latency: lat(0), clockUncertaintyMs: 0.5 },
          backpressure: {
            readBytesPerSec: 1024,
            durationSec: 10,
            clientBytes: 9000,
            rssStartBytes: 50e6,
            rssEndBytes: 250e6,
            rssPeakBytes: 250e6,
            rssGrowthBytes: 200e6,
            rssSeries: [{ sec: 0, bytes: 50e6 }],
            upstream: { bytes: 47e6, lateBytes: 20e6, waits: 3000, blockedMs: 1600, outcome: 'completed', throttled: false },
          },
          wallSec: 40,
        },
      ],
    },
  ];
  return r;
}

describe('streaming and instruction sections', () => {
  const r = withExtras();
  it('markdown: the three streaming tables and the instruction table with its plan, ratio and the skip reason', () => {
    const md = renderMarkdown(r);
    for (const title of ['## Streaming', '## Cancellation on client disconnect', '## Backpressure from a slow reader', '## Instructions per request (callgrind, user space only; 3 fresh processes'])
      expect(md).toContain(title);
    expect(md).toMatch(/300.000/);
    expect(md).toContain('1.500');
    expect(md).toContain("skipped: 2 processes in the server's tree");
    // The gateway that never aborted and the backend that was not throttled.
    expect(md).toMatch(/\| sse \| gw \| 40 \| 0 \|/);
  });
  it('HTML and terminal draw the same sections', () => {
    const html = renderHtml(r);
    expect(html).toContain('Instructions per request');
    expect(html).toContain('Backpressure from a slow reader');
    const term = renderTerminal(r, { color: false });
    expect(term).toContain('instructions per request');
    expect(term).toContain('streaming');
  });
  it('a result without them has neither section', () => {
    const md = renderMarkdown(loadFixture());
    expect(md).not.toContain('Instructions per request');
    expect(md).not.toContain('## Streaming');
  });
});

describe('the streaming table of a result with steady rates, per-read and per-event gaps and a drain', () => {
  const batching = { reads: 400, tokens: 1200, batchedReads: 400, maxPerRead: 4 };
  const r = withExtras();
  const block = r.streaming![0]!.blocks[0]!;
  const old = block.levels[0]!;
  block.levels.push({
    streams: 200,
    durationSec: 5,
    started: 4000,
    completed: 3800,
    errors: 2,
    events: 90_000,
    steady: { sec: 5, completed: 4000, events: 82_800, completedPerSec: 800, eventsPerSec: 18_000 },
    coldSec: 0.4,
    ttfb: lat(9000),
    firstDelta: lat(24_000),
    readGap: lat(30_000),
    eventGap: lat(10_000),
    batching,
    drain: { open: 200, completed: 198, cut: 2, sec: 5, events: 4000, ttfb: lat(1), firstDelta: lat(1), readGap: lat(900_000), eventGap: lat(300_000), batching },
    loaderLag: lat(2000),
    peakRssBytes: 90e6,
    cpuSteal: 0,
  });
  const md = renderMarkdown(r);
  const row = (streams: number) => md.split('\n').find((l) => l.startsWith(`| sse | gw | ${streams} |`)) ?? '';
  it('shows the steady rate, the gap per read and per event, tokens per read, and the drain apart', () => {
    expect(row(200)).toContain('| 800 |');
    expect(row(200)).toMatch(/\| 18.000 \|/);
    expect(row(200)).toContain('30.00 ms');
    expect(row(200)).toContain('10.00 ms');
    expect(row(200)).toContain('3.00 (max 4)');
    expect(row(200)).toContain('200 open, 2 cut');
    // The drain's 900 ms gaps stay out of the level's columns.
    expect(row(200)).not.toContain('900.00 ms');
  });
  it('marks a rate whose window opened at the cold start cap', () => {
    const capped = structuredClone(r);
    capped.streaming![0]!.blocks[0]!.levels[1]!.coldCapped = true;
    expect(renderMarkdown(capped)).toContain('| 800 (cold start capped) |');
  });
  it('still draws an older result, its window count and per-arrival gap marked', () => {
    expect(old.steady).toBeUndefined();
    expect(row(50)).toContain('176 (window count)');
    expect(row(50)).toContain('10.30 ms (per arrival)');
    expect(renderTerminal(r, { color: false })).toContain('window count');
  });
});

describe('a version-2 result with streaming levels of its time', () => {
  it('reads through upgradeResult and draws its window counts and per-arrival gaps, marked', () => {
    const v2 = JSON.parse(readFileSync(new URL('./fixtures/v2/2026-11-24-synthetic.json', import.meta.url), 'utf8'));
    v2.streaming = structuredClone(withExtras().streaming);
    const r = resultSchema.parse(upgradeResult(v2));
    const level = r.streaming![0]!.blocks[0]!.levels[0]!;
    expect(level.steady).toBeUndefined();
    expect(level.streamsPerSec).toBe(176);
    const md = renderMarkdown(r);
    expect(md).toMatch(/\| sse \| gw \| 50 \| 176 \(window count\) \|/);
    expect(md).toContain('10.30 ms (per arrival)');
  });
});
