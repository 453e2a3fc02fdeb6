import { describe, expect, it } from 'vitest';
import { compareResults, escapeHtml, escapeMarkdown, renderCompareMarkdown, renderHtml, renderMarkdown, renderTerminal } from '../src/index.js';
import { HOSTILE_NAME, hostileFixture, hostileStacks, loadFixture } from './helpers.js';

const RAW_MARKUP = [/<script/i, /<img/i, /<iframe/i, /<svg onload/i, /<b onclick/i, /<\/pre><script/i, /<\/details><script/i];

describe('escaping of strings from the result', () => {
  it('escapes HTML and Markdown punctuation in the helpers', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(escapeMarkdown('a|b *c* [d](e) <i>&\nf')).toBe('a\\|b \\*c\\* \\[d\\](e) &lt;i&gt;&amp; f');
    // A sentence's code span stays a code span (report.md once showed \`benchsuite compare\`); a lone backtick is escaped.
    expect(escapeMarkdown('use `benchsuite compare` across *runs*')).toBe('use `benchsuite compare` across \\*runs\\*');
    expect(escapeMarkdown('a ` b')).toBe('a \\` b');
    expect(escapeMarkdown('x `y|z`')).toBe('x `y\\|z`');
    expect(renderMarkdown(loadFixture())).not.toContain('\\`benchsuite');
    expect(renderMarkdown(loadFixture())).toContain('`benchsuite compare`');
  });

  it('leaves no raw markup in the Markdown report', () => {
    const md = renderMarkdown(hostileFixture());
    for (const re of RAW_MARKUP) expect(md).not.toMatch(re);
    expect(md).toContain('&lt;script&gt;alert(1)&lt;/script&gt;"\'&amp;');
    expect(md).toContain('&lt;svg onload=alert(8)&gt; not found');
    expect(md).toContain('&lt;b onclick="alert(9)"&gt;auto&lt;/b&gt;');
  });

  it("leaves no raw markup in the HTML report: the only script is the report's own", () => {
    const html = renderHtml(hostileFixture(), { stacks: hostileStacks() });
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain('class="flame"'); // the flame graphs of the hostile stacks were drawn
    expect(html).toContain('&lt;/svg&gt;&lt;script&gt;alert(14)&lt;/script&gt;');
    for (const re of [/<img/i, /<iframe/i, /<svg onload/i, /<b onclick/i]) expect(html).not.toMatch(re);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;');
    expect(html).not.toContain(HOSTILE_NAME);
  });

  it('escapes target names in the comparison Markdown', () => {
    const md = renderCompareMarkdown(compareResults(hostileFixture(), hostileFixture()));
    expect(md).not.toMatch(/<script/);
    expect(md).toContain('&lt;script&gt;');
  });

  it('prints hostile strings to a terminal as the text they are', () => {
    const text = renderTerminal(hostileFixture());
    expect(text).toContain(HOSTILE_NAME);
    expect(text).toContain('<svg onload=alert(8)> not found');
  });

  // The fixture's own text: a crash log with `<--- Last few GCs --->`, a reason with quotes.
  it("escapes the fixture's ordinary text once, never twice, and leaves text that needs none as it is", () => {
    const md = renderMarkdown(loadFixture());
    const html = renderHtml(loadFixture());
    for (const [name, doc] of [
      ['markdown', md],
      ['html', html],
    ] as const) {
      expect(doc, name).toContain('&lt;--- Last few GCs ---&gt;');
      expect(doc, name).not.toMatch(/&amp;(?:amp|lt|gt|quot|#39);/);
      expect(doc, name).toContain('swift not found on PATH');
    }
    expect(md).toContain('invalid body {"name":1} answered 500, expected 422');
    expect(html).toContain('invalid body {&quot;name&quot;:1} answered 500, expected 422');
  });
});
