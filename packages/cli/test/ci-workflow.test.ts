import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, scratch } from './_helpers.js';

/*
 * docs/benchsuite-history.yml, run here as GitHub would run it on pushes, step by step: every
 * `run:` step verbatim with bash in a scratch git repository whose benchsuite.config.ts has a tiny
 * suite (one node:http server, small instruction counts). `uses:` steps are GitHub's (checkout,
 * setup-node, the cache, the artifact) and are played by the scratch folder itself: before each
 * push everything in .benchsuite/ but history.sqlite is removed, as a fresh checkout and the cache
 * restore would leave it; the Install step is skipped (it runs
 * `npm ci` and apt-get: the tools are on this machine already). The history starts with 20 copies of
 * the first push's run (other commits, earlier hours); then three pushes carry an extra loop per
 * request, and the third must fail the job at the commit that added it. Starts servers: under the lock.
 */
const WORKFLOW = fileURLToPath(new URL('../../../docs/benchsuite-history.yml', import.meta.url));
const SDK = fileURLToPath(new URL('../../sdk', import.meta.url));

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
}

const valgrindMissing = spawnSync('sh', ['-c', 'command -v valgrind']).status === 0 ? null : 'valgrind not installed (scripts/test-prereqs.sh installs it)';

const SERVER = (extra: number) => `import { createServer } from 'node:http';
const EXTRA = ${extra};
createServer((req, res) => {
  let a = 0;
  for (let i = 0; i < EXTRA; i++) a = (a * 31 + i) | 0;
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  res.end(a === -1 ? '{}' : '{"ok":true}');
}).listen(Number(process.env.PORT ?? 0), '127.0.0.1', function () {
  console.log(\`listening on http://127.0.0.1:\${this.address().port}\`);
});
`;

const CONFIG = `import { defineConfig, defineScenario, defineTarget } from '@benchsuite/sdk';
export default defineConfig({
  suites: {
    tiny: {
      scenarios: [defineScenario({ name: 'ping', request: { path: '/ping' }, expect: { status: 200 }, load: { connections: 5 } })],
      targets: [defineTarget({ kind: 'process', name: 'app', command: [process.execPath, 'server.mjs'], version: '1.0.0' })],
    },
  },
  design: { windowSec: 0.3, warmup: { minSec: 0.3, maxSec: 0.6, tolerance: 1 }, rounds: { min: 2, max: 2 }, blocks: { min: 1, max: 1 }, budgetSec: 60 },
  instructions: { processes: 3, warmupRequests: 400, requests: 300, loadedRequests: 100 },
});
`;

let repo: string;
const git = (...args: string[]) => {
  const r = spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
};

/** One push: every `run:` step of the workflow, in order, as GitHub runs them (a failed step skips the next unless its `if:` says otherwise). */
function push(steps: Step[]): { name: string; code: number | null; out: string }[] {
  // A fresh checkout, then the cache restores .benchsuite/history.sqlite and nothing else.
  for (const f of readdirSync(join(repo, '.benchsuite'), { withFileTypes: true })) if (f.name !== 'history.sqlite') rmSync(join(repo, '.benchsuite', f.name), { recursive: true, force: true });
  const done: { name: string; code: number | null; out: string }[] = [];
  let failed = false;
  for (const step of steps) {
    if (!step.run || step.name === 'Install') continue;
    const runsAfterFailure = step.if?.includes('!cancelled()') || step.if?.includes('always()');
    if (failed && !runsAfterFailure) continue;
    if (step.if?.includes("hashFiles('.benchsuite/run/results.json') != ''") && spawnSync('test', ['-f', join(repo, '.benchsuite/run/results.json')]).status !== 0) continue;
    const r = spawnSync('bash', ['-eo', 'pipefail', '-c', step.run], {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, GITHUB_REF_NAME: 'main', GITHUB_SHA: git('rev-parse', 'HEAD'), CI: 'true', PATH: `${join(repo, 'node_modules/.bin')}:${process.env.PATH}` },
      timeout: 300_000,
    });
    done.push({ name: step.name ?? step.run, code: r.status, out: `${r.stdout}\n${r.stderr}` });
    if (r.status !== 0) failed = true;
  }
  return done;
}

const commit = (message: string, extra: number) => {
  writeFileSync(join(repo, 'server.mjs'), SERVER(extra));
  git('add', 'server.mjs');
  git('commit', '-q', '--allow-empty', '-m', message);
  return git('rev-parse', 'HEAD');
};

describe.skipIf(valgrindMissing !== null)(`the CI workflow in docs/, run locally${valgrindMissing ? ` (skipped: ${valgrindMissing})` : ''}`, () => {
  let steps: Step[];
  beforeAll(() => {
    steps = (parse(readFileSync(WORKFLOW, 'utf8')) as { jobs: { bench: { steps: Step[] } } }).jobs.bench.steps;
    repo = scratch();
    mkdirSync(join(repo, 'node_modules/.bin'), { recursive: true });
    mkdirSync(join(repo, 'node_modules/@benchsuite'), { recursive: true });
    symlinkSync(BIN, join(repo, 'node_modules/.bin/benchsuite'));
    symlinkSync(SDK, join(repo, 'node_modules/@benchsuite/sdk'));
    writeFileSync(join(repo, 'benchsuite.config.ts'), CONFIG);
    writeFileSync(join(repo, '.gitignore'), 'node_modules\n.benchsuite\n');
    mkdirSync(join(repo, '.benchsuite'));
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'ci@example.com');
    git('config', 'user.name', 'ci');
    git('add', '.');
    commit('first', 0);
  });

  it('keeps a history across pushes, and fails the job on the push that confirms a regression, naming its commit', () => {
    expect(steps.filter((s) => s.uses?.startsWith('actions/cache/')).map((s) => s.uses)).toEqual(['actions/cache/restore@v4', 'actions/cache/save@v4']);
    const first = push(steps);
    expect(
      first.map((s) => [s.name, s.code]),
      first.map((s) => s.out).join('\n'),
    ).toEqual([
      ['Measure', 0],
      ['Judge against the history', 0],
      ['Add to the history', 0],
      ['Chart the history', 0],
    ]);
    expect(first[1]!.out).toMatch(/too little history to judge: 0 earlier runs/);
    // Twenty earlier runs like the first, at other commits and earlier hours (the same machine and design).
    const result = JSON.parse(readFileSync(join(repo, '.benchsuite/run/results.json'), 'utf8')) as { startedAt: string; finishedAt: string; seed: number; environment: { git: { commit: string } } };
    const copies: string[] = [];
    for (let i = 1; i <= 20; i++) {
      const copy = structuredClone(result);
      copy.startedAt = new Date(Date.parse(result.startedAt) - i * 3_600_000).toISOString();
      copy.finishedAt = new Date(Date.parse(result.finishedAt) - i * 3_600_000).toISOString();
      copy.seed = result.seed + i;
      copy.environment.git.commit = `${i}`.padStart(2, '0').repeat(20);
      const file = join(repo, `.benchsuite/copy-${i}.json`); // gone at the next push, as the checkout would have it
      writeFileSync(file, JSON.stringify(copy));
      copies.push(file);
    }
    const add = spawnSync(process.execPath, [BIN, 'history', 'add', ...copies, '--db', '.benchsuite/history.sqlite'], { cwd: repo, encoding: 'utf8' });
    expect(add.status, add.stderr).toBe(0);

    const bad = commit('an extra loop per request', 3000);
    const verdicts: (number | null)[] = [];
    let last = '';
    for (let k = 0; k < 3; k++) {
      if (k) commit(`push ${k + 2}`, 3000);
      const steps_ = push(steps);
      const judge = steps_.find((s) => s.name === 'Judge against the history')!;
      verdicts.push(judge.code);
      last = judge.out;
      expect(steps_.find((s) => s.name === 'Add to the history')?.code, judge.out).toBe(0);
    }
    // A lone run is never a regression; the step is confirmed by the third run after it.
    expect(verdicts.slice(0, 2)).toEqual([0, 0]);
    expect(verdicts[2], last).toBe(1);
    expect(last).toContain('REGRESSION');
    expect(last).toContain(`by ${bad.slice(0, 10)}`);
    const changes = spawnSync(process.execPath, [BIN, 'history', 'changes', '--db', '.benchsuite/history.sqlite', '--figure', 'instructions'], { cwd: repo, encoding: 'utf8' });
    expect(changes.stdout).toMatch(/app on ping, instructions per request, 24 runs:\n {4}worse \+/);
    expect(readFileSync(join(repo, '.benchsuite/site/history.html'), 'utf8')).toContain('<g class="change worse">');
    expect(dirname(WORKFLOW)).toMatch(/docs$/);
  }, 900_000);
});
