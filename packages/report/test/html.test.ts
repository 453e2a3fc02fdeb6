import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildModel, headlineColumns, renderHtml } from '../src/index.js';
import { chromiumMissing, chromiumPath } from './chromium.js';
import { HOSTILE_NAME, MARKUP_FRAME, hostileFixture, hostileStacks, loadFixture, loadStacks } from './helpers.js';
import { scratch } from '@benchsuite/testkit';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const SCREENSHOT = new URL('./__screenshots__/report.png', import.meta.url);

let browser: Browser;
let dir: string;

beforeAll(async () => {
  dir = scratch('benchsuite-report');
  if (chromiumPath) browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

function writeHtml(name: string, html: string): string {
  const file = join(dir, name);
  writeFileSync(file, html);
  return pathToFileURL(file).href;
}

/** Open a page recording every request, console error, page error and dialog. */
async function open(url: string, javaScriptEnabled = true) {
  const context = await browser.newContext({ javaScriptEnabled, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  const dialogs: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  await page.goto(url, { waitUntil: 'load' });
  return { page, context, requests, errors, dialogs };
}

const cellTexts = (page: Page, selector: string) => page.$$eval(selector, (tds) => tds.map((td) => td.textContent?.trim() ?? ''));

describe.skipIf(chromiumMissing !== null)(`renderHtml in a real browser${chromiumMissing ? ` (skipped: ${chromiumMissing})` : ''}`, () => {
  // 3 scenarios × (relative throughput, CPU per request, latency curves) + 3 per-step charts for the
  // ramp (req/s, relative req/s and p99 by connections).
  const CHARTS = 12;

  it('loads with no console error and no request but the file itself', async () => {
    const url = writeHtml('report.html', renderHtml(loadFixture(), { stacks: loadStacks() }));
    const { page, context, requests, errors } = await open(url);
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    expect(await page.locator('svg.chart').count()).toBe(CHARTS);
    expect(await page.locator('svg.flame').count()).toBe(2);
    expect(await page.locator('svg.package-bars').count()).toBe(1);
    expect(await page.locator('html.js').count()).toBe(1);
    mkdirSync(new URL('.', SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT.pathname, fullPage: true });
    await context.close();
  });

  it('draws relative throughput with interval whiskers and the reference line at 1, and CPU per request', async () => {
    const { page, context } = await open(writeHtml('report.html', renderHtml(loadFixture())));
    const rel = page.locator('#s1-baseline svg.chart').first();
    expect(await rel.getAttribute('aria-label')).toBe('Throughput relative to node-http (median of per-round ratios, 95% interval)');
    expect(await rel.locator('line.marker').count()).toBe(1);
    expect(await rel.locator('text.tick', { hasText: /^node-http$/ }).count()).toBe(1); // the reference line's label
    expect(await rel.locator('path.whisker').count()).toBe(2); // fastify and express; the reference is 1 by definition
    // The marker sits where a bar of value 1 ends: the reference's own bar.
    const marker = Number(await rel.locator('line.marker').getAttribute('x1'));
    const refBar = rel.locator('rect').filter({ has: page.locator('title', { hasText: 'node-http: 1.000' }) });
    const end = Number(await refBar.getAttribute('x')) + Number(await refBar.getAttribute('width'));
    expect(Math.abs(end - marker)).toBeLessThan(0.2);
    const cpu = page.locator('#s1-baseline svg.chart').nth(1);
    expect(await cpu.getAttribute('aria-label')).toBe('Server CPU per request (median, 95% interval)');
    expect(await cpu.locator('path.whisker').count()).toBe(3);
    await context.close();
  });

  it('heads each scenario table with the column specification the Markdown uses', async () => {
    const r = loadFixture();
    const { page, context } = await open(writeHtml('report.html', renderHtml(r)));
    // textContent, not innerText: the CSS upper-cases headers, and µ would come back as a Greek mu.
    const heads = await page.locator('#s1-baseline table.sortable').first().locator('thead th').allTextContents();
    expect(heads).toEqual(headlineColumns(buildModel(r)).map((c) => c.label));
    await context.close();
  });

  it('shows skipped, failed-verify and failed targets with their reasons, and the warnings in words', async () => {
    const { page, context } = await open(writeHtml('report.html', renderHtml(loadFixture())));
    const text = await page.locator('main').innerText();
    expect(text).toContain('swift not found on PATH');
    expect(text).toContain('invalid body {"name":1} answered 500, expected 422');
    expect(text).toContain('block 2, round 3: crash: server exited during load (signal SIGKILL)');
    expect(text).toContain("node-http: Client-bound in 1 of 17 windows (busiest loader core 97%, over 90%): that req/s is the load generator's ceiling, not the server's.");
    expect(text).toContain('Relative figures are ratios to node-http measured side by side in this run');
    expect(text).toContain('json-post: stopped after 2 blocks (12 rounds): the time budget ran out');
    expect(text).toMatch(/Verdict: (Excellent|Acceptable|Noisy|Unreliable) — of 8 pairs, \d Excellent \(\d+%\)/);
    expect(text).toMatch(/(Excellent|Acceptable|Noisy|Unreliable) \(blocks \d+\.\d%, windows \d+\.\d%\)/);
    expect(text).toContain('node-http: Loader-bound in 1 of 17 windows, judged by the server');
    await context.close();
  });

  it('draws a flame graph per profiled target, names shown as text, and the package bars comparing the targets', async () => {
    const { page, context, errors } = await open(writeHtml('report.html', renderHtml(loadFixture(), { stacks: loadStacks() })), false);
    expect(errors).toEqual([]);
    const flame = page.locator('#s1-baseline svg.flame').first();
    expect(await flame.getAttribute('aria-label')).toBe('node-http · baseline: flame graph (hover a frame for its share)');
    // The browser decodes the escaped name back to the text it is: one frame, no stray element.
    const titles = await flame.locator('g > title').allTextContents();
    expect(titles.filter((t) => t.startsWith(`${MARKUP_FRAME} (`))).toHaveLength(1);
    expect(await flame.locator('rect').count()).toBeGreaterThan(10);
    const tags = await flame.locator('*').evaluateAll((els) => [...new Set(els.map((e) => e.tagName))].sort());
    expect(tags).toEqual(['g', 'rect', 'text', 'title']);
    const box = await flame.boundingBox();
    expect(box!.width).toBeGreaterThan(300); // drawn, and not wider than the page
    expect(box!.width).toBeLessThanOrEqual(1280);
    const bars = page.locator('#s1-baseline svg.package-bars');
    // One bar per profiled target, labelled at its left (the legend names the groups: fastify is one too).
    expect(await bars.locator('text[text-anchor="end"]').allTextContents()).toEqual(['node-http', 'fastify']);
    const text = await page.locator('#s1-baseline').innerText();
    expect(text).toContain('express: not profiled, profiler perf unavailable');
    await context.close();
  });

  it('sorts a table when a header is clicked (progressive enhancement)', async () => {
    const { page, context } = await open(writeHtml('report.html', renderHtml(loadFixture())));
    const table = page.locator('#s1-baseline table.sortable').first();
    const names = () => table.locator('tbody:not(.missing) .tname').allInnerTexts();
    expect(await names()).toEqual(['node-http', 'fastify', 'express']);
    await table.locator('th', { hasText: 'CPU µs/req' }).click(); // descending first
    expect(await names()).toEqual(['express', 'fastify', 'node-http']);
    await table.locator('th', { hasText: 'CPU µs/req' }).click();
    expect(await names()).toEqual(['node-http', 'fastify', 'express']);
    expect(await table.locator('tbody.missing td').nth(1).innerText()).toBe('hummingbird');
    await context.close();
  });

  it('is readable with JavaScript disabled: tables and charts are in the document', async () => {
    const r = loadFixture();
    const { page, context, errors } = await open(writeHtml('report.html', renderHtml(r)), false);
    expect(errors).toEqual([]);
    expect(await page.locator('html.js').count()).toBe(0);
    expect(await page.locator('table').count()).toBeGreaterThanOrEqual(10);
    expect(await page.locator('svg.chart').count()).toBe(CHARTS);
    const step = r.summaries.find((s) => s.scenario === 'concurrency-ramp' && s.target === 'fastify')!.steps[1]!.relativeRps!;
    const cells = await cellTexts(page, '#s3-concurrency-ramp table.sortable tbody tr td:nth-child(3)');
    expect(cells).toContain(`${step.point.toFixed(3)} [${step.ci95![0].toFixed(3)}, ${step.ci95![1].toFixed(3)}]`);
    await context.close();
  });

  it('shows hostile strings as text: no dialog, no injected element, no console error', async () => {
    const { page, context, dialogs, errors, requests } = await open(writeHtml('hostile.html', renderHtml(hostileFixture(), { stacks: hostileStacks() })));
    await page.locator('details').evaluateAll((ds) => {
      for (const d of ds) (d as unknown as { open: boolean }).open = true;
    });
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    expect(requests).toHaveLength(1);
    expect(await page.locator('script').count()).toBe(1);
    expect(await page.locator('img, iframe, b[onclick], svg[onload]').count()).toBe(0);
    const text = await page.locator('main').innerText();
    expect(text).toContain(HOSTILE_NAME);
    expect(text).toContain('<script>alert(4)</script> & "crash"');
    expect(text).toContain('<svg onload=alert(8)> not found');
    expect(await page.locator('svg.flame').count()).toBe(2);
    expect(await page.locator('svg.flame title', { hasText: '</svg><script>alert(14)</script>' }).count()).toBeGreaterThan(0);
    await context.close();
  });
});
