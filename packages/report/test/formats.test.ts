import { describe, expect, expectTypeOf, it } from 'vitest';
import { resultSchema } from '@benchsuite/sdk';
import {
  compareFormatNames,
  compareFormats,
  compareResults,
  formatNames,
  formats,
  isCompareFormatName,
  isFormatName,
  renderCompareMarkdown,
  renderHtml,
  renderMarkdown,
  renderTerminal,
  toGithubActionBenchmark,
  type CompareFormatName,
  type FormatName,
} from '../src/index.js';
import { loadFixture } from './helpers.js';

describe('the formats registry', () => {
  it('names every result format once; its keys are the type of valid names', () => {
    expect(formatNames).toEqual(['md', 'html', 'json', 'github-action-benchmark', 'terminal']);
    expectTypeOf<FormatName>().toEqualTypeOf<'md' | 'html' | 'json' | 'github-action-benchmark' | 'terminal'>();
    expect(isFormatName('html')).toBe(true);
    expect(isFormatName('toString')).toBe(false);
    for (const name of formatNames) {
      expect(formats[name].description.length).toBeGreaterThan(10);
      expect(formats[name].extension).toMatch(/^[a-z]+$/);
    }
  });

  it('renders through the same functions the package exports', () => {
    const r = loadFixture();
    expect(formats.md.render(r)).toBe(renderMarkdown(r));
    expect(formats.html.render(r)).toBe(renderHtml(r));
    expect(formats.terminal.render(r, { color: true })).toBe(renderTerminal(r, { color: true }));
    expect(JSON.parse(formats['github-action-benchmark'].render(r, { metric: 'cpu' }))).toEqual(toGithubActionBenchmark(r, { metric: 'cpu' }));
  });

  it('writes the result itself as json, valid against the schema', () => {
    const r = loadFixture();
    expect(resultSchema.parse(JSON.parse(formats.json.render(r)))).toEqual(r);
  });

  it("has comparison formats: md, json and the head run's github-action-benchmark entries", () => {
    expect(compareFormatNames).toEqual(['md', 'json', 'github-action-benchmark']);
    expectTypeOf<CompareFormatName>().toEqualTypeOf<'md' | 'json' | 'github-action-benchmark'>();
    expect(isCompareFormatName('html')).toBe(false);
    const base = loadFixture();
    const head = loadFixture();
    const outcome = compareResults(base, head);
    expect(compareFormats.md.render({ outcome, base, head })).toBe(renderCompareMarkdown(outcome));
    expect(JSON.parse(compareFormats.json.render({ outcome, base, head }))).toEqual(outcome);
    expect(JSON.parse(compareFormats['github-action-benchmark'].render({ outcome, base, head }))).toEqual(toGithubActionBenchmark(head));
  });
});
