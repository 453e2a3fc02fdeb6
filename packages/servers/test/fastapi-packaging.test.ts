import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { TargetUnavailableError } from '@benchsuite/sdk';
import { fastapiCopy, fastapiSource } from '../scripts/copy-fastapi.mjs';
import { benchsuiteCacheDir, ensureFastapiVenv, fastapiDir, fastapiVenvDir, fastapiVenvPython } from '../src/gateway/fastapi-venv.js';
import { fastapi1w } from '../src/gateway-targets.js';
import { scratch as scratchDir } from '@benchsuite/testkit';

/** The FastAPI gateway as the published package carries it: files inside the package, venv in a cache. */

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const scratch = scratchDir('benchsuite-fastapi-pkg');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the FastAPI gateway inside @benchsuite/servers', () => {
  test('is resolved from the package root (dist/fastapi), a copy of external/fastapi made by the build', () => {
    expect(fastapiDir.startsWith(packageRoot)).toBe(true);
    expect(fastapiDir).toBe(`${fastapiCopy}/`);
    for (const f of ['run.py', 'requirements.txt', 'gateway/app.py', 'gateway/contract.py']) {
      expect(readFileSync(join(fastapiDir, f), 'utf8'), f).toBe(readFileSync(join(fastapiSource, f), 'utf8'));
    }
    const t = fastapi1w;
    if (t.kind !== 'process') throw new Error('process target expected');
    expect(t.command).toEqual([fastapiVenvPython(), join(fastapiDir, 'run.py')]);
    // contract.py's own default path only works in the checkout; the target names the package's file.
    expect(t.env?.CONTRACT_B_PATH).toBe(join(packageRoot, 'contract', 'contract-b.json'));
    expect(existsSync(t.env!.CONTRACT_B_PATH!)).toBe(true);
  });

  test('its venv lives in the cache, one folder per requirements.txt content', () => {
    const home = process.env.HOME;
    expect(benchsuiteCacheDir({ BENCHSUITE_CACHE_DIR: '/x/bs' })).toBe('/x/bs');
    expect(benchsuiteCacheDir({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/benchsuite');
    expect(benchsuiteCacheDir({ XDG_CACHE_HOME: 'relative/ignored', HOME: home })).toMatch(/\/\.cache\/benchsuite$/);
    const a = join(scratch, 'a');
    const b = join(scratch, 'b');
    for (const [dir, pins] of [
      [a, 'fastapi==1\n'],
      [b, 'fastapi==2\n'],
    ] as const) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'requirements.txt'), pins);
    }
    const env = { BENCHSUITE_CACHE_DIR: '/x/bs' };
    expect(fastapiVenvDir(a, env)).toMatch(/^\/x\/bs\/fastapi-venv-[0-9a-f]{12}$/);
    expect(fastapiVenvDir(a, env)).toBe(fastapiVenvDir(a, env));
    expect(fastapiVenvDir(a, env)).not.toBe(fastapiVenvDir(b, env));
  });

  test('a python3 without ensurepip (Debian without python3-venv) → TargetUnavailableError naming python3-venv', async () => {
    const dir = join(scratch, 'app');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'requirements.txt'), 'fastapi==0\n');
    const fake = join(scratch, 'python3');
    // Answers --version like Python, fails on `import ensurepip` like Debian's python3 does.
    writeFileSync(fake, `#!/bin/sh\ncase "$*" in *ensurepip*) echo "ModuleNotFoundError: No module named 'ensurepip'" >&2; exit 1;; esac\necho "Python 3.11.0"\n`);
    chmodSync(fake, 0o755);
    const cache = join(scratch, 'cache');
    const before = process.env.BENCHSUITE_CACHE_DIR;
    process.env.BENCHSUITE_CACHE_DIR = cache;
    try {
      const err = await ensureFastapiVenv({ python: fake, dir }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TargetUnavailableError);
      expect((err as Error).message).toMatch(/cannot create a virtualenv .*apt-get install python3-venv/);
    } finally {
      if (before === undefined) delete process.env.BENCHSUITE_CACHE_DIR;
      else process.env.BENCHSUITE_CACHE_DIR = before;
    }
    expect(existsSync(fastapiVenvDir(dir, { BENCHSUITE_CACHE_DIR: cache }))).toBe(false);
  });
});
