import { describe, expect, it } from 'vitest';
import { escapeSvgText, flameGraphSvg, flameLayout, packageBarsSvg, type FlameRect } from '../src/flame.js';

/**
 * A small XML well-formedness check, written out by hand (no DOMParser, no regular expressions):
 * tags balance and nest, attribute values are quoted, no raw `<` in text or attributes, every `&`
 * starts a known entity. Returns the element names in document order.
 */
function checkXml(doc: string): string[] {
  const names: string[] = [];
  const open: string[] = [];
  const entityOk = (at: number) => {
    const end = doc.indexOf(';', at);
    if (end < 0 || end - at > 10) return false;
    const body = doc.slice(at + 1, end);
    if (body === 'amp' || body === 'lt' || body === 'gt' || body === 'quot' || body === 'apos') return true;
    if (body.startsWith('#x')) return body.length > 2 && [...body.slice(2)].every((c) => '0123456789abcdefABCDEF'.includes(c));
    if (body.startsWith('#')) return body.length > 1 && [...body.slice(1)].every((c) => '0123456789'.includes(c));
    return false;
  };
  let i = 0;
  while (i < doc.length) {
    const c = doc[i]!;
    if (c === '&') {
      if (!entityOk(i)) throw new Error(`bad entity at ${i}: ${doc.slice(i, i + 12)}`);
      i++;
      continue;
    }
    if (c !== '<') {
      i++;
      continue;
    }
    // a tag: scan to its '>' outside quotes
    let j = i + 1;
    let quote = '';
    while (j < doc.length) {
      const d = doc[j]!;
      if (quote) {
        if (d === quote) quote = '';
        else if (d === '<') throw new Error(`raw < in an attribute at ${j}`);
        else if (d === '&' && !entityOk(j)) throw new Error(`bad entity in an attribute at ${j}`);
      } else if (d === '"' || d === "'") quote = d;
      else if (d === '<') throw new Error(`raw < inside a tag at ${j}`);
      else if (d === '>') break;
      j++;
    }
    if (j >= doc.length) throw new Error(`unterminated tag at ${i}`);
    const inner = doc.slice(i + 1, j);
    if (inner.startsWith('/')) {
      const name = inner.slice(1).trim();
      const top = open.pop();
      if (top !== name) throw new Error(`</${name}> closes <${top}>`);
    } else {
      const selfClosing = inner.endsWith('/');
      let k = 0;
      while (k < inner.length && inner[k] !== ' ' && inner[k] !== '/') k++;
      const name = inner.slice(0, k);
      if (name === '') throw new Error(`empty tag name at ${i}`);
      // attributes: name="value" pairs, each value quoted
      const attrs = inner.slice(k, selfClosing ? -1 : undefined).trim();
      let a = 0;
      while (a < attrs.length) {
        const eq = attrs.indexOf('=', a);
        if (eq < 0 || (attrs[eq + 1] !== '"' && attrs[eq + 1] !== "'")) throw new Error(`unquoted attribute in <${name}>`);
        const close = attrs.indexOf(attrs[eq + 1]!, eq + 2);
        if (close < 0) throw new Error(`unclosed attribute in <${name}>`);
        a = close + 1;
        while (attrs[a] === ' ') a++;
      }
      names.push(name);
      if (!selfClosing) open.push(name);
    }
    i = j + 1;
  }
  if (open.length) throw new Error(`unclosed: ${open.join(', ')}`);
  return names;
}

const W = 1000;

describe('flameLayout', () => {
  it('gives each frame a width proportional to its weight; children sum to the parent minus its self time', () => {
    const layout = flameLayout('a;b 30\na;c 20\na 10\nd 40\n', { width: W });
    expect(layout.total).toBe(100);
    expect(layout.maxDepth).toBe(2);
    expect(layout.rects).toEqual([
      { name: 'all', depth: 0, x: 0, width: 1000, value: 100 },
      { name: 'a', depth: 1, x: 0, width: 600, value: 60 },
      { name: 'd', depth: 1, x: 600, width: 400, value: 40 },
      { name: 'b', depth: 2, x: 0, width: 300, value: 30 },
      { name: 'c', depth: 2, x: 300, width: 200, value: 20 },
    ]);
  });

  it('merges frames under the minimum width into one, at the right end, and draws nothing below them', () => {
    const lines = ['main;big 1000', 'main;tiny0;deeper 1'];
    for (let i = 1; i < 50; i++) lines.push(`main;tiny${i} 1`);
    const layout = flameLayout(lines.join('\n'), { width: W, minWidth: 5 });
    const depth2 = layout.rects.filter((r) => r.depth === 2);
    expect(depth2.map((r) => [r.name, r.merged])).toEqual([
      ['big', undefined],
      ['(50 frames, each under 5px)', 50],
    ]);
    const main = layout.rects.find((r) => r.name === 'main')!;
    expect(depth2.reduce((a, r) => a + r.width, 0)).toBeCloseTo(main.width, 9);
    expect(depth2[1]!.x).toBeCloseTo(depth2[0]!.x + depth2[0]!.width, 9);
    expect(layout.rects.some((r) => r.name === 'deeper')).toBe(false);
  });

  it('stays small for any profile: every frame but one merged frame per parent is at least minWidth wide', () => {
    const lines: string[] = [];
    for (let i = 0; i < 10_000; i++) lines.push(`root;m${i % 7};f${i % 101};g${i} 1`);
    const layout = flameLayout(lines.join('\n'), { width: 960, minWidth: 1 });
    const byDepth = new Map<number, FlameRect[]>();
    for (const r of layout.rects) byDepth.set(r.depth, [...(byDepth.get(r.depth) ?? []), r]);
    for (const [depth, rects] of byDepth) {
      const parents = depth === 0 ? 1 : byDepth.get(depth - 1)!.filter((p) => !p.merged).length;
      expect(rects.filter((r) => r.width < 1).length).toBeLessThanOrEqual(parents);
      // widths at one depth never exceed the root
      expect(rects.reduce((a, r) => a + r.width, 0)).toBeLessThanOrEqual(960 + 1e-6);
    }
    expect(layout.rects.length).toBeLessThan(2000);
  });

  it('leaves idle stacks out by default, as the profile summary does', () => {
    expect(flameLayout('(idle) 50\nmain;work 50\n').total).toBe(50);
    expect(flameLayout('(idle) 50\nmain;work 50\n', { exclude: [] }).total).toBe(100);
  });

  it('handles a 5000-frame deep stack', () => {
    const deep = Array.from({ length: 5000 }, (_, i) => `f${i}`).join(';');
    const layout = flameLayout([[deep, 3]]);
    expect(layout.maxDepth).toBe(5000);
  });

  it('is deterministic: the same stacks in any order, as text or as a map, give the same SVG', () => {
    const text = 'x;y 3\na;b 2\nx;z 5\na 1\n';
    const shuffled = 'a 1\nx;z 5\na;b 2\nx;y 3\n';
    const map = new Map([
      ['x;z', 5],
      ['a', 1],
      ['x;y', 3],
      ['a;b', 2],
    ]);
    expect(flameGraphSvg(shuffled)).toBe(flameGraphSvg(text));
    expect(flameGraphSvg(map)).toBe(flameGraphSvg(text));
  });
});

describe('flameGraphSvg', () => {
  const hostile = 'main (/srv/app.js:1);Array.<anonymous> (/srv/a<b>.js:2);a<b>&"c\'\u0001 (node:internal/x:3) 7\nmain (/srv/app.js:1) 3\n';

  it('escapes every name: a function named with < appears escaped, never raw', () => {
    const svg = flameGraphSvg(hostile, { title: '<script>alert(1)</script>', width: 2000 });
    expect(svg).toContain('Array.&lt;anonymous&gt; (/srv/a&lt;b&gt;.js:2)');
    expect(svg).toContain('a&lt;b&gt;&amp;&quot;c&#39;\uFFFD (node:internal/x:3)');
    expect(svg).not.toContain('<anonymous>');
    expect(svg).not.toContain('a<b>');
    expect(svg).not.toContain('<script');
    expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('is well-formed XML: one svg root, balanced tags, quoted attributes, valid entities', () => {
    const names = checkXml(flameGraphSvg(hostile, { title: 'x' }));
    expect(names[0]).toBe('svg');
    expect(names.filter((n) => n === 'svg')).toHaveLength(1);
    // every frame: a group with a tooltip and a rect
    expect(names.filter((n) => n === 'rect')).toHaveLength(names.filter((n) => n === 'g').length);
    expect(names.filter((n) => n === 'title')).toHaveLength(names.filter((n) => n === 'g').length + 1);
  });

  it("draws one rect per laid-out frame with the layout's widths, and tooltips with shares", () => {
    const svg = flameGraphSvg('a;b 30\na;c 20\na 10\nd 40\n', { width: W });
    const widths: number[] = [];
    for (let at = svg.indexOf('width="', svg.indexOf('<rect')); at >= 0; at = svg.indexOf('<rect', at + 1)) {
      const w = svg.indexOf('width="', at) + 7;
      widths.push(Number(svg.slice(w, svg.indexOf('"', w))));
    }
    expect(widths).toEqual([1000, 600, 400, 300, 200]);
    expect(svg).toContain('<title>b — 30.0% (30 samples)</title>');
    expect(svg).toContain('<title>all — 100.0% (100 samples)</title>');
  });

  it('truncates labels to the frame and leaves narrow frames unlabelled (the tooltip keeps the name)', () => {
    const long = `veryLongFunctionName${'x'.repeat(200)} (/srv/app.js:1)`;
    const svg = flameGraphSvg(`${long} 10\ntiny 1\n`, { width: 300, minWidth: 0 });
    expect(svg).toContain(`<title>${long} — 90.9% (10 samples)</title>`);
    const start = svg.indexOf('">veryLong') + 2; // the label: a <text> (the <title> before it has the whole name)
    const label = svg.slice(start, svg.indexOf('</text>', start));
    expect(label.endsWith('…')).toBe(true);
    expect(Array.from(label).length).toBeLessThan(300 / 6);
    expect(svg).not.toContain('>tiny</text>'); // 27 px wide: room for 3 characters at most
  });

  it('shows time in ms for microsecond weights and says when there is nothing', () => {
    expect(flameGraphSvg('a 2500', { unit: 'us' })).toContain('(2.5 ms)');
    expect(checkXml(flameGraphSvg(''))).toContain('svg');
    expect(flameGraphSvg('')).toContain('no samples');
  });

  it('escapes what it is given as a colour too', () => {
    const svg = flameGraphSvg('a 1', { color: () => '"/><script>' });
    expect(svg).not.toContain('<script>');
    checkXml(svg);
  });
});

describe('packageBarsSvg', () => {
  const rows = [
    {
      label: 'hono',
      groups: [
        { name: 'runtime', self: 0.6 },
        { name: 'hono', self: 0.25 },
        { name: '@hono/node-server', self: 0.1 },
        { name: 'own', self: 0.05 },
      ],
    },
    {
      label: 'node-<http>',
      groups: [
        { name: 'runtime', self: 0.8 },
        { name: 'own', self: 0.15 },
        { name: 'contract', self: 0.05 },
      ],
    },
  ];

  it("stacks each target's shares across the bar; the same group has the same colour on every bar", () => {
    const svg = packageBarsSvg(rows, { width: 720, title: 'json-post: time by package' });
    checkXml(svg);
    expect(svg).toContain('node-&lt;http&gt;');
    expect(svg).not.toContain('node-<http>');
    const segs: Array<{ title: string; width: number; fill: string }> = [];
    for (let at = svg.indexOf('<g><title>'); at >= 0; at = svg.indexOf('<g><title>', at + 1)) {
      const title = svg.slice(at + 10, svg.indexOf('</title>', at));
      const r = svg.indexOf('<rect', at);
      const w = svg.indexOf('width="', r) + 7;
      const f = svg.indexOf('fill="', r) + 6;
      segs.push({ title, width: Number(svg.slice(w, svg.indexOf('"', w))), fill: svg.slice(f, svg.indexOf('"', f)) });
    }
    expect(segs.map((s) => s.title)).toEqual([
      'hono · runtime: 60.0% of CPU time',
      'hono · hono: 25.0% of CPU time',
      'hono · own: 5.00% of CPU time', // segments in legend order (largest share anywhere first), the same on every bar
      'hono · @hono/node-server: 10.0% of CPU time',
      'node-&lt;http&gt; · runtime: 80.0% of CPU time',
      'node-&lt;http&gt; · own: 15.0% of CPU time',
      'node-&lt;http&gt; · contract: 5.00% of CPU time',
    ]);
    const hono = segs.slice(0, 4).reduce((a, s) => a + s.width, 0);
    const node = segs.slice(4).reduce((a, s) => a + s.width, 0);
    expect(hono).toBeCloseTo(node, 1); // both sum to the full bar
    expect(segs[0]!.fill).toBe(segs[4]!.fill); // runtime
    expect(segs[2]!.fill).toBe(segs[5]!.fill); // own
  });

  it('folds groups beyond maxGroups into other', () => {
    const svg = packageBarsSvg(rows, { maxGroups: 2 });
    expect(svg).toContain('hono · other: 15.0% of CPU time');
    expect(svg).toContain('node-&lt;http&gt; · other: 20.0% of CPU time');
  });

  it('escapes hostile group names', () => {
    const svg = packageBarsSvg([{ label: 'x', groups: [{ name: '<img src=x onerror=alert(1)>', self: 1 }] }]);
    expect(svg).not.toContain('<img');
    expect(escapeSvgText('<img')).toBe('&lt;img');
    checkXml(svg);
  });
});
