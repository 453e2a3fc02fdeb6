// The report's outline is written once (outline.ts) and the three renderers walk it: the sections
// of Markdown (## headings), HTML (<h2>, and the nav's links) and the terminal summary (its brief
// sections) come in the outline's order, and a section added there shows up in all three.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildModel, renderHtml, renderMarkdown, renderTerminal } from '../src/index.js';
import { outline } from '../src/outline.js';
import { oldResults, readOld } from './fixtures/render-goldens.js';
import { loadFixture } from './helpers.js';

const results = () => [loadFixture(), ...oldResults().map((o) => readOld(JSON.parse(readFileSync(o.file, 'utf8'))))];

describe('one outline, three renderers', () => {
  it('Markdown, HTML and the terminal draw the sections in the order of the outline', () => {
    for (const r of results()) {
      const sections = outline(buildModel(r));
      expect(sections.map((s) => s.kind)).toContain('scenario');
      const md = [...renderMarkdown(r).matchAll(/^## (.*)$/gm)].map((x) => x[1]);
      expect(md).toEqual(sections.map((s) => s.title));
      const html = renderHtml(r);
      expect([...html.matchAll(/<section id="([^"]+)"><h2>/g)].map((x) => x[1])).toEqual(sections.map((s) => s.id));
      expect([...html.matchAll(/<nav[^>]*>(.*?)<\/nav>/g)][0]![1]!.match(/href="#[^"]+"/g)).toEqual(sections.map((s) => `href="#${s.id}"`));
      // The terminal: a bold heading per brief section (a scenario's is its name and load).
      const lines = renderTerminal(r).split('\n');
      const headed = lines.flatMap((l, i) => (lines[i - 1] === '' && l && !l.startsWith(' ') ? [l] : []));
      const brief = sections.filter((s) => s.brief).map((s) => (s.kind === 'scenario' ? s.scenario.info.name : s.title[0]!.toLowerCase() + s.title.slice(1)));
      expect(headed.map((l) => l.split(' — ')[0])).toEqual(brief);
    }
  });

  it('leaves out a section with nothing to show, and draws one the run has in all three', () => {
    const r = loadFixture();
    expect(outline(buildModel(r)).map((s) => s.id)).not.toContain('thresholds');
    r.thresholds = [{ scenario: 'baseline', target: 'node-http', expression: 'p99<50ms', metric: 'p99', op: '<', limit: 50_000, measured: 2693, pass: true }];
    expect(outline(buildModel(r))[0]!.id).toBe('thresholds');
    expect(renderMarkdown(r)).toContain('## Thresholds');
    expect(renderHtml(r)).toContain('<a href="#thresholds">Thresholds</a>');
    expect(renderTerminal(r)).toMatch(/\nthresholds\n {2}Result/);
  });
});
