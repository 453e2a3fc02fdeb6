import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratch as scratchDir } from '@benchsuite/testkit';

/**
 * docs/config.md ("Your own scenarios and targets"), followed in scratch folders outside the monorepo,
 * without a registry for our packages: `npm pack` the five packages (from their built dist/), install
 * the tarballs, write a config with a custom process target, run `npx benchsuite run --quick`.
 * Also: the SDK alone, and the CLI without @benchsuite/servers, install no framework server.
 */

const packagesDir = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGES = ['sdk', 'report', 'history', 'servers', 'cli'] as const;
const FRAMEWORKS = ['fastify', 'express', 'hono', 'koa'] as const;

const root = scratchDir('benchsuite-another-repo');
const packs = join(root, 'packs');
const tarballs: Record<(typeof PACKAGES)[number], string> = { sdk: '', report: '', history: '', servers: '', cli: '' };

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The environment a user's shell would have: none of vitest's variables. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(VITEST|TEST$|NODE_ENV$)/.test(k)) env[k] = v;
  return env;
}

function sh(cmd: string, args: string[], cwd: string, timeoutMs = 300_000): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, env: userEnv(), encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
}

/** Run a command and fail with its output when it does not exit 0. */
function ok(cmd: string, args: string[], cwd: string, timeoutMs?: number): string {
  const r = sh(cmd, args, cwd, timeoutMs);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status ?? r.signal}\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
  return r.stdout;
}

function scratch(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }, null, 2));
  return dir;
}

const npmInstall = (dir: string, files: string[]): string => ok('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...files], dir);
const installed = (dir: string, pkg: string): boolean => existsSync(join(dir, 'node_modules', pkg, 'package.json'));
const packageCount = (dir: string): number => sh('npm', ['ls', '--all', '--parseable'], dir).stdout.split('\n').filter(Boolean).length - 1;

beforeAll(() => {
  mkdirSync(packs);
  for (const p of PACKAGES) {
    // As docs/config.md says: `npm pack <checkout>/packages/<name>` from the other repository.
    const out = ok('npm', ['pack', join(packagesDir, p), '--pack-destination', packs, '--silent'], root)
      .trim()
      .split('\n')
      .at(-1)!;
    tarballs[p] = join(packs, out);
  }
}, 120_000);

describe('the packages as another repository gets them (npm pack tarballs, no registry)', () => {
  it('each tarball holds its built dist/ and the files it needs at run time, and no src/ or test/', () => {
    const list = (p: (typeof PACKAGES)[number]): string[] => ok('tar', ['-tzf', tarballs[p]], packs).split('\n').filter(Boolean);
    for (const p of PACKAGES) {
      const files = list(p);
      expect(files, p).toContain('package/dist/index.js');
      expect(files, p).toContain('package/dist/index.d.ts');
      expect(
        files.filter((f) => /^package\/(src|test)\//.test(f)),
        p,
      ).toEqual([]);
    }
    expect(list('cli')).toEqual(expect.arrayContaining(['package/bin/benchsuite.js', 'package/dist/main.js']));
    expect(list('sdk')).toContain('package/schema/result.schema.json');
    const servers = list('servers');
    expect(servers).toEqual(
      expect.arrayContaining([
        'package/contract/contract-a.json',
        'package/contract/contract-b.json',
        'package/dist/serve.js',
        'package/dist/gateway/main.js',
        'package/dist/stub-backend/main.js',
        'package/dist/fastapi/run.py',
        'package/dist/fastapi/requirements.txt',
        'package/dist/fastapi/gateway/app.py',
        'package/dist/fastapi/gateway/contract.py',
        'package/contract/contract-c.json',
        'package/dist/contract-c/main.js',
        'package/dist/python-web/run.py',
        'package/dist/python-web/artifact.py',
        'package/dist/python-web/requirements.txt',
        'package/dist/python-web/webapp/contract.py',
        'package/dist/python-web/webapp/fastapi_app.py',
        'package/dist/python-web/webapp/litestar_app.py',
        'package/dist/python-web/webapp/stdlib_server.py',
      ]),
    );
    expect(servers.filter((f) => f.includes('__pycache__') || f.includes('.venv'))).toEqual([]);
  });

  it('installs all five, and `npx benchsuite run --quick` measures a custom process target from a config', () => {
    const dir = scratch('consumer');
    npmInstall(
      dir,
      PACKAGES.map((p) => tarballs[p]),
    );
    writeFileSync(
      join(dir, 'server.mjs'),
      `import { createServer } from 'node:http';
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"hello":"world"}');
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
process.on('SIGTERM', () => { server.close(() => process.exit(0)); server.closeIdleConnections(); });
`,
    );
    writeFileSync(
      join(dir, 'benchsuite.config.mjs'),
      `import { defineConfig, defineScenario, defineTarget } from '@benchsuite/sdk';

const hello = defineScenario({
  name: 'hello',
  request: { method: 'GET', path: '/hello', headers: { accept: 'application/json' } },
  expect: { status: 200, json: { hello: 'world' } },
  load: { connections: 10 },
});

const mine = defineTarget({
  kind: 'process',
  name: 'my-server',
  command: ['node', 'server.mjs'],
  ready: { type: 'stdout' },
  version: '1.0.0',
});

export default defineConfig({ scenarios: [hello], targets: [mine] });
`,
    );
    const out = join(dir, 'results');
    const run = sh('npx', ['benchsuite', 'run', '--quick', '--out', out], dir, 300_000);
    const log = `exit ${run.status ?? run.signal}\n--- stdout\n${run.stdout.slice(-3000)}\n--- stderr\n${run.stderr.slice(-3000)}`;
    expect(existsSync(join(out, 'results.json')), `results.json missing\n${log}`).toBe(true);
    expect(run.status, log).toBe(0);

    // Validated by the installed SDK's own schema, as another tool would.
    writeFileSync(
      join(dir, 'check.mjs'),
      `import { readFileSync } from 'node:fs';
import { resultSchema } from '@benchsuite/sdk';
const parsed = resultSchema.safeParse(JSON.parse(readFileSync(process.argv[2], 'utf8')));
console.log(JSON.stringify(parsed.success ? { ok: true } : { ok: false, issues: parsed.error.issues.slice(0, 5) }));
`,
    );
    expect(JSON.parse(ok('node', ['check.mjs', join(out, 'results.json')], dir))).toEqual({ ok: true });
    const result = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as {
      schemaVersion: number;
      windows: { status: string; target: string; scenario: string; rps?: number }[];
    };
    expect(result.schemaVersion).toBe(3);
    const mineWindows = result.windows.filter((w) => w.target === 'my-server');
    expect(mineWindows.length, log).toBeGreaterThan(0);
    for (const w of mineWindows) {
      expect(w, log).toMatchObject({ status: 'ok', scenario: 'hello' });
      expect(w.rps).toBeGreaterThan(0);
    }
  }, 600_000);

  it('the SDK alone installs no framework server', () => {
    const dir = scratch('sdk-only');
    npmInstall(dir, [tarballs.sdk]);
    expect(installed(dir, '@benchsuite/sdk')).toBe(true);
    expect(FRAMEWORKS.filter((f) => installed(dir, f))).toEqual([]);
    expect(installed(dir, '@benchsuite/servers')).toBe(false);
    // Recorded for the install-weight figures (run with --reporter=verbose or read the log).
    const du = sh('du', ['-sh', 'node_modules'], dir).stdout.split('\t')[0];
    console.log(`[from-another-repo] SDK alone: ${packageCount(dir)} packages, node_modules ${du}`);
  }, 300_000);

  it('the CLI (with SDK, report, history) without @benchsuite/servers installs no framework server and says where the built-in suites are', () => {
    const dir = scratch('cli-without-servers');
    npmInstall(dir, [tarballs.sdk, tarballs.report, tarballs.history, tarballs.cli]);
    expect(installed(dir, 'benchsuite')).toBe(true);
    expect(installed(dir, '@benchsuite/servers')).toBe(false);
    expect(FRAMEWORKS.filter((f) => installed(dir, f))).toEqual([]);
    const list = sh('npx', ['benchsuite', 'list'], dir, 60_000);
    expect(list.status, list.stderr).toBe(2);
    expect(list.stderr).toMatch(/@benchsuite\/servers, which is not installed/);
    expect(list.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    const du = sh('du', ['-sh', 'node_modules'], dir).stdout.split('\t')[0];
    console.log(`[from-another-repo] SDK + report + history + CLI: ${packageCount(dir)} packages, node_modules ${du}`);
  }, 300_000);
});

// Keep the tarballs list honest: a package added to the workspace must be packed here too, unless
// it is private (the test kit is never published).
it('packs every published workspace package', () => {
  const manifest = (d: string) => join(packagesDir, d, 'package.json');
  const workspaces = readdirSync(packagesDir).filter((d) => existsSync(manifest(d)) && JSON.parse(readFileSync(manifest(d), 'utf8')).private !== true);
  expect(workspaces.sort()).toEqual([...PACKAGES].sort());
});
