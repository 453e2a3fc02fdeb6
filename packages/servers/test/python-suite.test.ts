/**
 * The python suite's definitions: six scenarios checked byte for byte, the targets' setup hooks
 * (the shared venv mechanism, versions from the pinned requirements) and their cost figures
 * (artifact sizes from the installed dependency closure of each server).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { inject } from 'vitest';
import { parseScenario, parseTarget, setupTarget, targetSupports } from '@benchsuite/sdk';
import type {} from './_gateway-global-setup.js';
import { ensurePythonWebVenv, pythonWebDir, pythonWebPython, nodeHttpC, pythonHttpServer, pythonFastapi1w, pythonLitestar, pythonScenarios, pythonTargets } from '../src/python-suite.js';
import { contractC } from '../src/contract-c/contract-c.js';

const pythonAbsent: string | null = inject('pythonWebUnavailable') ?? null;

describe('python suite definitions', () => {
  test('six scenarios, one per endpoint, each with its exact body text and content type', () => {
    expect(pythonScenarios.map((s) => [s.name, s.request?.path])).toEqual([
      ['hello', '/hello'],
      ['root-html', '/'],
      ['json', '/api/json'],
      ['item', '/items/42'],
      ['large-json', '/api/large'],
      ['page', '/page'],
    ]);
    for (const input of pythonScenarios) {
      const s = parseScenario(input);
      expect(s.group).toBe('python');
      expect(s.expect.text, s.name).toBeTypeOf('string');
      expect(s.expect.headers?.['content-type'], s.name).toBe(s.name === 'root-html' || s.name === 'page' ? contractC.contentTypes.html : contractC.contentTypes.json);
    }
    expect(parseScenario(pythonScenarios[3]!).expect.text).toBe('{"id":"42","name":"item 42"}');
  });

  test('the reference comes first, every target takes every scenario of the suite and none other', () => {
    expect(pythonTargets[0]).toBe(nodeHttpC);
    for (const t of pythonTargets.map((x) => parseTarget(x))) {
      expect(t.metadata.contract, t.name).toBe('C');
      for (const s of pythonScenarios) expect(targetSupports(t, parseScenario(s)), `${t.name} ${s.name}`).toBe(true);
      expect(targetSupports(t, { name: 'baseline', group: 'framework' }), t.name).toBe(false);
    }
  });

  test('node-http-c: its artifact is its own files, no dependency', async () => {
    const a = await nodeHttpC.artifact();
    expect(a.bytes).toBeGreaterThan(5_000);
    expect(a.bytes).toBeLessThan(100_000);
    expect(a.method).toMatch(/no dependency/);
  });
});

describe.skipIf(pythonAbsent !== null)(`python suite targets with their venv${pythonAbsent ? ` (skipped: ${pythonAbsent})` : ''}`, () => {
  test('the venv is reused once built (hash marker of requirements.txt)', async () => {
    const r = await ensurePythonWebVenv();
    expect(r.created).toBe(false);
    expect(r.venvDir).toMatch(/python-web-venv-[0-9a-f]{12}$/);
  });

  test('setup hooks report the pinned versions', async () => {
    const log = () => {};
    expect(await setupTarget(parseTarget(pythonFastapi1w), log)).toMatchObject({ status: 'ok', version: '0.165.0' });
    expect(await setupTarget(parseTarget(pythonLitestar), log)).toMatchObject({ status: 'ok', version: '2.25.0' });
    expect(await setupTarget(parseTarget(pythonHttpServer), log)).toMatchObject({ status: 'ok', version: expect.stringMatching(/^3\.\d+\.\d+$/) });
  });

  test('artifacts: each server counts its own dependency closure, http.server none', async () => {
    const fastapi = await pythonFastapi1w.artifact();
    const litestar = await pythonLitestar.artifact();
    const stdlib = await pythonHttpServer.artifact();
    expect(fastapi.method).toMatch(/fastapi, .*starlette, .*uvicorn, uvloop/);
    expect(fastapi.method).not.toMatch(/litestar|msgspec|py-spy/);
    expect(litestar.method).toMatch(/litestar, .*msgspec, .*uvicorn/);
    expect(litestar.method).not.toMatch(/fastapi|starlette|py-spy/);
    expect(stdlib.method).toMatch(/no third-party package/);
    expect(fastapi.bytes).toBeGreaterThan(1_000_000);
    expect(litestar.bytes).toBeGreaterThan(1_000_000);
    expect(stdlib.bytes).toBeLessThan(100_000);
  });

  test('the launcher refuses bad usage and bad env with exit 2 and a message, before starting anything', () => {
    const run = (args: string[], env: Record<string, string>) =>
      spawnSync(pythonWebPython(), [join(pythonWebDir, 'run.py'), ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 });
    const usage = run(['django'], {});
    expect([usage.status, usage.stderr]).toEqual([2, 'usage: python run.py <fastapi|litestar|http-server>\n']);
    const workers = run(['fastapi'], { WORKERS: '0' });
    expect([workers.status, workers.stderr]).toEqual([2, "WORKERS must be an integer >= 1, got '0'\n"]);
    const contract = run(['http-server'], { CONTRACT_C_PATH: '/nonexistent/contract-c.json' });
    expect(contract.status).toBe(2);
    expect(contract.stderr).toMatch(/^cannot read the contract C data \(.*No such file.*\); set CONTRACT_C_PATH to packages\/servers\/contract\/contract-c\.json\n$/);
    for (const server of ['fastapi', 'http-server']) {
      const port = run([server], { PORT: 'abc' });
      expect([port.status, port.stderr, port.stdout], server).toEqual([2, "PORT must be a port number, got 'abc'\n", '']);
    }
  });

  test('PYTHON_GC (a knob of bench:aa): bad values and many workers refused with exit 2, good ones applied', () => {
    const run = (args: string[], env: Record<string, string>) =>
      spawnSync(pythonWebPython(), [join(pythonWebDir, 'run.py'), ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 });
    const bad = run(['http-server'], { PYTHON_GC: 'sometimes' });
    expect([bad.status, bad.stderr]).toEqual([2, "PYTHON_GC must be default, off, freeze or thresholds like 7000,10,10, got 'sometimes'\n"]);
    const many = run(['fastapi'], { PYTHON_GC: 'freeze', WORKERS: '2' });
    expect(many.status).toBe(2);
    expect(many.stderr).toMatch(/^PYTHON_GC applies to a one-worker server .*WORKERS=1\n$/);
    const probe = (raw: string) =>
      spawnSync(pythonWebPython(), ['-c', `import gc, run; run.apply_gc(run.parse_gc(${JSON.stringify(raw)})); print(gc.isenabled(), gc.get_threshold(), gc.get_freeze_count() > 0)`], {
        cwd: pythonWebDir,
        encoding: 'utf8',
        timeout: 30_000,
      }).stdout.trim();
    expect(probe('')).toBe('True (700, 10, 10) False');
    expect(probe('7000,10,10')).toBe('True (7000, 10, 10) False');
    expect(probe('off')).toMatch(/^False /);
    expect(probe('freeze')).toMatch(/ True$/);
  });
});

test('the node:http server refuses a bad PORT with exit 2 and a message', () => {
  const main = fileURLToPath(new URL('../dist/contract-c/main.js', import.meta.url));
  const r = spawnSync(process.execPath, [main], { encoding: 'utf8', env: { ...process.env, PORT: 'abc' }, timeout: 30_000 });
  expect([r.status, r.stderr, r.stdout]).toEqual([2, 'PORT must be a port number, got "abc"\n', '']);
});
