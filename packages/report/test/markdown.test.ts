import { describe, expect, it } from 'vitest';
import { POOLED_REFERENCE, warmupWindows, type Estimate } from '@benchsuite/sdk';
import { UnknownReferenceError, headlineColumns, buildModel, renderMarkdown } from '../src/index.js';
import { loadFixture, resummarize } from './helpers.js';

/** The Markdown split at `## ` headings, keyed by heading text. */
function sections(md: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of md.split(/\n(?=## )/)) out[part.split('\n')[0]!.replace(/^#+ /, '')] = part.trimEnd();
  return out;
}

/** Cells of the table row whose first cells are `first`. */
function row(section: string, ...first: string[]): string[] {
  const line = section.split('\n').find((l) => l.startsWith(`| ${first.join(' | ')} |`));
  if (!line) throw new Error(`no row ${first.join(' | ')}`);
  return line.slice(2, -2).split(' | ');
}

// Hand formatting, independent of the report's formatters: 3 decimals for ratios, digits grouped by U+202F.
const r3 = (e: Estimate) => `${e.point.toFixed(3)} [${e.ci95![0].toFixed(3)}, ${e.ci95![1].toFixed(3)}]`;
const group = (x: number) => String(Math.round(x)).replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
const rps = (e: Estimate) => `${group(e.point)} [${group(e.ci95![0])}, ${group(e.ci95![1])}]`;
const r1 = (e: Estimate) => `${e.point.toFixed(1)} [${e.ci95![0].toFixed(1)}, ${e.ci95![1].toFixed(1)}]`;

describe('renderMarkdown', () => {
  const r = loadFixture();
  const md = renderMarkdown(r);
  const s = sections(md);
  const pair = (scenario: string, target: string) => r.summaries.find((x) => x.scenario === scenario && x.target === target)!;

  it('says first that relative figures are ratios measured side by side in one run, and warns about the steal', () => {
    const head = s['benchsuite — framework']!;
    expect(head.indexOf('> ⚠ CPU steal by the hypervisor averaged 1.4% (worst window 18.0%); 1 of 120 windows were over 10%')).toBeGreaterThan(0);
    expect(head).toContain('**Relative figures are ratios to node-http measured side by side in this run: every round measures each target once');
  });

  it('says a ratio divides by both of the reference’s processes when the run had the A/A control and its estimates say so, not for results before', () => {
    const reference = (x: typeof r) =>
      renderMarkdown(x)
        .split('\n')
        .find((l) => l.startsWith('| Reference |'));
    const withControl = { ...r, design: { ...r.design, control: 'aa' as const } };
    const withMethod = (method: string) => ({ ...withControl, summaries: withControl.summaries.map((x) => (x.relativeRps ? { ...x, relativeRps: { ...x.relativeRps, method } } : x)) });
    // An A/A run whose estimates predate the pooled reference (their method does not say it): the plain sentence.
    expect(reference(withMethod('median of per-round paired ratios; 95% interval: …'))).toBe('| Reference | node-http (relative figures are ratios to it) |');
    // Without the A/A control, whatever the method says: the plain sentence.
    expect(reference(r)).toBe('| Reference | node-http (relative figures are ratios to it) |');
    const pooled = withMethod(`median of per-round paired ratios, ${POOLED_REFERENCE}`);
    expect(reference(pooled)).toBe(
      "| Reference | node-http (relative figures are ratios to it: in each round to the geometric mean of its two processes, node-http and its A/A twin node-http.twin, so neither process's own level moves a block's ratios alone) |",
    );
  });

  it('states the design, driver and why, pinning, steal, precision reached, why each scenario stopped, overhead and runner RSS', () => {
    const facts = Object.fromEntries(
      s['benchsuite — framework']!.split('\n')
        .filter((l) => l.startsWith('| ') && !l.startsWith('| Run |  |'))
        .map((l) => {
          const [k, ...v] = l.slice(2, -2).split(' | ');
          return [k, v.join(' | ')];
        }),
    );
    expect(facts.Design).toBe(
      '1 s windows; 5–20 rounds per block, every target once per round in a seeded random order; 2–3 blocks (fresh server processes) per scenario; warm-up 2–6 s per block until per-second req/s is within ±5%, one target after another, then a wake-up window each',
    );
    expect(facts['Precision target']).toBe('95% interval half-width ≤ ±2.0% for every headline figure, within a budget of 18 min 00 s; ties inside ±1.0%; 2000 bootstrap resamples');
    expect(facts.Reference).toBe('node-http (relative figures are ratios to it)');
    expect(facts.Driver).toBe('driver wrk 4.1.0 (-t1 -c50 --latency): auto: wrk is installed and has the higher ceiling; wrk tops out near 176k req/s on one loader core here, above every target');
    expect(facts.Pinning).toBe('taskset: server CPUs 0, loader CPUs 1');
    expect(facts['CPU steal']).toMatch(/; 1 of 120 windows were over 10% and were left out of the estimates \(kept in the raw data\); 1 extra round replaced them$/);
    expect(facts['Precision reached']).toBe(
      `${r.overall.precisionMet} of 8 pairs met ±2.0%; half-width median ±${(r.overall.medianHalfWidth! * 100).toFixed(1)}%, worst ±${(r.overall.worstHalfWidth! * 100).toFixed(1)}%`,
    );
    expect(facts.Stopped!.split('<br>')).toEqual([
      expect.stringMatching(/^baseline: stopped after 2 blocks \(17 rounds\): every headline figure reached the precision target \(worst ±1\.\d%, target ±2\.0%\)$/),
      expect.stringMatching(/^json-post: stopped after 2 blocks \(12 rounds\): the time budget ran out/),
      expect.stringMatching(/^concurrency-ramp: stopped after 3 blocks \(15 rounds\): the maximum of 3 blocks was reached/),
    ]);
    expect(facts.Windows).toBe('120 measured, 1 left out for CPU steal, 1 failed');
    expect(facts.Time).toMatch(/overhead 1\.04× \(wall time ÷ time under load\)$/);
    // Where the time outside measured windows went, from the blocks by hand: every recorded warm-up
    // window at the design's length, and per block the slowest start (its servers start together).
    const { windowSec } = warmupWindows(r.design.warmup);
    const warm = r.blocks.reduce((a, b) => a + b.targets.filter((t) => t.status === 'ok').reduce((x, t) => x + t.warmupRps.length * (t.carried ? r.design.carriedWarmupWindowSec : windowSec), 0), 0);
    expect(warm).toBeGreaterThan(0);
    expect(facts.Time).toContain(`measured; the servers took about ${warm.toFixed(1)} s (${((100 * warm) / r.runner.wallSec).toFixed(0)}%) warming up`);
    expect(facts['Runner peak RSS']).toBe('83.0 MiB');
  });

  it("says which clock the CPU time came from, and counts the windows that fell back to ticks (the window's flag, or its steps' in an older result)", () => {
    const cpuFact = (x: typeof r) =>
      renderMarkdown(x)
        .split('\n')
        .find((l) => l.startsWith('| CPU time | '));
    const ok = (x: typeof r) => x.windows.filter((w) => w.status === 'ok');
    const exactly = loadFixture();
    exactly.environment.cpuClock = 'schedstat';
    const n = ok(exactly).length;
    for (const [i, w] of ok(exactly).entries()) w.resources.serverCpuExact = i % 40 !== 3;
    const ticks = ok(exactly).filter((w) => !w.resources.serverCpuExact).length;
    expect(ticks).toBeGreaterThan(0);
    expect(cpuFact(exactly)).toBe(
      `| CPU time | the scheduler's nanoseconds per thread (/proc/&lt;pid&gt;/task/&lt;tid&gt;/schedstat); clock ticks (1/100 s) in ${ticks} of ${n} windows, where a server thread exited inside the window |`,
    );
    // A version-2 result written before windows recorded the flag: on the steps only (upgradeResult asks them).
    const older = loadFixture();
    (older as { schemaVersion: number }).schemaVersion = 2;
    older.environment.cpuClock = 'schedstat';
    for (const [i, w] of ok(older).entries()) {
      delete w.resources.serverCpuExact;
      for (const s of w.steps) s.resources.serverCpuExact = i % 40 !== 3;
    }
    expect(cpuFact(older)).toBe(cpuFact(exactly));
    for (const w of ok(older)) for (const s of w.steps) s.resources.serverCpuExact = true;
    expect(cpuFact(older)).toBe("| CPU time | the scheduler's nanoseconds per thread (/proc/&lt;pid&gt;/task/&lt;tid&gt;/schedstat) |");
    const kernel = loadFixture();
    kernel.environment.cpuClock = 'ticks';
    expect(cpuFact(kernel)).toBe('| CPU time | clock ticks (utime + stime, 1/100 s): this kernel keeps no schedstat |');
    expect(cpuFact(loadFixture())).toBeUndefined();
  });

  it('ranks each scenario by relative throughput, a tie as the range of places both may take', () => {
    const ramp = s.Rankings!.split('### concurrency-ramp')[1]!;
    expect(row(ramp, '1–2', 'node-http')).toEqual(['1–2', 'node-http', '1 (reference)', rps(pair('concurrency-ramp', 'node-http').rps)]);
    expect(row(ramp, '1–2', 'fastify')[2]).toBe(r3(pair('concurrency-ramp', 'fastify').relativeRps!));
    // Third: two targets are above it whatever the noise (a partition numbered it second).
    expect(row(ramp, '3', 'express')).toHaveLength(4);
    expect(s.Rankings).not.toMatch(/### baseline[^#]*\|\s*\d–\d/);
  });

  it('shows a result from before ranges (places without `worst`) as it was: a shared place marked (tie)', () => {
    const old = loadFixture();
    for (const k of old.rankings) for (const p of k.places) delete p.worst;
    old.rankings.find((k) => k.scenario === 'concurrency-ramp')!.places[1]!.place = 2;
    const ramp = sections(renderMarkdown(old)).Rankings!.split('### concurrency-ramp')[1]!;
    expect(row(ramp, '1 (tie)', 'node-http')[1]).toBe('node-http');
    expect(row(ramp, '2', 'express')).toHaveLength(4);
  });

  it('shows every headline column of a pair, each figure with its interval', () => {
    const p = pair('baseline', 'fastify');
    expect(row(s['Scenario: baseline']!, '2', 'fastify')).toEqual([
      '2',
      'fastify',
      r3(p.relativeRps!),
      rps(p.rps),
      r1(p.cpuPerRequestUs!),
      r3(p.relativeCpu!),
      `${(p.latency.p50 / 1000).toFixed(3)} ms`,
      `${(p.latency.p99 / 1000).toFixed(3)} ms`,
      `${(p.latency.p999 / 1000).toFixed(3)} ms`,
      `±${(p.precision.reached! * 100).toFixed(1)}% ✓`,
      `${p.verdict!.band === 'noisy' || p.verdict!.band === 'unreliable' ? '⚠ ' : ''}${p.verdict!.band[0]!.toUpperCase()}${p.verdict!.band.slice(1)} (blocks ${(p.verdict!.blocks!.cov * 100).toFixed(1)}%, windows ${(p.verdict!.windows!.cov * 100).toFixed(1)}%)`,
      `⚠ disturbed, steal ${(p.noise.meanSteal * 100).toFixed(1)}%`,
      '16 / 1',
      '0',
      '0 / 0',
      '2',
      `${(p.peakRssBytes / 2 ** 20).toFixed(1)} MiB`,
    ]);
    expect(p.relativeRps!.point).toBeGreaterThan(0.7);
    expect(p.relativeRps!.point).toBeLessThan(0.8);
    expect(row(s['Scenario: baseline']!, '1', 'node-http').slice(2, 6)).toEqual([
      '1 (reference)',
      rps(pair('baseline', 'node-http').rps),
      r1(pair('baseline', 'node-http').cpuPerRequestUs!),
      '1 (reference)',
    ]);
  });

  it('takes its header from the one column specification', () => {
    const labels = headlineColumns(buildModel(r)).map((c) => c.label);
    expect(labels).toEqual([
      'Place',
      'Target',
      'Throughput ÷ node-http',
      'req/s (median)',
      'CPU µs/req',
      'CPU ÷ node-http',
      'p50',
      'p99',
      'p99.9',
      'Precision (target ±2.0%)',
      'Verdict (CoV)',
      'Noise',
      'Windows used / excluded',
      'Bound windows',
      'Errors / unexpected',
      'Blocks',
      'Peak RSS',
    ]);
    expect(s['Scenario: baseline']).toContain(`| ${labels.join(' | ')} |`);
  });

  it("explains each pair's warnings: client-bound, warm-up, precision not met with why the scenario stopped, failures, waiting", () => {
    expect(s['Scenario: baseline']).toContain("- ⚠ **node-http**: Client-bound in 1 of 17 windows (busiest loader core 97%, over 90%): that req/s is the load generator's ceiling, not the server's.");
    expect(s['Scenario: baseline']).toContain('- ⚠ express: warm-up reached its maximum without steady req/s (within ±5%) in 1 of 2 blocks.');
    expect(s['Scenario: json-post']).toMatch(/- ⚠ \*\*fastify\*\*: Precision ±\d+\.\d% reached, target ±2\.0% \(the time budget ran out\)\./);
    expect(s['Scenario: json-post']).toMatch(/\| ⚠ ±\d+\.\d% ✗ \|/);
    expect(s['Scenario: concurrency-ramp']).toContain('- ⚠ **express**: 1 of 15 windows failed (see the raw windows for each failure).');
    expect(s['Scenario: concurrency-ramp']).toContain('- ⚠ **node-http**: Server not saturated in 1 of 15 windows (its process tree used 42% of its 1 core, under 70%');
    expect(s['Scenario: concurrency-ramp']).toContain('- ⚠ **express**, block 2, round 3 failed — crash: server exited during load (signal SIGKILL)');
    expect(s['Scenario: concurrency-ramp']).toContain('<pre>&lt;--- Last few GCs ---&gt;');
  });

  it('shows a row per step for the stepped load', () => {
    const steps = s['Scenario: concurrency-ramp']!.split('### concurrency-ramp: per step')[1]!.split('\n### ')[0]!;
    const rows = steps.split('\n').filter((l) => /^\| (node-http|fastify|express) \|/.test(l));
    expect(rows.map((l) => l.split(' | ').slice(0, 2).join(' '))).toEqual([
      '| node-http 10',
      '| node-http 50',
      '| node-http 200',
      '| fastify 10',
      '| fastify 50',
      '| fastify 200',
      '| express 10',
      '| express 50',
      '| express 200',
    ]);
    expect(row(steps, 'fastify', '50')[2]).toBe(r3(pair('concurrency-ramp', 'fastify').steps[1]!.relativeRps!));
    expect(row(steps, 'node-http', '10').at(-1)).toBe('⚠ 1 waiting');
  });

  it('names every target it could not measure, and why', () => {
    expect(s['Scenario: baseline']).toContain('- **hummingbird** — skipped: swift not found on PATH');
    expect(s['Scenario: json-post']).toContain('- **express** — failed verify: invalid body {"name":1} answered 500, expected 422');
    expect(s['Scenario: json-post']).toContain('<details><summary>verify diff</summary>');
    expect(s.Rankings).toContain('Not ranked: express (failed verify: invalid body {"name":1} answered 500, expected 422); hummingbird (skipped: swift not found on PATH).');
  });

  it('re-estimates the relative figures against another reference from the raw windows', () => {
    const other = sections(renderMarkdown(loadFixture(), { reference: 'fastify' }));
    expect(other['benchsuite — framework']).toContain('| Reference | fastify (relative figures are ratios to it) |');
    const nodeVsFastify = Number(row(other['Scenario: baseline']!, '1', 'node-http')[2]!.split(' ')[0]);
    expect(nodeVsFastify).toBeCloseTo(1 / pair('baseline', 'fastify').relativeRps!.point, 1);
    expect(row(other['Scenario: baseline']!, '2', 'fastify')[2]).toBe('1 (reference)');
    expect(() => renderMarkdown(loadFixture(), { reference: 'hummingbird' })).toThrow(UnknownReferenceError);
  });

  it('warns when the run was interrupted, not pinned, or a scenario ran a single block', () => {
    const r1 = loadFixture();
    r1.interrupted = true;
    r1.environment.pinning = { enabled: false, tool: null, serverCpus: [], loaderCpus: [], reason: 'taskset not found' };
    r1.windows = r1.windows.filter((w) => !(w.scenario === 'baseline' && w.block === 2));
    const out = sections(renderMarkdown(resummarize(r1)));
    expect(out['benchsuite — framework']).toContain('> ⚠ The run was interrupted: windows that did not run are absent (`benchsuite run --resume DIR` continues it).');
    expect(out['benchsuite — framework']).toContain('> ⚠ Server and load generator were not pinned to separate cores (taskset not found): they competed for the same CPUs.');
    expect(out['Scenario: baseline']).toContain('- ⚠ baseline: one block (one server process per target) was run, so its intervals leave out the variation between server processes.');
    expect(out['Scenario: json-post']).not.toContain('one block');
  });

  it('shows costs and the environment with every target side by side', () => {
    expect(s.Costs).toContain('| node-http | 41.2 ms (n=5) | 45.6 MiB | 42.1 MiB | 1 | 74.6 MiB | — |');
    expect(s.Environment).toContain('| Status | ok | ok | ok | skipped: swift not found on PATH |');
    expect(s.Environment).toContain('| etag | — | — | weak (default) | — |');
  });
});
