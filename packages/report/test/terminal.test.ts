import { describe, expect, it } from 'vitest';
import { renderTerminal } from '../src/index.js';
import { loadFixture } from './helpers.js';

const ESC = '\x1b';
const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

describe('renderTerminal', () => {
  const r = loadFixture();
  const text = renderTerminal(r);

  it('is plain text unless colour is asked for, and colour changes nothing else', () => {
    expect(text).not.toContain(ESC);
    const coloured = renderTerminal(r, { color: true });
    expect(coloured).toContain(`${ESC}[33m`);
    expect(stripAnsi(coloured)).toBe(text);
  });

  it('opens with the run at a glance and the side-by-side statement', () => {
    const lines = text.split('\n');
    expect(lines[0]).toBe('benchsuite — framework');
    expect(lines.find((l) => l.trimStart().startsWith('Driver'))).toMatch(/^ {2}Driver {13}driver wrk 4\.1\.0 \(-t1 -c50 --latency\): auto: wrk is installed/);
    expect(text).toContain('  Pinning            taskset: server CPUs 0, loader CPUs 1');
    expect(text).toContain('  Runner peak RSS    83.0 MiB');
    expect(text).toMatch(/\n {21}json-post: stopped after 2 blocks \(12 rounds\): the time budget ran out/);
    expect(text).toContain('\nRelative figures are ratios to node-http measured side by side in this run');
    expect(text).not.toMatch(/\d MB\b/);
  });

  it("prints each scenario's brief columns aligned, with notes, steps, failures and what was not measured", () => {
    const block = text.split('\nbaseline — ')[1]!.split('\n\n')[0]!;
    const table = block.split('\n').filter((l) => /^ {2}(Place| +\d=? )/.test(l));
    expect(table[0]).toMatch(/^ {2}Place {2}Target {5}Throughput ÷ node-http {11}req\/s \(median\) {9}CPU µs\/req {7}CPU ÷ node-http {7}p99 {2}Precision \(target ±2\.0%\) {2}Verdict \(CoV\) +Noise$/);
    expect(table).toHaveLength(4);
    // A right-aligned column ends under the end of its label on every line.
    const end = table[0]!.indexOf('req/s (median)') + 'req/s (median)'.length;
    for (const l of table.slice(1)) expect(l[end - 1]).toBe(']');
    expect(block).toContain("  ! node-http: Client-bound in 1 of 17 windows (busiest loader core 97%, over 90%): that req/s is the load generator's ceiling, not the server's.");
    expect(block).toContain('  – hummingbird: skipped — swift not found on PATH');
    // Loader-bound, judged by the server, said with the recorded thresholds.
    expect(block).toMatch(
      / {2}! node-http: Loader-bound in 1 of 17 windows, judged by the server: its process tree used \d+% of its 1 core \(under 97%\) while the busiest loader core was at 97% \(over 80%\)/,
    );
    // The run's verdict leads the summary; each pair's verdict sits beside its precision.
    expect(text.split('\n')[1]).toMatch(/^Verdict: (Excellent|Acceptable|Noisy|Unreliable) — of 8 pairs, (\d \w+ \(\d+%\)(, )?)+; .*\.$/);
    expect(table[1]).toMatch(/±\d+\.\d% [✓✗] {2}(Excellent|Acceptable|Noisy|Unreliable) \(blocks \d+\.\d%, windows \d+\.\d%\)/);
    const ramp = text.split('\nconcurrency-ramp — ')[1]!;
    expect(ramp).toContain('  per step:');
    expect(
      ramp
        .split('\n  sweep:')[0]!
        .split('\n')
        .filter((l) => /^ {4}(node-http|fastify|express) +\d+ /.test(l)),
    ).toHaveLength(9);
    expect(ramp).toContain('  ✗ express, block 2, round 3 failed — crash: server exited during load (signal SIGKILL)');
    expect(text.split('\njson-post — ')[1]).toContain('  – express: failed verify — invalid body {"name":1} answered 500, expected 422');
  });

  it('lines up the costs table', () => {
    const costs = text.split('\ncosts\n')[1]!.trimEnd().split('\n');
    expect(costs).toHaveLength(3);
    expect(new Set(costs.map((l) => l.length)).size).toBe(1);
  });

  it('shows control characters from the result instead of sending them to the terminal', () => {
    const evil = loadFixture();
    for (const s of evil.summaries) if (s.target === 'express') s.target = `ex${ESC}[2J${ESC}]0;pwned\x07press\nnext`;
    for (const k of evil.rankings) for (const p of k.places) p.targets = p.targets.map((t) => (t === 'express' ? evil.summaries.find((s) => s.target.startsWith('ex'))!.target : t));
    const out = renderTerminal(evil, { color: true });
    expect(stripAnsi(out)).not.toContain(ESC);
    expect(out).not.toContain('\x07');
    expect(out).toContain('ex\\x1b[2J\\x1b]0;pwned\\x07press next');
  });
});
