// Concurrency sweeps and per-process figures in the reports: the fixture's ramp (10 → 50 → 200)
// as measured, and with unexpected statuses put into one level of one target's windows.
import { describe, expect, it } from 'vitest';
import type { BenchResult } from '@benchsuite/sdk';
import { renderHtml, renderMarkdown, renderTerminal } from '../src/index.js';
import { loadFixture, resummarize } from './helpers.js';

/** The fixture with 7 answers of fastify's first window at 50 connections turned into 500s. */
function withUncleanLevel(): BenchResult {
  const r = loadFixture();
  const w = r.windows.find((x) => x.status === 'ok' && x.scenario === 'concurrency-ramp' && x.target === 'fastify' && x.excluded === null);
  if (w?.status !== 'ok') throw new Error('fixture has no fastify ramp window');
  const step = w.steps.find((s) => s.connections === 50)!;
  const [code, n] = Object.entries(step.statusCounts)[0]!;
  step.statusCounts = { [code]: n - 7, '500': 7 };
  step.unexpected = 7;
  step.non2xx = 7;
  step.errors = 2;
  return resummarize(r);
}
/** The text after `from` up to the next heading, with the narrow no-break spaces of numbers as plain spaces. */
const section = (text: string, from: string) =>
  text
    .split(from)[1]!
    .split('\n### ')[0]!
    .replace(/\u202f/g, ' ');
const rowOf = (table: string, target: string) =>
  table
    .split('\n')
    .find((l) => l.startsWith(`| ${target} |`))!
    .split(' | ')
    .map((c) => c.replace(/^\| |\s\|$/g, ''));

describe('a sweep in the reports', () => {
  it('Markdown: the best clean point and knee per target, and the status mix per level', () => {
    const r = loadFixture();
    const md = renderMarkdown(r);
    const sweep = section(md, '### concurrency-ramp: sweep');
    const node = r.summaries.find((s) => s.scenario === 'concurrency-ramp' && s.target === 'node-http')!;
    expect(node.sweep!.bestClean!.connections).toBe(50);
    expect(rowOf(sweep, 'node-http')).toEqual(['node-http', '60 632 [57 560, 63 867] at 50', '0.839 ms', '2.537 ms', '50 (→ 200: −4.6%)', 'none']);
    expect(section(md, '### concurrency-ramp: per step')).toContain('| 201×907 346 ✓ |');
    // A fixed load has no sweep section.
    expect(md).not.toContain('### baseline: sweep');
  });

  it('a level with unexpected statuses and errors is marked and left out of the best clean point', () => {
    const r = withUncleanLevel();
    const fastify = r.summaries.find((s) => s.scenario === 'concurrency-ramp' && s.target === 'fastify')!;
    expect(fastify.sweep!.uncleanLevels).toEqual([50]);
    // 50 connections had the most req/s; the best clean point is now the best of the other levels.
    const clean = fastify.steps.filter((s) => s.connections !== 50).reduce((a, b) => (b.rps.point > a.rps.point ? b : a));
    expect(fastify.sweep!.bestClean!.connections).toBe(clean.connections);
    const md = renderMarkdown(r);
    const row = rowOf(section(md, '### concurrency-ramp: sweep'), 'fastify');
    expect(row[1]).toMatch(new RegExp(` at ${clean.connections}$`));
    expect(row.at(-1)).toBe('⚠ 50');
    expect(section(md, '### concurrency-ramp: per step')).toMatch(/\| fastify \| 50 \|.*\| ⚠ 201×[\d ]+, 500×7, 2 errors ✗ \|/);
    const term = renderTerminal(r);
    expect(term).toContain('  sweep:');
    expect(term.replace(/\u202f/g, ' ')).toMatch(/\n {4}fastify .* at \d+ .* 50\n/);
  });

  it('HTML: req/s and p99 by connections with the best clean point and the knee ringed, and the sweep table', () => {
    const r = loadFixture();
    const html = renderHtml(r);
    const ramp = html
      .split('<h2>Scenario: concurrency-ramp</h2>')[1]!
      .split('</section>')[0]!
      .replace(/\u202f/g, ' ');
    expect(ramp).toContain('aria-label="req/s by connections (95% interval; rings: best clean, knee)"');
    expect(ramp).toContain('aria-label="p99 latency by connections (log scale; ring: knee)"');
    // node-http, fastify and express each have their best clean point and knee at 50: one ring on
    // the req/s curve (both names) and one on the p99 curve per target.
    expect(ramp.match(/<circle class="mark"/g)).toHaveLength(6);
    expect(ramp).toContain('<title>node-http: best clean point, knee, 60 632</title>');
    expect(ramp).toContain('<h3>Sweep</h3>');
    expect(ramp).toContain('<h3>Per process and per core</h3>');
  });
});

describe('per-process and per-core figures in the reports', () => {
  it('show working processes, cores used, req/s per process and per core for every measured pair', () => {
    const r = loadFixture();
    const md = renderMarkdown(r);
    const table = section(md, '### baseline: per process and per core');
    const s = r.summaries.find((x) => x.scenario === 'baseline' && x.target === 'node-http')!;
    expect(s.perProcess!.processes).toBe(1);
    expect(rowOf(table, 'node-http')[1]).toBe('1 (1)');
    expect(table).toContain('| Target | Processes | Cores used | req/s per process | req/s per core |');
    expect(renderTerminal(r)).toContain('  per process and per core:');
  });
});
