import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { forecastOutcome, type BenchResult } from '@benchsuite/sdk';
import { commitOf, syntheticResults, withControl, withForecastRange, withRoundOne } from '../../history/test/_synthetic.js';
import { inProcess, scratch, STACK } from './_helpers.js';

/*
 * The history from the command line: 50 results of one machine, fastify's baseline figures 15%
 * worse from run 31 on (commit 30), added, queried, judged and charted. No server is started.
 */
let dir: string;
let db: string;
let files: string[];
const results = syntheticResults({ runs: 53, stepAt: 30, step: 0.15, seed: 11 });

const write = (name: string, value: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
};

beforeAll(async () => {
  dir = scratch();
  db = join(dir, 'history.sqlite');
  files = results.map((r, i) => write(`run-${String(i).padStart(2, '0')}.json`, r));
  const added = await inProcess(['history', 'add', ...files.slice(0, 50), '--db', db, '--branch', 'main']);
  expect(added.code, added.stderr).toBe(0);
}, 120_000);

describe('benchsuite history', () => {
  it('adds 50 runs with their commits, and none twice', async () => {
    const again = await inProcess(['history', 'add', files[7]!, '--db', db]);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/run-07\.json: already in the history as run #8/);
    const json = await inProcess(['history', 'changes', '--db', db, '--json']);
    const out = JSON.parse(json.stdout) as { series: { points: { commit: string; branch: string }[] }[] };
    expect(out.series.length).toBe(11);
    expect(out.series.every((s) => s.points.length === 50)).toBe(true);
    expect(out.series[0]!.points[0]).toMatchObject({ commit: commitOf(0, 11), branch: 'main' });
  });

  it('changes: the step at the commit that made it, its size with an interval, the runs on either side; nothing else', async () => {
    const r = await inProcess(['history', 'changes', '--db', db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^11 series over 50 runs on 1 machine; changes in 3\./);
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('    worse') || l.startsWith('    better'));
    expect(lines).toHaveLength(3);
    for (const l of lines) {
      expect(l).toContain(`after ${commitOf(29, 11).slice(0, 10)} (2026-11-02 05:00), by ${commitOf(30, 11).slice(0, 10)} (2026-11-02 06:00)`);
      expect(l).toMatch(/^ {4}worse [+−]1\d\.\d% \[[+−]\d+\.\d%, [+−]\d+\.\d%\] .*; 30 runs before at .*, 20 after at /);
    }
    expect(r.stdout).toMatch(/fastify on baseline, throughput ÷ node-http, 50 runs:\n {4}worse −1\d\.\d%/);
    const one = await inProcess(['history', 'changes', '--db', db, '--figure', 'instructions', '--json']);
    const series = (JSON.parse(one.stdout) as { series: { key: { figure: string }; changes: { index: number }[] }[] }).series;
    expect(series.map((s) => [s.key.figure, s.changes.map((c) => c.index)])).toEqual([['instructions', [30]]]);
  });

  it('check: exit 1 on a run that confirms the regression, naming where it came; exit 0 on a run like the others', async () => {
    const bad = await inProcess(['history', 'check', files[50]!, '--db', db]);
    expect(bad.code, bad.stdout).toBe(1);
    expect(bad.stdout).toMatch(/^REGRESSION: 3 of 11 figures/);
    expect(bad.stdout).toContain(`after ${commitOf(29, 11).slice(0, 10)}`);
    // The same history without its step: runs 0–29 and a new one like them.
    const calm = join(dir, 'calm.sqlite');
    expect((await inProcess(['history', 'add', ...files.slice(0, 30), '--db', calm])).code).toBe(0);
    const likeThem = structuredClone(results[50]!);
    const before = results[29]!;
    likeThem.summaries = before.summaries;
    likeThem.instructions = before.instructions;
    const ok = await inProcess(['history', 'check', write('like-them.json', likeThem), '--db', calm]);
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(/^No regression: 11 of 11 figures judged/);
  });

  it('check with too little history says how many runs it needs and exits 0', async () => {
    const small = join(dir, 'small.sqlite');
    await inProcess(['history', 'add', ...files.slice(0, 4), '--db', small]);
    const r = await inProcess(['history', 'check', files[4]!, '--db', small]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('11 of 11 figures have too little history to judge: 4 earlier runs of machine');
    expect(r.stdout).toContain('and the gate needs 10 (6 more). Not a failure.');
  });

  it('report --out writes one self-contained page with every series charted and the changes marked', async () => {
    const out = join(dir, 'site');
    const r = await inProcess(['history', 'report', '--db', db, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(join(out, 'history.html'), 'utf8');
    expect(html.match(/<svg class="chart history"/g)).toHaveLength(11);
    expect(html.match(/<g class="change worse">/g)).toHaveLength(3);
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
  });

  it('report --history draws the run among its history in report.html', async () => {
    const out = join(dir, 'report.html');
    const r = await inProcess(['report', files[49]!, '--history', '--db', db, '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('<section id="history"><h2>History</h2>');
    // The machine's checks over the runs kept: none of these synthetic runs had an A/A control or the round-1 check.
    expect(html).toContain('A/A control on this machine: none of the 50 runs kept had one');
    expect(html).not.toContain('Round 1 ÷');
    expect(html.match(/<svg class="chart history"/g)).toHaveLength(11);
  });

  it('the default file is history.sqlite in the tool cache', async () => {
    const cache = join(dir, 'cache');
    const r = await inProcess(['history', 'add', files[0]!], { env: { BENCHSUITE_CACHE_DIR: cache } });
    expect(r.code).toBe(0);
    expect(existsSync(join(cache, 'history.sqlite'))).toBe(true);
  });

  it('bad input: a clear message and exit 2, never a stack trace', async () => {
    const notJson = write('not-json.json', '{');
    writeFileSync(notJson, '{');
    const notDb = write('not-a-db.sqlite', 'hello');
    writeFileSync(notDb, 'hello');
    const cases: [string[], RegExp][] = [
      [['history', 'check', join(dir, 'missing.json'), '--db', db], /missing\.json: no such file/],
      [['history', 'check', notJson, '--db', db], /not-json\.json: not valid JSON/],
      [['history', 'add', files[0]!, '--db', notDb], /not-a-db\.sqlite: not a SQLite database/],
      [['history', 'changes', '--db', db, '--figure', 'latency'], /--figure: expected rps, cpu, instructions/],
      [['history', 'check', files[50]!, '--db', db, '--since', 'deadbeef'], /--since: no run of commit deadbeef/],
      [['history', 'check', '--db', db], /missing <results\.json>/],
      [['history', 'frobnicate'], /unknown command "frobnicate"/],
      [['run', '--db', join(dir, 'x.sqlite')], /--db names the history file of --history/],
    ];
    for (const [argv, message] of cases) {
      const r = await inProcess(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(message);
      expect(r.stderr).not.toMatch(STACK);
    }
  });
});

describe('history check after a kernel update', () => {
  // 20 runs on one kernel, 3 on the next, and the new run (the fourth on the new kernel): no step.
  const OLD = '6.1.0-18-amd64';
  const NEW = '6.1.0-21-amd64';
  const runs = syntheticResults({ runs: 24, seed: 13 }).map((r, i) => ({ ...r, environment: { ...r.environment, kernel: i < 20 ? OLD : NEW } }));
  let kernelDb: string;
  let newest: string;
  beforeAll(async () => {
    kernelDb = join(dir, 'kernel.sqlite');
    const added = await inProcess(['history', 'add', ...runs.slice(0, 23).map((r, i) => write(`kernel-${i}.json`, r)), '--db', kernelDb]);
    expect(added.code, added.stderr).toBe(0);
    newest = write('kernel-new.json', runs[23]!);
  }, 120_000);

  it('by default: says the kernel changed and when, judges without the runs before it (too short, exit 0), and names the flag that counts them', async () => {
    const r = await inProcess(['history', 'check', newest, '--db', kernelDb]);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain(`The kernel changed ${OLD} → ${NEW} 3 runs ago (the last run before it: ${commitOf(19, 13).slice(0, 10)}, 2026-11-01 19:00).`);
    expect(r.stdout).toContain('count as another machine (--same-machine cpu,kernel,node,python), so this run is judged without them; to count them as this machine: --same-machine cpu,node,python.');
    expect(r.stdout).toContain('11 of 11 figures have too little history to judge: 3 earlier runs of machine');
  });

  it('--same-machine cpu: judged against all 23 earlier runs, the kernel change still said', async () => {
    const r = await inProcess(['history', 'check', newest, '--db', kernelDb, '--same-machine', 'cpu']);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^No regression: 11 of 11 figures judged/);
    expect(r.stdout).toContain(`The kernel changed ${OLD} → ${NEW} 3 runs ago`);
    expect(r.stdout).toContain('The runs before the kernel change count as this machine (--same-machine cpu).');
    const json = JSON.parse((await inProcess(['history', 'check', newest, '--db', kernelDb, '--same-machine', 'cpu', '--json'])).stdout) as {
      sameMachine: string[];
      machineChanges: { part: string; from: string; to: string; runsSince: number; counted: boolean }[];
      checks: { history: unknown[] }[];
    };
    expect(json.sameMachine).toEqual(['cpu']);
    expect(json.machineChanges).toMatchObject([{ part: 'kernel', from: OLD, to: NEW, runsSince: 3, counted: false }]);
    expect(json.checks.every((c) => c.history.length === 24)).toBe(true);
  });

  it('--same-machine with an unknown part: exit 2 naming the parts', async () => {
    const r = await inProcess(['history', 'check', newest, '--db', kernelDb, '--same-machine', 'cpu,gpu']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--same-machine: expected cpu, kernel, node, python \(or a comma list of them\), got "gpu"/);
    expect(r.stderr).not.toMatch(STACK);
  });
});

describe('the A/A coverage check', () => {
  // Machine A: 2 runs from before the control, then 8 with two scenarios each, run 5's json-post
  // missing 1 and run 9's without an interval yet: 14 of 15 held. Machine B: 20 runs of one
  // scenario, 4 missing 1 (16 of 20, P(X ≤ 16 | 20, 0.95) = 0.0159), and a new run that holds.
  const A = syntheticResults({ runs: 10, seed: 21 }).map((r, i) => (i < 2 ? r : withControl(r, [true, i === 5 ? false : i === 9 ? null : true], i === 9 ? null : 0.02 + 0.005 * (i - 2))));
  // Machine B's runs also carry the round-1 check (8 blocks each, scattered around 3% low) and a
  // forecast whose 80% range always held what they reached (±20% around it): 20 of 20, too wide.
  const roundOneLogs = (i: number) => Array.from({ length: 8 }, (_, k) => -0.03 + 0.01 * (((k * 7 + i * 3) % 5) - 2));
  const reached = (r: BenchResult) => forecastOutcome(withForecastRange(r, 0, 1))!.reached!;
  const B = syntheticResults({ runs: 21, seed: 22, cpuModel: 'Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz', startHour: 100 }).map((r, i) =>
    withForecastRange(withRoundOne(withControl(r, [i % 5 !== 4], 0.04), roundOneLogs(i)), reached(r) * 0.8, reached(r) * 1.2),
  );
  let aaDb: string;
  let fpA: string;
  let fpB: string;
  beforeAll(async () => {
    aaDb = join(dir, 'aa.sqlite');
    const added = await inProcess(['history', 'add', ...[...A, ...B.slice(0, 20)].map((r, i) => write(`aa-${i}.json`, r)), '--db', aaDb]);
    expect(added.code, added.stderr).toBe(0);
    const machines = [...added.stderr.matchAll(/machine ([0-9a-f]{12})/g)].map((m) => m[1]!);
    fpA = machines[0]!;
    fpB = machines.at(-1)!;
  }, 120_000);

  it('changes: the share that held 1 per machine and overall, with counts, the process SD, and too narrow where the binomial test says so', async () => {
    const r = await inProcess(['history', 'changes', '--db', aaDb]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "A/A control, all 2 machines: 30 of 35 intervals held 1 (86%) over 28 runs (the other 2 kept had no control); expected about 95%. That is clearly fewer (one-sided binomial test, p = 0.029 < 0.05): the tool's intervals are too narrow on these machines;",
    );
    expect(r.stdout).toContain(
      `  machine ${fpA}: 14 of 15 intervals held 1 (93%) over 8 runs (the other 2 kept had no control); expected about 95%. One process's own level varies by 3.5% (SD of its log; median of 7 runs, range 2.0%–5.0%).`,
    );
    expect(r.stdout).toContain(
      `  machine ${fpB}: 16 of 20 intervals held 1 (80%) over 20 runs; expected about 95%. That is clearly fewer (one-sided binomial test, p = 0.016 < 0.05): the tool's intervals are too narrow on this machine; read every interval on this machine as wider than it says. One process's own level varies by 4.0% (SD of its log; median of 20 runs, range 4.0%–4.0%).`,
    );
    // Machine B's runs carry the round-1 check, pooled under its A/A line; machine A's do not.
    expect(r.stdout).toContain(
      `\n    Round 1 ÷ its block's later rounds (the pairs' ratios to the reference), pooled over 20 runs of this design (160 blocks): 0.970 [0.968, 0.973], 3.0% low, beyond ±1%: this design's warm-up leaves a trend on this machine that one run's own check is too coarse to see;`,
    );
    expect(r.stdout.match(/Round 1 ÷/g)).toHaveLength(1);
    // The forecasts: over all machines (only B's runs had one), then under machine B's lines.
    expect(r.stdout).toContain(
      "\nForecast: the half-width reached fell inside the forecast's range in 20 of 20 runs (100%); expected about 80%. That is clearly more (two-sided binomial test, p = 0.023 < 0.05): the forecast's ranges are wider than they need be on these machines.\n",
    );
    expect(r.stdout).toContain("\n    Forecast: the half-width reached fell inside the forecast's range in 20 of 20 runs (100%); expected about 80%. That is clearly more");
    const json = JSON.parse((await inProcess(['history', 'changes', '--db', aaDb, '--json'])).stdout) as {
      control: { overall: Record<string, unknown>; machines: Record<string, unknown>[] };
    };
    expect(json.control.machines.map((m) => m.roundOne && { runs: (m.roundOne as { runs: number }).runs, verdict: (m.roundOne as { verdict: string }).verdict })).toEqual([
      null,
      { runs: 20, verdict: 'beyond' },
    ]);
    expect(json.control.overall.roundOne).toBeNull();
    expect(json.control.overall).toMatchObject({ runs: 30, controlled: 28, intervals: 35, held: 30, nominal: 0.95, alpha: 0.05, tooNarrow: true });
    expect(json.control.machines).toMatchObject([
      { fingerprint: fpA, intervals: 15, held: 14, tooNarrow: false, processSd: { runs: 7, median: 0.035, min: 0.02, max: 0.05 } },
      { fingerprint: fpB, intervals: 20, held: 16, tooNarrow: true },
    ]);
    // --scenario keeps that scenario's intervals only.
    const one = await inProcess(['history', 'changes', '--db', aaDb, '--scenario', 'json-post']);
    expect(one.stdout).toContain(`  machine ${fpA}: 6 of 7 intervals held 1 (86%) over 8 runs`);
  });

  it('check: one line on the new run’s machine, this run included; the exit code does not change', async () => {
    const r = await inProcess(['history', 'check', write('aa-new.json', B[20]!), '--db', aaDb]);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain(
      "A/A control on this machine: 17 of 21 intervals held 1 (81%) over 21 runs; expected about 95%. That is clearly fewer (one-sided binomial test, p = 0.019 < 0.05): the tool's intervals are too narrow on this machine;",
    );
    const json = JSON.parse((await inProcess(['history', 'check', join(dir, 'aa-new.json'), '--db', aaDb, '--json'])).stdout) as { control: Record<string, unknown> };
    expect(json.control).toMatchObject({ fingerprint: fpB, runs: 21, intervals: 21, held: 17, tooNarrow: true, roundOne: { runs: 21, blocks: 168, otherDesigns: 0, verdict: 'beyond' } });
    expect(r.stdout).toContain(
      `\nRound 1 ÷ its block's later rounds (the pairs' ratios to the reference), pooled over 21 runs of this design (168 blocks): 0.970 [0.968, 0.973], 3.0% low, beyond ±1%`,
    );
    // A history without any control says so.
    const none = await inProcess(['history', 'check', files[10]!, '--db', db]);
    expect(none.stdout).toContain('A/A control on this machine: none of the 50 runs kept had one (results from before it, or runs with --control none)');
  });

  it('report: the sentence per machine and a chart of the A/A intervals, the misses marked', async () => {
    const out = join(dir, 'aa-site');
    const r = await inProcess(['history', 'report', '--db', aaDb, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(join(out, 'history.html'), 'utf8');
    expect(html.match(/<svg class="chart history control"/g)).toHaveLength(2);
    expect(html.match(/<circle class="aa missed"/g)).toHaveLength(5);
    expect(html).toContain('A/A control, all 2 machines: 30 of 35 intervals held 1 (86%)');
    expect(html).toContain('<p class="note bad">A/A control: 16 of 20 intervals held 1 (80%) over 20 runs; expected about 95%. That is clearly fewer');
    expect(html).toContain('<p class="muted">A/A control: 14 of 15 intervals held 1 (93%)');
    expect(html).toContain('<p class="muted">Forecast: the half-width reached fell inside the forecast&#39;s range in 20 of 20 runs (100%)');
    expect(html).toContain(
      `<p class="note bad">Round 1 ÷ its block&#39;s later rounds (the pairs&#39; ratios to the reference), pooled over 20 runs of this design (160 blocks): 0.970 [0.968, 0.973], 3.0% low`,
    );
  });
});
