import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratch } from '@benchsuite/testkit';
import {
  renderHistoryChanges,
  renderHistoryCheck,
  renderHistoryHtml,
  renderHtml,
  renderMarkdown,
  forecastCoverageText,
  roundOneText,
  type HistoryChangeView,
  type HistoryPointView,
  type HistoryRoundOneView,
  type HistorySeriesView,
} from '../src/index.js';
import { chromiumMissing, chromiumPath } from './chromium.js';
import { HOSTILE_NAME, loadFixture } from './helpers.js';

const rule = { alpha: 0.01, permutations: 199, minMagnitude: 0.01 };
const machine = { cpuModel: 'AMD EPYC 7763 64-Core Processor', cores: 2, kernel: '6.1.0', node: 'v20.20.2', python: '3.11.7' };
const point = (i: number, value: number): HistoryPointView => ({
  runId: i + 1,
  startedAt: new Date(Date.UTC(2026, 10, 1, i)).toISOString(),
  commit: `${(0xa0000 + i).toString(16)}${'0'.repeat(35)}`,
  branch: 'main',
  value,
  lo: value * 0.95,
  hi: value * 1.05,
});
const points = Array.from({ length: 20 }, (_, i) => point(i, i < 12 ? 0.75 + (i % 3) * 0.005 : 0.66 + (i % 3) * 0.005));
const change: HistoryChangeView = {
  index: 12,
  size: -0.12,
  ci95: [-0.14, -0.1],
  pValue: 0.005,
  direction: 'worse',
  lastBefore: points[11]!,
  firstAfter: points[12]!,
  runsBefore: 12,
  runsAfter: 8,
  levelBefore: 0.755,
  levelAfter: 0.665,
};
const stepped: HistorySeriesView = {
  key: { fingerprint: 'abc123abc123', machine, designKey: 'd1', scenario: 'baseline', target: 'fastify', reference: 'node-http', figure: 'rps' },
  points,
  changes: [change],
};
const flat: HistorySeriesView = {
  key: { fingerprint: 'abc123abc123', machine, designKey: 'd1', scenario: 'json-post', target: HOSTILE_NAME, reference: 'node-http', figure: 'instructions' },
  points: Array.from({ length: 20 }, (_, i) => point(i, 503_320 + (i % 2) * 40)),
  changes: [],
};

describe('the history in words', () => {
  it('each change: direction, size with its interval, the commit range, the runs on either side', () => {
    const text = renderHistoryChanges([stepped, flat], rule);
    expect(text).toBe(
      [
        '2 series over 20 runs on 1 machine; changes in 1.',
        'Rule: E-Divisive means on the logs of each series, permutation test at α = 0.01 over 199 shuffles, changes under 1% merged away; series never mix machines or designs.',
        '',
        'machine abc123abc123 (AMD EPYC 7763 64-Core Processor, 2 cores, kernel 6.1.0, Node 20.20.2, Python 3.11.7)',
        '  fastify on baseline, throughput ÷ node-http, 20 runs:',
        '    worse −12.0% [−14.0%, −10.0%] after a000b00000 (2026-11-01 11:00), by a000c00000 (2026-11-01 12:00); 12 runs before at 0.755, 8 after at 0.665 (p = 0.005)',
        '',
      ].join('\n'),
    );
  });

  it('the gate: a regression with where it came, and a history too short to judge as not a failure', () => {
    const text = renderHistoryCheck(
      [
        { scenario: 'baseline', target: 'fastify', figure: 'rps', value: 0.66, history: points, verdict: { status: 'regression', change, changes: [change] } },
        { scenario: 'json-post', target: 'fastify', figure: 'rps', value: 1.2, history: points.slice(0, 3), verdict: { status: 'too-short', have: 2, need: 10 } },
      ],
      { rule, window: 30, fingerprint: 'abc123abc123', file: '/h.sqlite' },
    );
    expect(text.split('\n').slice(0, 3)).toEqual([
      'REGRESSION: 1 of 2 figures moved the wrong way in a lasting step that this run confirms.',
      '  fastify on baseline, throughput ÷ the reference: worse −12.0% [−14.0%, −10.0%] after a000b00000 (2026-11-01 11:00), by a000c00000 (2026-11-01 12:00); 12 runs before at 0.755, 8 after at 0.665 (p = 0.005); this run 0.660',
      '1 of 2 figures have too little history to judge: 2 earlier runs of machine abc123abc123 with this design in /h.sqlite, and the gate needs 10 (8 more). Not a failure.',
    ]);
  });
});

describe("the design's round 1 pooled over runs, in words", () => {
  const base: HistoryRoundOneView = { runs: 5, blocks: 133, otherDesigns: 0, point: 0.988, ci95: [0.965, 1.011], widthFrom: 'blocks', flag: 0.01, verdict: 'unresolved', runsToResolve: 6 };
  it('says the figure, its interval and its blocks, then what it shows against the flag', () => {
    expect(roundOneText(base)).toBe(
      "Round 1 ÷ its block's later rounds (the pairs' ratios to the reference), pooled over 5 runs of this design (133 blocks): 0.988 [0.965, 1.011], not yet resolved to ±1% (about 6 more runs like these would).",
    );
    expect(roundOneText({ ...base, point: 0.997, ci95: [0.993, 1.001], verdict: 'within', runsToResolve: null })).toMatch(
      /: 0\.997 \[0\.993, 1\.001\], within ±1%: the warm-up leaves no trend this design carries into its figures\.$/,
    );
    expect(roundOneText({ ...base, point: 1.031, ci95: [1.02, 1.042], verdict: 'beyond', runsToResolve: null })).toMatch(
      /, 3\.1% high, beyond ±1%: .* a longer warm-up \(design\.warmup\.served or maxSec in a config file\) would take it out\.$/,
    );
  });
  it('says when the runs set the interval, when other designs were left out, and when one block gave no interval', () => {
    expect(roundOneText({ ...base, widthFrom: 'runs', otherDesigns: 2 })).toMatch(
      /over the 5 runs' own figures \(Student's t on 4 degrees of freedom\), wider than the blocks' pooled one: an hour may have a trend of its own\. 2 runs of other designs not pooled\.$/,
    );
    expect(roundOneText({ ...base, runs: 1, blocks: 1, ci95: null, runsToResolve: null })).toContain(
      'pooled over 1 run of this design (1 block): 0.988 (no interval: one block), not yet resolved to ±1%.',
    );
  });
});

describe('the forecasts over runs, in words', () => {
  const base = { runs: 9, inside: 7, narrower: 1, wider: 1, share: 7 / 9, nominal: 0.8, alpha: 0.05, pValue: 0.9, verdict: null };
  it('says how many fell inside against the share claimed, which way the others missed, and a clear miss of the claim', () => {
    expect(forecastCoverageText(base)).toBe("Forecast: the half-width reached fell inside the forecast's range in 7 of 9 runs (78%); expected about 80%; outside, 1 narrower and 1 wider.");
    expect(forecastCoverageText({ ...base, inside: 9, narrower: 0, wider: 0, share: 1 })).toBe(
      "Forecast: the half-width reached fell inside the forecast's range in 9 of 9 runs (100%); expected about 80%.",
    );
    expect(forecastCoverageText({ ...base, runs: 12, inside: 3, narrower: 0, wider: 9, share: 0.25, pValue: 0.0002, verdict: 'too-narrow' })).toMatch(
      /outside, 9 wider\. That is clearly fewer \(two-sided binomial test, p < 0\.001 < 0\.05\): the forecast's ranges are too narrow on this machine; give a budget room beyond them\.$/,
    );
    expect(forecastCoverageText({ ...base, runs: 30, inside: 30, narrower: 0, wider: 0, share: 1, pValue: 0.0025, verdict: 'too-wide' }, 'on these machines')).toMatch(
      /the forecast's ranges are wider than they need be on these machines\.$/,
    );
  });
});

describe('the gate on a machine whose kernel or Node changed', () => {
  const tooShort = { scenario: 'baseline', target: 'fastify', figure: 'rps', value: 0.75, history: points.slice(0, 4), verdict: { status: 'too-short', have: 3, need: 10 } } as const;
  const passed = { scenario: 'baseline', target: 'fastify', figure: 'rps', value: 0.75, history: points, verdict: { status: 'pass', changes: [] } } as const;
  const o = { rule, window: 30, fingerprint: 'abc123abc123', file: '/h.sqlite' };

  it('says what changed and when, that the runs before count as another machine, and the flag that counts them', () => {
    const text = renderHistoryCheck([tooShort], {
      ...o,
      sameMachine: ['cpu', 'kernel', 'node', 'python'],
      machineChanges: [
        { part: 'kernel', from: '6.1.0-18', to: '6.1.0-21', lastBefore: points[16]!, runsSince: 3, counted: true },
        { part: 'node', from: 'v20.11.0', to: 'v20.20.2', lastBefore: points[19]!, runsSince: 0, counted: true },
      ],
    });
    expect(text.split('\n').slice(0, 4)).toEqual([
      'The kernel changed 6.1.0-18 → 6.1.0-21 3 runs ago (the last run before it: a001000000, 2026-11-01 16:00).',
      'Node changed 20.11.0 → 20.20.2 since the last run of this machine.',
      'The runs before those changes count as another machine (--same-machine cpu,kernel,node,python), so this run is judged without them; to count them as this machine: --same-machine cpu,python.',
      '1 of 1 figures have too little history to judge: 3 earlier runs of machine abc123abc123 with this design in /h.sqlite, and the gate needs 10 (7 more). Not a failure.',
    ]);
  });

  it('with --same-machine cpu: the change is said, its runs counted, and the earlier runs named by what matched', () => {
    const change = { part: 'kernel', from: '6.1.0-18', to: '6.1.0-21', lastBefore: points[19]!, runsSince: 0, counted: false } as const;
    expect(
      renderHistoryCheck([passed], { ...o, sameMachine: ['cpu'], machineChanges: [change] })
        .split('\n')
        .slice(0, 3),
    ).toEqual([
      'No regression: 1 of 1 figures judged against the recent runs of this machine and design.',
      'The kernel changed 6.1.0-18 → 6.1.0-21 since the last run of this machine.',
      'The runs before the kernel change count as this machine (--same-machine cpu).',
    ]);
    expect(renderHistoryCheck([tooShort], { ...o, sameMachine: ['cpu', 'node'] })).toContain(
      '3 earlier runs of the same hardware (CPU model, cores, architecture, memory) and Node as machine abc123abc123 with this design',
    );
  });

  it('says nothing about the machine when nothing changed', () => {
    expect(renderHistoryCheck([passed], { ...o, sameMachine: ['cpu'], machineChanges: [] })).not.toMatch(/changed|--same-machine/);
  });
});

describe("a run's Markdown report with its history", () => {
  it('lists each change under a History section; without a history there is none', () => {
    const md = renderMarkdown(loadFixture(), { history: { series: [stepped, flat], rule } });
    expect(md).toContain('## History');
    expect(md).toContain('- fastify on baseline, throughput ÷ node-http: worse −12.0% \\[−14.0%, −10.0%\\] after a000b00000');
    expect(renderMarkdown(loadFixture())).not.toContain('## History');
  });

  it("says the machine's A/A coverage and its design's round 1 over the runs kept, when the caller gives them", () => {
    const control = {
      runs: 12,
      controlled: 12,
      intervals: 40,
      held: 38,
      share: 0.95,
      nominal: 0.95,
      alpha: 0.05,
      pValue: 0.6,
      tooNarrow: false,
      processSd: null,
      roundOne: { runs: 12, blocks: 310, otherDesigns: 0, point: 0.975, ci95: [0.966, 0.984] as const, widthFrom: 'blocks' as const, flag: 0.01, verdict: 'beyond' as const, runsToResolve: null },
    };
    const md = renderMarkdown(loadFixture(), { history: { series: [stepped, flat], rule, control } });
    const section = md.slice(md.indexOf('## History'));
    expect(section).toContain('\nA/A control on this machine: 38 of 40 intervals held 1 (95%) over 12 runs; expected about 95%.\n');
    expect(section).toContain(
      "\nRound 1 ÷ its block's later rounds (the pairs' ratios to the reference), pooled over 12 runs of this design (310 blocks): 0.975 \\[0.966, 0.984\\], 2.5% low, beyond ±1%",
    );
    const html = renderHtml(loadFixture(), { history: { series: [stepped, flat], rule, control } });
    expect(html).toContain('<p class="muted">A/A control on this machine: 38 of 40 intervals held 1 (95%)');
    expect(html).toContain('<p class="note bad">Round 1 ÷ its block&#39;s later rounds');
    // Without them (results rendered without the machine's checks), the section as before.
    expect(renderMarkdown(loadFixture(), { history: { series: [stepped, flat], rule } })).not.toContain('A/A control on this machine');
  });
});

let browser: Browser;
let dir: string;
beforeAll(async () => {
  dir = scratch('benchsuite-history-html');
  if (chromiumPath) browser = await chromium.launch({ executablePath: chromiumPath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
});
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(name: string, html: string) {
  const file = join(dir, name);
  writeFileSync(file, html);
  const url = pathToFileURL(file).href;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => {
    errors.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(url, { waitUntil: 'load' });
  return { page, context, requests, errors, url };
}

describe.skipIf(chromiumMissing !== null)(`history charts in a real browser${chromiumMissing ? ` (skipped: ${chromiumMissing})` : ''}`, () => {
  it('the history page: every series charted, the change marked between the two runs it falls between, nothing fetched', async () => {
    const { page, context, requests, errors, url } = await open('history.html', renderHistoryHtml([stepped, flat], { rule, generator: 'benchsuite test', file: '/h.sqlite' }));
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    expect(await page.locator('svg.chart.history').count()).toBe(2);
    const chart = page.locator('svg.chart.history').first();
    expect(await chart.getAttribute('aria-label')).toBe('fastify on baseline, throughput ÷ node-http: 20 runs, 1 change');
    const marker = chart.locator('g.change.worse line');
    expect(await marker.count()).toBe(1);
    const dots = chart.locator('g.series circle');
    expect(await dots.count()).toBe(20);
    const x = Number(await marker.getAttribute('x1'));
    const before = Number(await dots.nth(11).getAttribute('cx'));
    const after = Number(await dots.nth(12).getAttribute('cx'));
    expect(x).toBeGreaterThan(before);
    expect(x).toBeLessThan(after);
    // The hostile target name arrives as text, not markup.
    expect(await page.locator('svg.chart.history').nth(1).getAttribute('aria-label')).toContain(HOSTILE_NAME);
    expect(await page.locator('ul.changes li.worse').count()).toBe(1);
    await context.close();
  });

  it("a run's report with its history: a History section with each pair's series, linked from the navigation", async () => {
    const { page, context, errors } = await open('report.html', renderHtml(loadFixture(), { history: { series: [stepped], rule } }));
    expect(errors).toEqual([]);
    expect(await page.locator('nav a[href="#history"]').count()).toBe(1);
    expect(await page.locator('#history svg.chart.history').count()).toBe(1);
    expect(await page.locator('#history g.change.worse').count()).toBe(1);
    await context.close();
    const without = await open('plain.html', renderHtml(loadFixture()));
    expect(await without.page.locator('#history').count()).toBe(0);
    await without.context.close();
  });
});
