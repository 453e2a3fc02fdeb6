import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { commitOf, syntheticResults } from '../../history/test/_synthetic.js';
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
