import { describe, expect, it } from 'vitest';
import { noteText } from '../src/notes.js';
import { buildModel, foldedNotes, packageTable, renderHtml, renderMarkdown, renderTerminal, shortFrame, stacksFilesOf } from '../src/index.js';
import { MARKUP_FRAME, loadFixture, loadStacks } from './helpers.js';

/** The Markdown between `### <scenario>: profiles` and the next `## ` heading. */
const profilesOf = (md: string, scenario: string) => md.split(`### ${scenario}: profiles`)[1]!.split(/\n## /)[0]!;
/** The markup of the first element `<tag class="cls"…>…</tag>` (SVGs do not nest here). */
const element = (html: string, tag: string, cls: string) => {
  const at = html.indexOf(`<${tag} xmlns="http://www.w3.org/2000/svg" class="${cls}"`);
  return at < 0 ? null : html.slice(at, html.indexOf(`</${tag}>`, at) + tag.length + 3);
};
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

describe('profiles in the reports', () => {
  const r = loadFixture();
  const stacks = loadStacks(r);
  const nodeHttp = r.profiles.find((p) => p.scenario === 'baseline' && p.target === 'node-http')!;
  const fastify = r.profiles.find((p) => p.scenario === 'baseline' && p.target === 'fastify')!;

  it('lists the collapsed-stacks files a result refers to, once each', () => {
    expect(stacksFilesOf(r)).toEqual(['profiles/baseline--node-http.collapsed', 'profiles/baseline--fastify.collapsed']);
    expect(Object.keys(stacks)).toEqual(stacksFilesOf(r));
    expect(stacksFilesOf({ ...r, profiles: [] })).toEqual([]);
  });

  it('Markdown: a top-10 table per profiled target, time by package side by side, the profiler cost, and why a target has none', () => {
    const md = renderMarkdown(r);
    const base = profilesOf(md, 'baseline');
    expect(nodeHttp.summary!.top.length).toBeGreaterThan(10);
    const nodeTable = base.split('#### node-http')[1]!.split('#### fastify')[0]!;
    const rows = nodeTable.split('\n').filter((l) => /^\| \d+ \|/.test(l));
    expect(rows).toHaveLength(10);
    const top = nodeHttp.summary!.top[0]!;
    expect(top.name).toContain(MARKUP_FRAME);
    expect(rows[0]).toBe(`| 1 | route&lt;T &amp; U&gt; (…/dist/contract/routing.js:88) | contract | ${pct(top.self)} | ${pct(top.total)} |`);
    expect(rows[9]!.startsWith('| 10 | ')).toBe(true);
    expect(nodeTable).toContain('| # | Function | Group | Self | Total |');
    expect(nodeTable).toContain(`The profiled window ran at ${nodeHttp.costRatio!.toFixed(2)}× the unprofiled req/s (52,140 vs 57,310 req/s, same process): the profiler's cost.`);
    expect(nodeTable).toContain('Profiler node: 2\u202f109 samples (every 1 ms) over 2.1 s, 16.2% idle; collapsed stacks in profiles/baseline--node-http.collapsed.');
    expect(base).toContain('| Group | Kind | node-http | fastify |');
    const runtime = (p: typeof nodeHttp) => p.summary!.byPackage.find((g) => g.name === 'runtime')!.self;
    expect(base).toContain(`| runtime | runtime | ${pct(runtime(nodeHttp))} | ${pct(runtime(fastify))} |`);
    expect(base).toMatch(/\| fastify \| package \| — \| \d+\.\d% \|/);
    expect(base).toContain('- ⚠ express: not profiled, profiler perf unavailable: perf may not sample other processes here (kernel.perf\\_event\\_paranoid is 3; run as root or set it to 1).');
    expect(profilesOf(md, 'json-post')).toContain('- ⚠ fastify: profiling with node failed: the profile was not written within 60 s.');
    expect(md).not.toContain('### concurrency-ramp: profiles');
    expect(md).not.toContain('route<T');
    expect(md).toContain("- Profiles: after a scenario's blocks, each target ran once more on a fresh process");
    expect(renderMarkdown({ ...loadFixture(), profiles: [] })).not.toMatch(/profiles|Profiles/);
  });

  it('HTML: a flame graph per profiled target from the stacks, names escaped, and one package bar chart per scenario', () => {
    const html = renderHtml(r, { stacks });
    expect(html.match(/<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" class="flame"/g)).toHaveLength(2);
    expect(html.match(/class="package-bars"/g)).toHaveLength(1);
    const flame = element(html, 'svg', 'flame')!;
    expect(flame).toContain('aria-label="node-http · baseline: flame graph (hover a frame for its share)"');
    expect(flame).toContain('<title>route&lt;T &amp; U&gt; (/srv/benchsuite/packages/servers/dist/contract/routing.js:88) — ');
    expect(html).not.toContain('route<T');
    expect(html).not.toContain('T & U');
    const bars = element(html, 'svg', 'package-bars')!;
    expect(bars).toContain('>node-http</text>');
    expect(bars).toContain('>fastify</text>');
    expect(bars).toContain('<title>fastify · fast-json-stringify: ');
    // The top-functions table and the cost are there too; the unavailable and failed profiles say why.
    expect(html).toContain('<td>route&lt;T &amp; U&gt; (…/dist/contract/routing.js:88)</td>');
    expect(html).toContain(`The profiled window ran at ${fastify.costRatio!.toFixed(2)}× the unprofiled req/s`);
    expect(html).toContain('express: not profiled, profiler perf unavailable: perf may not sample other processes here');
    expect(html).toContain('fastify: profiling with node failed: the profile was not written within 60 s.');
  });

  it('HTML without the stacks: the tables and the package bars, and which file the flame graph needs', () => {
    const html = renderHtml(r);
    expect(html).not.toContain('class="flame"');
    expect(html.match(/class="package-bars"/g)).toHaveLength(1);
    expect(html).toContain('<td>route&lt;T &amp; U&gt; (…/dist/contract/routing.js:88)</td>');
    expect(html).toContain('in profiles/baseline--fastify.collapsed next to results.json, which were not given to the report');
    // Stacks for one file only: that target gets its flame graph, the other says what is missing.
    const one = renderHtml(r, { stacks: { 'profiles/baseline--fastify.collapsed': stacks['profiles/baseline--fastify.collapsed']! } });
    expect(one.match(/class="flame"/g)).toHaveLength(1);
    expect(one).toContain('in profiles/baseline--node-http.collapsed next to results.json');
  });

  it('terminal: one short line per profiled target (cost, top 3 functions, top 3 groups), and why the others have none', () => {
    const text = renderTerminal(r);
    const block = text.split('\nbaseline — ')[1]!.split('\n\n')[0]!;
    const lines = block.split('\n');
    const at = lines.indexOf('  profiles:');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe(
      `    node-http (${nodeHttp.costRatio!.toFixed(2)}× req/s): route<T & U> (routing.js:88) 23%, writeGeneric (stream_base_commons:147) 15%, (program) 7% · runtime 60%, contract 32%, gc 5%`,
    );
    expect(lines[at + 2]).toMatch(/^ {4}fastify \(0\.89× req\/s\): writeGeneric \(stream_base_commons:147\) 16%, .* · runtime 42%, fastify 33%, gc 9%$/);
    expect(lines[at + 3]).toBe('    – express: not profiled, profiler perf unavailable: perf may not sample other processes here (kernel.perf_event_paranoid is 3; run as root or set it to 1).');
    expect(text.split('\nconcurrency-ramp — ')[1]).not.toContain('profiles:');
  });

  it('time by package: the largest groups by their biggest share in any target, the rest summed into other', () => {
    const views = buildModel(r).scenarios[0]!.profiles;
    expect(views.map((v) => v.target)).toEqual(['node-http', 'fastify', 'express']);
    const t = packageTable(views, 3);
    expect(t.columns.map((c) => c.label)).toEqual(['Group', 'Kind', 'node-http', 'fastify']);
    expect(t.rows.map((x) => x.name)).toEqual(['runtime', 'fastify', 'contract', 'other (4 groups)']);
    const other = t.rows[3]!;
    const sum = (p: typeof nodeHttp, names: string[]) => p.summary!.byPackage.filter((g) => names.includes(g.name)).reduce((a, g) => a + g.self, 0);
    expect(other.shares[0]).toBeCloseTo(sum(nodeHttp, ['gc', 'own']), 10);
    expect(other.shares[1]).toBeCloseTo(sum(fastify, ['gc', 'find-my-way', 'fast-json-stringify', 'own']), 10);
    expect(t.rows[1]!.shares).toEqual([null, fastify.summary!.byPackage.find((g) => g.name === 'fastify')!.self]);
  });

  it('shortens long file paths of frames, and leaves other frames alone', () => {
    expect(shortFrame('handle (/srv/app/node_modules/fastify/lib/route.js:12:5)')).toBe('handle (…/fastify/lib/route.js:12:5)');
    expect(shortFrame('handle (/srv/app/node_modules/fastify/lib/route.js:12)', 0)).toBe('handle (route.js:12)');
    expect(shortFrame('handle (/lib/route.js:12)')).toBe('handle (/lib/route.js:12)');
    expect(shortFrame('x (/home/me/app (copy)/deep/er/a.js:1)')).toBe('x (…/deep/er/a.js:1)');
    expect(shortFrame('write (node:net:917)')).toBe('write (node:net:917)');
    expect(shortFrame('(program)')).toBe('(program)');
    expect(shortFrame('memcpy (libc.so.6)', 0)).toBe('memcpy (libc.so.6)');
  });
});

describe('notes folded per scenario for the terminal', () => {
  it('lists the targets that missed the precision target, or never had a steady warm-up, in one line each', () => {
    const r = loadFixture();
    // Every baseline block's warm-up unsteady for two targets: one line names both.
    for (const b of r.blocks) for (const t of b.targets) if (b.scenario === 'baseline' && t.target !== 'fastify') t.steady = false;
    const m = buildModel(r);
    const base = foldedNotes(m.scenarios[0]!);
    expect(base.scenario.map((n) => noteText(n))).toEqual(['warm-up not steady within ±5% for: node-http, express (2 of 2 blocks)']);
    expect(base.rows.flatMap((x) => x.notes).map((n) => n.kind)).toEqual(['client-bound', 'loader-bound']);
    const json = foldedNotes(m.scenarios[1]!);
    const reached = (t: string) => (r.summaries.find((s) => s.scenario === 'json-post' && s.target === t)!.precision.reached! * 100).toFixed(1);
    expect(json.scenario.map((n) => noteText(n))).toEqual([`precision target ±2.0% not reached by: fastify ±${reached('fastify')}%, node-http ±${reached('node-http')}% (the time budget ran out)`]);
    const text = renderTerminal(r);
    expect(text).toContain('  ! Warm-up not steady within ±5% for: node-http, express (2 of 2 blocks).');
    expect(text).not.toMatch(/: warm-up reached its maximum/);
    expect(text).not.toMatch(/: Precision ±/);
  });

  it('keeps different block counts apart in the warm-up line', () => {
    expect(
      noteText({
        kind: 'warmup-not-steady-targets',
        targets: [
          { target: 'a', blocks: 1, of: 1 },
          { target: 'b', blocks: 1, of: 2 },
          { target: 'c', blocks: 1, of: 1 },
        ],
        tolerance: 0.05,
      }),
    ).toBe('warm-up not steady within ±5% for: a, c (1 of 1 block); b (1 of 2 blocks)');
  });
});
