// Thresholds turn a run (or a merge of k6 runners) into a pass/fail exit code; `export k6` writes
// scripts and TestRun manifests. Real runs of the tiny test server with the fixture's tiny design.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEFAULTS, quantileGrid } from '@benchsuite/sdk';
import { describe, expect, it } from 'vitest';
import { binary, fixture, scratch, STACK } from './_helpers.js';

const config = fixture('benchsuite.config.ts');
const code = DEFAULTS.thresholdExitCode;

describe('benchsuite run --threshold', () => {
  it(`exits ${code} when a threshold cannot be met, and every report shows it failed with its measured value`, { timeout: 120_000 }, () => {
    const out = scratch();
    const r = binary(['run', '--config', config, '-s', 'tiny', '-o', out, '--driver', 'autocannon', '--threshold', 'p99<1us', '--threshold', 'errors<1%']);
    expect(r.code, r.stderr).toBe(code);
    const result = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(result.thresholds).toEqual([expect.objectContaining({ expression: 'p99<1us', pass: false, target: 'tiny' }), expect.objectContaining({ expression: 'errors<1%', pass: true, measured: 0 })]);
    expect(result.thresholds[0].measured).toBeGreaterThan(1);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(/## Thresholds[\s\S]*FAILED \| ping \| tiny \| p99&lt;1us \| [\d.]+ ms/);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('<section id="thresholds">');
    expect(r.stderr).toMatch(/thresholds\n[\s\S]*FAILED/);
  });

  it('exits 0 when every threshold holds', { timeout: 120_000 }, () => {
    const out = scratch();
    const r = binary(['run', '--config', config, '-s', 'tiny', '-o', out, '--driver', 'autocannon', '--threshold', 'p99<10s,errors<=100%,rps>1']);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(result.thresholds.map((t: { pass: boolean }) => t.pass)).toEqual([true, true, true]);
  });

  it('refuses a malformed threshold before anything starts, naming it (exit 2)', () => {
    const r = binary(['run', '--config', config, '-s', 'tiny', '--threshold', 'p98<5ms']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--threshold: .*unknown metric "p98"/);
    expect(r.stderr).not.toMatch(STACK);
  });

  it('refuses open loop with a driver that cannot do it (exit 2), never falls back to closed loop', () => {
    const r = binary(['run', '--config', config, '-s', 'tiny', '--driver', 'autocannon', '--rate', '100', '--open-loop', '-n']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/autocannon is closed-loop only \(open-loop load and --slo need one of: oha, vegeta, k6\)/);
  });
});

/** A runner's summary line as a generated script prints it: a flat latency at `ms`, `n` requests. */
function runnerLine(n: number, ms: number, target: string): string {
  const latency: Record<string, number> = { count: n, min: ms, max: ms };
  for (const p of quantileGrid()) latency[`p(${p})`] = ms;
  return `@@BS ${JSON.stringify({ benchsuite: 'k6-summary/1', tags: { bs_scenario: 'ping', bs_target: target }, durationMs: 10_000, latency, corrected: null, statusCounts: { 200: n }, errors: 0, timeouts: 0, unexpected: 0, late: 0, dropped: 0 })}`;
}

describe('benchsuite merge', () => {
  it('sums the runners of each target into one result that report and thresholds read', { timeout: 60_000 }, () => {
    const dir = scratch();
    writeFileSync(join(dir, 'a.log'), `k6 says hello\n${runnerLine(1000, 2, 'x')}\n${runnerLine(1000, 2, 'y')}\n`);
    writeFileSync(join(dir, 'b.log'), `${runnerLine(3000, 10, 'x')}\n${runnerLine(3000, 4, 'y')}\n`);
    const out = join(dir, 'merged');
    const r = binary(['merge', join(dir, 'a.log'), join(dir, 'b.log'), '-o', out, '--reference', 'x', '--threshold', 'p50<5ms']);
    expect(r.code, r.stderr).toBe(code); // x's merged p50 is 10 ms (3000 of its 4000 requests)
    const result = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    const x = result.summaries.find((s: { target: string }) => s.target === 'x');
    const y = result.summaries.find((s: { target: string }) => s.target === 'y');
    expect([x.requests, y.requests]).toEqual([4000, 4000]);
    expect(x.latency.p50).toBeGreaterThan(9_900);
    expect(y.latency.p50).toBeLessThan(4_100);
    expect(result.thresholds.map((t: { target: string; pass: boolean }) => [t.target, t.pass])).toEqual([
      ['x', false],
      ['y', true],
    ]);
    expect(existsSync(join(out, 'report.html'))).toBe(true);
    const report = binary(['report', join(out, 'results.json'), '--format', 'md']);
    expect(report.code).toBe(0);
    expect(report.stdout).toContain('## Thresholds');
  });

  it('names a file without a runner summary (exit 2)', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'empty.log'), 'nothing here\n');
    const r = binary(['merge', join(dir, 'empty.log'), join(dir, 'missing.log')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/empty\.log: no runner summary/);
    expect(r.stderr).toMatch(/missing\.log: cannot read \(ENOENT\)/);
    expect(r.stderr).not.toMatch(STACK);
  });
});

describe('benchsuite export k6', () => {
  it('writes a script and a TestRun per (scenario, target) with a README', () => {
    const out = scratch();
    const r = binary(['export', 'k6', '--config', config, '-s', 'tiny', '-o', out, '--parallelism', '3', '--base-url', 'tiny=http://tiny.bench.svc:8080']);
    expect(r.code, r.stderr).toBe(0);
    const manifest = readFileSync(join(out, 'bs-ping-tiny', 'testrun.yaml'), 'utf8');
    expect(manifest).toMatch(/kind: "TestRun"[\s\S]*parallelism: 3/);
    expect(manifest).toContain('"http://tiny.bench.svc:8080"');
    expect(readFileSync(join(out, 'bs-ping-tiny', 'test.js'), 'utf8')).toContain('handleSummary');
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toContain('benchsuite merge');
  });
  it('refuses an unknown format and a base URL for a target it does not export (exit 2)', () => {
    expect(binary(['export', 'gatling', '--config', config, '-s', 'tiny']).code).toBe(2);
    const r = binary(['export', 'k6', '--config', config, '-s', 'tiny', '--base-url', 'nope=http://x:1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/"nope" is not a selected target/);
  });
});

describe('benchsuite setup <tool>', () => {
  const hasGo = spawnSync('sh', ['-c', 'command -v go']).status === 0;
  it.skipIf(!hasGo)(`${hasGo ? '' : '(skipped: no Go toolchain) '}builds a Go driver into the tool's cache with progress, and finds it there the second time`, { timeout: 300_000 }, () => {
    const cache = scratch();
    // PATH without the Go folders and another HOME, so the cache is the only place vegeta can be
    // found; Go itself is named by its path and keeps its own module and build caches.
    const goBin = spawnSync('sh', ['-c', 'command -v go'], { encoding: 'utf8' }).stdout.trim();
    const goEnv = (k: string) => spawnSync(goBin, ['env', k], { encoding: 'utf8' }).stdout.trim();
    const path = (process.env.PATH ?? '').split(':').filter((d) => !d.includes('/go/'));
    const env = { BENCHSUITE_CACHE_DIR: cache, HOME: cache, GOCACHE: goEnv('GOCACHE'), GOMODCACHE: goEnv('GOMODCACHE'), PATH: [dirname(goBin), ...path].join(':') };
    const first = binary(['setup', 'vegeta'], env, 280_000);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/vegeta: building github\.com\/tsenart\/vegeta\/v12@v12\.12\.0 from the Go module proxy into .* \(about 30 s\)/);
    expect(first.stderr).toContain(`vegeta: ready (${join(cache, 'bin', 'vegeta')})`);
    const second = binary(['setup', 'vegeta'], env);
    expect(second.code).toBe(0);
    expect(second.stderr).not.toMatch(/building/);
  });
  it('names the tools when a name is unknown (exit 2)', () => {
    const r = binary(['setup', 'gatling']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/a tool \(k6, vegeta, wrk, valgrind\)/);
  });
});
