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

  it('exits 0 when every threshold holds; on a stepped load a latency term holds at each step, each shown', { timeout: 120_000 }, () => {
    const out = scratch();
    const r = binary(['run', '--config', config, '-s', 'tiny', '-o', out, '--driver', 'autocannon', '-c', '2,5', '--threshold', 'p(95)<10s,errors<=100%,rps>1']);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(result.thresholds.map((t: { pass: boolean }) => t.pass)).toEqual([true, true, true]);
    const [p95, errors] = result.thresholds;
    expect(p95.steps.map((s: { connections: number }) => s.connections)).toEqual([2, 5]);
    for (const s of p95.steps) expect(s.measured).toBeGreaterThan(0);
    expect(p95.measured).toBe(Math.max(...p95.steps.map((s: { measured: number }) => s.measured)));
    expect(errors.steps).toBeUndefined();
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(/passed \| ping \| tiny \| p\(95\)&lt;10s \| [\d.]+ ms \| [^|]+ \| 2 conn [\d.]+ ms · 5 conn [\d.]+ ms \|/);
  });

  it('refuses a malformed threshold before anything starts, naming it (exit 2)', () => {
    const r = binary(['run', '--config', config, '-s', 'tiny', '--threshold', 'p(100)<5ms']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--threshold: "p\(100\)<5ms": a percentile is between 0 and 100/);
    expect(r.stderr).not.toMatch(STACK);
  });

  it('accepts any percentile p(N) for --threshold and --slo (a dry run checks every flag)', () => {
    for (const flag of ['--threshold', '--slo']) {
      const r = binary(['run', '--config', config, '-s', 'tiny', '--driver', 'k6', flag, 'p(95)<30ms,p(99.9)<80ms', '-n']);
      expect(r.stderr).not.toMatch(/percentile|unknown metric/);
      expect(r.code, r.stderr).toBe(0);
    }
  });

  it('a --slo dry run says the capacity search and how long it takes, not a windowed design fitted to the budget', () => {
    const r = binary(['run', '--config', config, '-s', 'tiny', '--driver', 'k6', '--slo', 'p99<50ms', '--budget', '1m', '-n']);
    expect(r.code, r.stderr).toBe(0);
    const c = DEFAULTS.capacity;
    expect(r.stdout).toMatch(/^slo +p99<50ms: each target's capacity is the highest offered rate that meets it$/m);
    expect(r.stdout).toMatch(/^budget +not used: a capacity search takes the blocks its interval needs, about \d[^\n]*\(1 target × \d+ blocks; at most /m);
    expect(r.stdout).toMatch(
      new RegExp(
        `^design +\\d+ blocks of fresh processes per target, each warmed closed-loop .*open-loop probes of [\\d.]+ s: from ${c.startShare * 100}% .*at most ${c.maxProbes} probes per block`,
        'm',
      ),
    );
    expect(r.stdout).toMatch(/^expects +each target's capacity: the median over its \d+ blocks, with a 95% interval/m);
    // Nothing of a windowed run: no rounds, no stopping rule, no budget fit, no pair forecast.
    expect(r.stdout).not.toMatch(/^(stopping|warm-up) /m);
    expect(r.stdout).not.toMatch(/rounds? per block|for a typical pair|to bring every interval/);
  });

  // A server that errors, and one that stops answering, must fail errors<1% (exit 99), whatever
  // else failed: the hanging one's windows fail (no response), and they count as failed sends.
  for (const [suite, target, why] of [
    ['erring', 'half-503', 'answers 503 to every second request'],
    ['hanging', 'flaky-hang', 'stops answering after its first 200 requests'],
  ] as const) {
    it(`exits ${code} on errors<1% against a server that ${why}, and the reports say so`, { timeout: 120_000 }, () => {
      const out = scratch();
      const r = binary(['run', '--config', config, '-s', suite, '-o', out, '--driver', 'autocannon', '--threshold', 'errors<1%', '--budget', '40s']);
      expect(r.code, r.stderr).toBe(code);
      const result = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
      const failing = result.thresholds.find((t: { target: string }) => t.target === target);
      expect(failing).toMatchObject({ expression: 'errors<1%', pass: false });
      expect(failing.measured).toBeGreaterThan(0.4);
      for (const t of result.thresholds.filter((x: { target: string }) => x.target !== target)) expect(t.pass).toBe(true);
      expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(new RegExp(`FAILED \\| ping \\| ${target} \\| errors&lt;1% \\| [\\d.]+%`));
      if (suite === 'hanging') {
        const s = result.summaries.find((x: { target: string }) => x.target === target);
        expect(s.missed.windows).toBeGreaterThan(0);
        expect(failing.missed).toEqual(s.missed);
        expect(r.stderr).toMatch(/FAILED[^\n]*flaky-hang[^\n]*failed window/);
      }
    });
  }

  it('refuses open loop with a driver that cannot do it (exit 2), never falls back to closed loop', () => {
    const r = binary(['run', '--config', config, '-s', 'tiny', '--driver', 'autocannon', '--rate', '100', '--open-loop', '-n']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/autocannon is closed-loop only \(open-loop load and --slo need one of: oha, vegeta, k6\)/);
  });
});

/** A runner's summary line as a generated script prints it: a flat latency at `ms`, `n` requests, its execution segment. */
function runnerLine(n: number, ms: number, target: string, segment: string | null, o: { rate?: number; dropped?: number; instance?: string } = {}): string {
  const latency: Record<string, number> = { count: n, min: ms, max: ms };
  for (const p of quantileGrid()) latency[`p(${p})`] = ms;
  const schedule = o.rate ? { executor: 'constant-arrival-rate', rate: o.rate, durationSec: 10, maxVUs: 100 } : { executor: 'constant-vus', vus: 10, durationSec: 10 };
  return `@@BS ${JSON.stringify({
    benchsuite: 'k6-summary/2',
    tags: { bs_scenario: 'ping', bs_target: target },
    runner: { segment, sequence: segment ? '0,1/2,1' : null, instance: o.instance ?? `runner-${segment}` },
    schedule,
    expect: [200],
    durationMs: 10_000,
    latency,
    corrected: o.rate ? latency : null,
    statusCounts: { 200: n },
    errors: 0,
    timeouts: 0,
    unexpected: 0,
    late: 0,
    dropped: o.dropped ?? 0,
  })}`;
}

describe('benchsuite merge', () => {
  it('sums the runners of each target into one result that report and thresholds read', { timeout: 60_000 }, () => {
    const dir = scratch();
    writeFileSync(join(dir, 'a.log'), `k6 says hello\n${runnerLine(1000, 2, 'x', '0:1/2')}\n${runnerLine(1000, 2, 'y', '0:1/2')}\n`);
    writeFileSync(join(dir, 'b.log'), `${runnerLine(3000, 10, 'x', '1/2:1')}\n${runnerLine(3000, 4, 'y', '1/2:1')}\n`);
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

  it('refuses a runner output given twice and a missing execution segment (exit 2), naming the files', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'a.log'), `${runnerLine(1000, 2, 'x', '0:1/2')}\n`);
    writeFileSync(join(dir, 'b.log'), `${runnerLine(1000, 2, 'x', '1/2:1')}\n`);
    const twice = binary(['merge', join(dir, 'a.log'), join(dir, 'b.log'), join(dir, 'a.log')]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/ping × x: execution segment 0:1\/2 appears twice, in [^\n]*a\.log/);
    expect(twice.stderr).not.toMatch(STACK);
    const missing = binary(['merge', join(dir, 'b.log')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/ping × x: no runner covers the execution segment 0:1\/2 \(a runner's output is missing; given: [^\n]*b\.log\)/);
    // The pair whole, each runner once: merged.
    expect(binary(['merge', join(dir, 'a.log'), join(dir, 'b.log')]).code).toBe(0);
  });

  it("takes the offered rate from the scripts' schedule and shows the shortfall against it", { timeout: 60_000 }, () => {
    const dir = scratch();
    // Scheduled: 1000 req/s for 10 s = 10 000 sends; the runners made 4000 + 3000, and dropped 3000.
    writeFileSync(join(dir, 'a.log'), `${runnerLine(4000, 2, 'x', '0:1/2', { rate: 1000, dropped: 1000 })}\n`);
    writeFileSync(join(dir, 'b.log'), `${runnerLine(3000, 2, 'x', '1/2:1', { rate: 1000, dropped: 2000 })}\n`);
    const out = join(dir, 'merged');
    const r = binary(['merge', join(dir, 'a.log'), join(dir, 'b.log'), '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    const s = result.summaries[0];
    expect(s.openLoop).toMatchObject({ offeredRate: 1000, scheduled: 10_000, dropped: 3000 });
    expect(s.rps.point).toBe(700);
    expect(result.windows[0].clientBound).toBeNull();
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toMatch(/## Open loop[\s\S]*\| 1\u202f000 \| 700 \| ⚠ −30\.0% \(3\u202f000 of 10\u202f000 sends not made\)/);
    expect(md).toMatch(/whether the load generator was the limit is unknown in 1 of 1 windows/i);
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
    expect(r.stderr).toMatch(/a tool \(k6, oha, vegeta, wrk, h2load, valgrind\)/);
  });
});
