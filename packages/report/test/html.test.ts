import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { renderHtml } from '../src/index.js';
import { HOSTILE_NAME, hostileFixture, loadFixture } from './helpers.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const SCREENSHOT = new URL('./__screenshots__/report.png', import.meta.url);

let browser: Browser;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'benchsuite-report-'));
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
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
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', async (d) => { dialogs.push(d.message()); await d.dismiss(); });
  await page.goto(url, { waitUntil: 'load' });
  return { page, context, requests, errors, dialogs };
}

const cellTexts = (page: Page, selector: string) => page.$$eval(selector, (tds) => tds.map((td) => td.textContent?.trim() ?? ''));

describe('renderHtml in a real browser', () => {
  it('loads with no console error and no request but the file itself', async () => {
    const url = writeHtml('report.html', renderHtml(loadFixture()));
    const { page, context, requests, errors } = await open(url);
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    // 3 scenarios × (RPS, latency curves, CPU, RPS/CPU-s, peak RSS) + 2 per-step charts for the stepped one.
    expect(await page.locator('svg.chart').count()).toBe(17);
    expect(await page.locator('section[id^="s"] svg.chart path').count()).toBeGreaterThan(20);
    expect(await page.locator('html.js').count()).toBe(1);
    mkdirSync(new URL('.', SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT.pathname, fullPage: true });
    await context.close();
  });

  it('shows skipped, failed-verify and crashed targets with their reasons, and the client-bound explanation', async () => {
    const { page, context } = await open(writeHtml('report.html', renderHtml(loadFixture())));
    const text = await page.locator('main').innerText();
    expect(text).toContain('swift not found on PATH');
    expect(text).toContain('invalid body {"age":"x"} answered 500, expected 400');
    expect(text).toContain('server exited during load (signal SIGKILL)');
    expect(text).toContain("Client-bound. The load generator's core was saturated during the trial");
    await context.close();
  });

  it('sorts a table when a header is clicked (progressive enhancement)', async () => {
    const { page, context } = await open(writeHtml('report.html', renderHtml(loadFixture())));
    const table = page.locator('#s1-plaintext table.sortable').first();
    const names = () => table.locator('tbody:not(.missing) .tname').allInnerTexts();
    expect(await names()).toEqual(['node-http', 'fastify', 'express']);
    await table.locator('th', { hasText: 'p99.9' }).click(); // descending first
    expect(await names()).toEqual(['express', 'node-http', 'fastify']);
    await table.locator('th', { hasText: 'p99.9' }).click();
    expect(await names()).toEqual(['fastify', 'node-http', 'express']);
    expect(await table.locator('tbody.missing td').first().innerText()).toBe('hummingbird');
    await context.close();
  });

  it('is readable with JavaScript disabled: tables and charts are in the document', async () => {
    const { page, context, errors } = await open(writeHtml('report.html', renderHtml(loadFixture())), false);
    expect(errors).toEqual([]);
    expect(await page.locator('html.js').count()).toBe(0);
    expect(await page.locator('table').count()).toBeGreaterThanOrEqual(10);
    expect(await page.locator('svg.chart').count()).toBe(17);
    expect(await cellTexts(page, '#s3-plaintext-steps table.sortable tbody tr td:nth-child(2)')).toContain('53,537 ± 280');
    await context.close();
  });

  it('shows hostile strings as text: no dialog, no injected element, no console error', async () => {
    const { page, context, dialogs, errors, requests } = await open(writeHtml('hostile.html', renderHtml(hostileFixture())));
    await page.locator('details').evaluateAll((ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = true)));
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    expect(requests).toHaveLength(1);
    expect(await page.locator('script').count()).toBe(1);
    expect(await page.locator('img, iframe, b[onclick], svg[onload]').count()).toBe(0);
    const text = await page.locator('main').innerText();
    expect(text).toContain(HOSTILE_NAME);
    expect(text).toContain('<script>alert(4)</script> & "crash"');
    expect(text).toContain('<svg onload=alert(8)> not found');
    await context.close();
  });
});
