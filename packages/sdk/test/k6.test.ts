// The k6 driver against real servers: open loop shows a stall that closed loop hides; runners of
// an exported script split by execution segments merge into one result whose counts and
// percentiles are those of the runners combined; the TestRun manifests use only documented
// fields; a capacity search finds a server's known capacity. Needs k6 (scripts/test-prereqs.sh
// builds it from the Go module proxy); skipped with that reason without it.
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { autocannonDriver } from '../src/drivers/autocannon.js';
import { findK6, k6Driver } from '../src/drivers/k6.js';
import { findVegeta, vegetaDriver } from '../src/drivers/vegeta.js';
import { exportK6 } from '../src/k6/export.js';
import { mergeK6, summariesIn } from '../src/k6/merge.js';
import { histogramFromTrend } from '../src/k6/script.js';
import { parseThresholds } from '../src/analysis/thresholds.js';
import { judgeProbe, searchCapacity } from '../src/run/capacity.js';
import { latencyOf, mergeHistograms, parseScenario, runSuite, startProcess, type RunningProcess } from '../src/index.js';
import { allowedCpus } from '../src/environment.js';
import { tiny, tinyDesign, tinyServer } from './_helpers.js';
import { scratch } from '@benchsuite/testkit';

const k6 = findK6();
const skipReason = k6 ? '' : 'k6 not found (benchsuite setup k6, or scripts/test-prereqs.sh, builds it)';
const named = (title: string) => (skipReason ? `${title} (skipped: ${skipReason})` : title);
const servers: RunningProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// Server and loaders on different cores, as a run pins them, when there are two.
const cpus = allowedCpus();
const serverPin = cpus.length >= 2 ? ['taskset', '-c', String(cpus[0])] : [];
const loaderPin = cpus.length >= 2 ? ['taskset', '-c', cpus.slice(1).join(',')] : [];

async function server(env: Record<string, string>): Promise<string> {
  const s = await startProcess({ command: [process.execPath, tinyServer], env, pin: serverPin });
  servers.push(s);
  return s.url;
}
const get = [{ method: 'GET' as const, path: '/', headers: {} }];

describe.skipIf(!k6)('k6 driver', () => {
  for (const driver of [k6Driver, vegetaDriver]) {
    const missing = driver === vegetaDriver && !findVegeta() ? 'vegeta not found (benchsuite setup vegeta builds it)' : '';
    it.skipIf(missing)(
      named(`${driver.name}: open loop times requests from their intended send: a 500-ms stall each second shows in p99, where closed loop hides it${missing ? ` (skipped: ${missing})` : ''}`),
      { timeout: 60_000 },
      async () => {
        const url = await server({ STALL_MS: '500', STALL_EVERY_MS: '1000' });
        const base = { baseUrl: url, requests: get, warmupSec: 0, durationSec: 3, timeoutSec: 5, expectStatus: [200], pin: loaderPin };
        const open = await driver.run({ ...base, connections: 10, rate: 100, openLoop: true });
        expect(open.openLoop).toBeDefined();
        const corrected = latencyOf(open.openLoop!.corrected);
        const closed = await autocannonDriver.run({ ...base, connections: 2 });
        const closedP99 = latencyOf(closed.histogram).p99;
        // ~Half of the arrivals land inside a stall and wait up to 500 ms for it to end.
        expect(corrected.p99).toBeGreaterThan(300_000);
        expect(closedP99).toBeLessThan(100_000);
        expect(open.requests).toBeGreaterThan(200);
        expect(open.openLoop!.dropped).toBe(0);
      },
    );
  }

  it(named('two runners of an exported script, split by execution segments, merge into the sum of their counts and their combined histogram'), { timeout: 60_000 }, async () => {
    const url = await server({});
    const scenario = parseScenario({ name: 'hello', request: { path: '/' }, expect: { status: 200 }, load: { connections: 4 } });
    const files = exportK6({ scenarios: [scenario], targets: [{ name: 'tiny', baseUrl: url }], parallelism: 2, durationSec: 2, image: 'grafana/k6:1.8.1' });
    const dir = scratch('bs-k6-merge');
    dirs.push(dir);
    const script = join(dir, 'test.js');
    writeFileSync(script, files.find((f) => f.path.endsWith('test.js'))!.content);
    const runner = (segment: string) =>
      new Promise<string>((resolve, reject) => {
        const c = spawn(k6!, ['run', '--quiet', '--execution-segment', segment, '--execution-segment-sequence', '0,1/2,1', script], {
          env: { ...process.env, BASE_URL: url, K6_NO_USAGE_REPORT: 'true' },
        });
        let out = '';
        c.stdout.on('data', (d) => (out += d));
        c.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`k6 exit ${code}`))));
      });
    const outputs = await Promise.all([runner('0:1/2'), runner('1/2:1')]);
    const runs = outputs.flatMap(summariesIn);
    expect(runs).toHaveLength(2);
    // Each runner says who it was and what the script asked for.
    expect(runs.map((r) => r.runner.segment)).toEqual(['0:1/2', '1/2:1']);
    expect(runs[0]!.schedule).toEqual({ executor: 'constant-vus', vus: 4, durationSec: 2 });
    // One runner's output given twice, or one missing, is not this run: refused, naming the sources.
    expect(() => mergeK6({ summaries: [runs[0]!, runs[1]!, runs[1]!].map((r, i) => ({ ...r, source: `r${i}.log` })) })).toThrow(
      /hello × tiny: execution segment 1\/2:1 appears twice, in r1\.log, r2\.log/,
    );
    expect(() => mergeK6({ summaries: [{ ...runs[1]!, source: 'r1.log' }] })).toThrow(/hello × tiny: no runner covers the execution segment 0:1\/2 .*given: r1\.log/);
    const counts = runs.map((r) => r.latency!.count);
    for (const c of counts) expect(c).toBeGreaterThan(0);
    const result = mergeK6({ summaries: runs, thresholds: ['errors<1%'] });
    const s = result.summaries[0]!;
    expect([s.scenario, s.target]).toEqual(['hello', 'tiny']);
    expect(s.requests).toBe(counts[0]! + counts[1]!);
    const combined = latencyOf(mergeHistograms(runs.map((r) => histogramFromTrend(r.latency))));
    // Percentiles and count exactly; max and mean to the histogram's 3 significant digits (an HDR
    // value round-trips through the encoded histogram as its bucket's equivalent).
    expect({ ...s.latency, max: 0, mean: 0, stdev: 0 }).toEqual({ ...combined, max: 0, mean: 0, stdev: 0 });
    expect(Math.abs(s.latency.max - combined.max) / combined.max).toBeLessThan(0.002);
    expect(result.thresholds).toEqual([expect.objectContaining({ expression: 'errors<1%', pass: true, measured: 0 })]);
  });

  it(named('merged open-loop runners keep the schedule as the offered rate, so a server that cannot keep up shows its shortfall'), { timeout: 60_000 }, async () => {
    // About 100 req/s at most (four times the capacity test's CPU cost per request); the schedule asks for 200.
    const url = await server({ BUSY_ITERS: '10000000' });
    const scenario = parseScenario({ name: 'slow', request: { path: '/' }, expect: { status: 200 }, load: { connections: 4 } });
    const files = exportK6({ scenarios: [scenario], targets: [{ name: 'tiny', baseUrl: url }], parallelism: 2, durationSec: 2, rate: 200, image: 'grafana/k6:1.8.1' });
    const dir = scratch('bs-k6-shortfall');
    dirs.push(dir);
    const script = join(dir, 'test.js');
    writeFileSync(script, files.find((f) => f.path.endsWith('test.js'))!.content);
    const runner = (segment: string) =>
      new Promise<string>((resolve, reject) => {
        const c = spawn(k6!, ['run', '--quiet', '--execution-segment', segment, '--execution-segment-sequence', '0,1/2,1', script], {
          env: { ...process.env, BASE_URL: url, K6_NO_USAGE_REPORT: 'true' },
        });
        let o = '';
        c.stdout.on('data', (d) => (o += d));
        c.on('exit', (code) => (code === 0 ? resolve(o) : reject(new Error(`k6 exit ${code}`))));
      });
    const runs = (await Promise.all([runner('0:1/2'), runner('1/2:1')])).flatMap(summariesIn);
    const s = mergeK6({ summaries: runs }).summaries[0]!;
    // The offered rate is what the scripts asked for, not what was achieved: the shortfall is there to read.
    expect(s.openLoop).toMatchObject({ offeredRate: 200, scheduled: 400 });
    expect(s.rps.point, `achieved ${s.rps.point} req/s, dropped ${s.openLoop!.dropped}`).toBeLessThan(0.8 * 200);
  });

  it(named('a 2xx the scenario did not list is counted as its own status, never as non-2xx'), { timeout: 30_000 }, async () => {
    const url = await server({ STATUS: '206' });
    const base = { baseUrl: url, requests: get, warmupSec: 0, durationSec: 1, timeoutSec: 5, pin: loaderPin, connections: 2 };
    const listed = await k6Driver.run({ ...base, expectStatus: [200, 206] });
    expect(listed.requests).toBeGreaterThan(0);
    expect(listed).toMatchObject({ statusCounts: { 206: listed.requests }, non2xx: 0, unexpected: 0 });
    // A scenario that expects 200 says otherwise: still a 206 (a 2xx), but not the status it asked for.
    const unlisted = await k6Driver.run({ ...base, expectStatus: [200] });
    expect(unlisted).toMatchObject({ statusCounts: { 206: unlisted.requests }, non2xx: 0, unexpected: unlisted.requests });
  });

  it(named("the driver's resource window is the measured phase: not the virtual users' start-up, nor the summary"), { timeout: 30_000 }, async () => {
    const url = await server({});
    const marks: number[] = [];
    const t0 = performance.now();
    // Open loop at 1000/s allocates 1000 virtual users before the scenario starts: a visible start-up.
    const r = await k6Driver.run({
      baseUrl: url,
      requests: get,
      connections: 4,
      rate: 1000,
      openLoop: true,
      warmupSec: 0,
      durationSec: 1,
      timeoutSec: 5,
      expectStatus: [200],
      pin: loaderPin,
      onMeasureStart: () => marks.push(performance.now()),
      onMeasureEnd: () => marks.push(performance.now()),
    });
    const processSec = (performance.now() - t0) / 1000;
    expect(marks).toHaveLength(2);
    const windowSec = (marks[1]! - marks[0]!) / 1000;
    const facts = `window ${windowSec.toFixed(3)} s, test ${r.durationSec} s, process ${processSec.toFixed(3)} s`;
    // The window the sampler saw matches the duration the rate is computed on, within 100 ms,
    // while the process (start-up and summary included) ran longer.
    expect(Math.abs(windowSec - r.durationSec), facts).toBeLessThan(0.1);
    expect(processSec - windowSec, facts).toBeGreaterThan(0.1);
  });

  it(named('finds the capacity of a server with a fixed CPU cost per request within 20% of its closed-loop maximum'), { timeout: 180_000 }, async () => {
    // The known capacity: what the same server process does when it is never idle (closed loop, a
    // few connections), measured before and after the search so that drift of the host brackets it.
    const url = await server({ BUSY_ITERS: '2500000' });
    const closedLoop = async () => {
      const r = await autocannonDriver.run({ baseUrl: url, requests: get, connections: 4, warmupSec: 0.5, durationSec: 2, timeoutSec: 5, expectStatus: [200], pin: loaderPin });
      return r.requests / r.durationSec;
    };
    const before = await closedLoop();
    // A loose latency term: the capacity is then bounded by the server keeping up with the
    // schedule (a probe that delivers under 95% of its rate fails), not by a transient spike.
    const terms = parseThresholds('p99<1s,errors<1%');
    const probes: Array<[number, number, boolean]> = [];
    const found = await searchCapacity(before / 2, async (rate) => {
      const f = await (findVegeta() ? vegetaDriver : k6Driver).run({
        baseUrl: url,
        requests: get,
        connections: 4,
        rate,
        openLoop: true,
        warmupSec: 0,
        durationSec: 2,
        timeoutSec: 5,
        expectStatus: [200],
        pin: loaderPin,
      });
      const p = judgeProbe(
        rate,
        {
          ...f,
          rps: f.requests / f.durationSec,
          latency: latencyOf(f.histogram),
          openLoop: f.openLoop ? { corrected: latencyOf(f.openLoop.corrected), dropped: f.openLoop.dropped } : undefined,
          cpuPerRequestUs: null,
        },
        terms,
      );
      probes.push([rate, Math.round(p.achievedRps), p.meets]);
      // No resources sampled here: a failure is never judged loader-bound.
      return { meets: p.meets, loaderBound: p.loaderBound ?? false };
    });
    const known = (before + (await closedLoop())) / 2;
    // 20%, not 10%: on a shared VM the host's speed moves by more than 10% within the search's
    // minute (2026-11-25, windows' CoV 16%: a probe at 136 req/s delivered 129 and failed, and the
    // search found 132 against 156 closed-loop). A search that bisects wrongly is off by far more.
    expect(found.capacity, `closed loop ${known.toFixed(0)} req/s; probes ${JSON.stringify(probes)}`).not.toBeNull();
    expect(Math.abs(found.capacity! / known - 1), `capacity ${found.capacity} vs closed loop ${known.toFixed(0)}; probes ${JSON.stringify(probes)}`).toBeLessThan(0.2);
  });

  it(named('a run with --slo records the capacity search of every target: probes, the capacity and its range'), { timeout: 180_000 }, async () => {
    const result = await runSuite({
      scenarios: [{ name: 'busy', request: { path: '/' }, expect: { status: 200 }, load: { connections: 4 } }],
      targets: [tiny('busy', { BUSY_ITERS: '2500000' })],
      design: { ...tinyDesign, warmup: { minSec: 1, maxSec: 2 } },
      driver: 'k6',
      slo: 'p99<200ms,errors<1%',
      verify: false,
    });
    const c = result.capacity![0]!;
    expect(c).toMatchObject({ scenario: 'busy', target: 'busy', slo: 'p99<200ms,errors<1%', driver: 'k6' });
    expect(c.capacity).toBeGreaterThan(0);
    expect(c.interval![0]).toBeLessThanOrEqual(c.capacity!);
    const probes = c.blocks[0]!.probes;
    expect(probes.length).toBeGreaterThan(2);
    expect(probes.some((p) => p.meets) && probes.some((p) => !p.meets)).toBe(true);
  });
});

describe('k6-operator manifests', () => {
  // The TestRun (k6.io/v1alpha1) fields the k6-operator documents (its API reference, crd-generated.md).
  const SPEC = ['parallelism', 'script', 'args', 'arguments', 'cleanup', 'initializer', 'paused', 'ports', 'quiet', 'runner', 'scuttle', 'separate', 'starter', 'testRunId', 'token'];
  const SCRIPT = ['configMap', 'localFile', 'volumeClaim'];
  const CONFIG_MAP = ['name', 'file'];
  const RUNNER = [
    'affinity',
    'automountServiceAccountToken',
    'containerSecurityContext',
    'disabled',
    'env',
    'envFrom',
    'image',
    'imagePullPolicy',
    'imagePullSecrets',
    'initContainers',
    'livenessProbe',
    'metadata',
    'nodeSelector',
    'priorityClassName',
    'readinessProbe',
    'resources',
    'schedulerName',
    'securityContext',
    'serviceAccountName',
    'tolerations',
    'topologySpreadConstraints',
    'volumeMounts',
    'volumes',
  ];

  it('hold a ConfigMap with the script and a TestRun that uses only documented fields, with the required ones', () => {
    const scenarios = [
      parseScenario({ name: 'baseline', request: { path: '/ping' }, expect: { status: 200 } }),
      parseScenario({ name: 'ramp', request: { path: '/ping' }, expect: { status: 200 }, load: { connections: [10, 50] } }),
    ];
    const files = exportK6({ scenarios, targets: [{ name: 'node-http', baseUrl: 'http://node-http.bench.svc:8080' }], parallelism: 4, durationSec: 30, rate: undefined, image: 'grafana/k6:1.8.1' });
    const manifests = files.filter((f) => f.path.endsWith('testrun.yaml'));
    expect(manifests.map((f) => f.path)).toEqual(['bs-baseline-node-http/testrun.yaml', 'bs-ramp-node-http/testrun.yaml']);
    expect(files.some((f) => f.path === 'README.md')).toBe(true);
    for (const f of manifests) {
      const docs = parseAllDocuments(f.content).map((d) => d.toJS());
      // biome-ignore lint/suspicious/noExplicitAny: parsed YAML, checked field by field below.
      const [cm, tr] = docs as [Record<string, any>, Record<string, any>];
      expect(cm).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
      expect(cm.data['test.js']).toBe(files.find((x) => x.path === f.path.replace('testrun.yaml', 'test.js'))!.content);
      expect(tr).toMatchObject({ apiVersion: 'k6.io/v1alpha1', kind: 'TestRun' });
      expect(tr.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      for (const k of Object.keys(tr.spec)) expect(SPEC).toContain(k);
      expect(tr.spec.parallelism).toBe(4);
      for (const k of Object.keys(tr.spec.script)) expect(SCRIPT).toContain(k);
      for (const k of Object.keys(tr.spec.script.configMap)) expect(CONFIG_MAP).toContain(k);
      expect(tr.spec.script.configMap).toEqual({ name: cm.metadata.name, file: 'test.js' });
      for (const k of Object.keys(tr.spec.runner)) expect(RUNNER).toContain(k);
      expect(tr.spec.runner.env).toContainEqual({ name: 'BASE_URL', value: 'http://node-http.bench.svc:8080' });
    }
    // A stepped load becomes a ramping-vus schedule holding each step.
    expect(files.find((f) => f.path === 'bs-ramp-node-http/test.js')!.content).toMatch(/"executor": "ramping-vus"/);
  });
});
