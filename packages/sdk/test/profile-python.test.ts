// Starts a real Python server and loads it for a few seconds: run under the shared lock,
//   flock /tmp/bs-load.lock npx vitest run packages/sdk/test/profile-python.test.ts
// The first run creates a scratch virtualenv with py-spy (pip, ~10 s); later runs reuse it.
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startProcess } from '../src/process.js';
import { PY_SPY_REQUIREMENT, pySpyCommand, resolveProfiler, summarizeProfile } from '../src/profile/index.js';
import { hammer, lineOf } from './_profile-helpers.js';
import { scratch as scratchDir } from '@benchsuite/testkit';

const hotServer = fileURLToPath(new URL('./fixtures/profile/hot_server.py', import.meta.url));
const venv = join(tmpdir(), 'benchsuite-test-py-spy-venv');
const venvPython = join(venv, 'bin', 'python');

/** A virtualenv holding py-spy, or why there cannot be one here. */
function preparePySpy(): { ok: true } | { ok: false; reason: string } {
  if (existsSync(pySpyCommand(join(venv, 'bin'))[0]!)) return { ok: true };
  try {
    rmSync(venv, { recursive: true, force: true });
    execFileSync('python3', ['-m', 'venv', venv], { stdio: 'pipe', timeout: 60_000 });
  } catch (err) {
    return { ok: false, reason: `python3 -m venv failed: ${(err as Error).message.split('\n')[0]}` };
  }
  try {
    execFileSync(venvPython, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '-q', PY_SPY_REQUIREMENT], { stdio: 'pipe', timeout: 180_000 });
  } catch (err) {
    rmSync(venv, { recursive: true, force: true });
    return { ok: false, reason: `pip install py-spy failed: ${(err as Error).message.split('\n')[0]}` };
  }
  return { ok: true };
}

const setup = preparePySpy();
// `auto` for a virtualenv's python picks the py-spy installed next to it.
const profiler = resolveProfiler('auto', [venvPython, hotServer]);
const usable = setup.ok ? await profiler.available() : setup.reason;
const skipReason = usable === true ? '' : ` (skipped: ${usable})`;

const scratch = scratchDir('bs-profile-py-test');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(usable !== true)(`py-spy profiler${skipReason}`, () => {
  it("is the virtualenv's py-spy", () => {
    expect(profiler.name).toBe('py-spy');
  });

  it('names the hot function at the top of the profile with more than 50% self time', async () => {
    const server = await startProcess({ command: [venvPython, hotServer], env: { PYTHONUNBUFFERED: '1' } });
    try {
      const outFile = join(scratch, 'hot.txt');
      const session = await profiler.start(server.pid, outFile, { maxDurationSec: 30 });
      const sent = await hammer(`${server.url}/hot?n=300000`, { maxRequests: 200, maxMs: 3000 });
      const profile = await session.stop();
      expect(sent).toBeGreaterThan(5);
      expect(existsSync(outFile)).toBe(true);
      expect(profile.samples).toBeGreaterThan(50);

      const summary = summarizeProfile(profile, { profiler: profiler.name });
      const top = summary.top[0]!;
      expect(top.name).toBe(`burn_cpu_hot (${hotServer}:${lineOf(hotServer, 'def burn_cpu_hot(')})`);
      expect(top.group).toBe('own');
      expect(top.self, JSON.stringify({ top: summary.top.slice(0, 6), byPackage: summary.byPackage, samples: summary.samples }, null, 1)).toBeGreaterThan(0.5);
      // the interpreter's own library shows up as runtime (http.server, socketserver)
      expect(summary.byPackage.find((g) => g.name === 'runtime')?.total ?? 0).toBeGreaterThan(0);
      expect((await fetch(`${server.url}/ping`)).status).toBe(200);
    } finally {
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    }
  });

  it('reports a py-spy that cannot attach instead of hanging', async () => {
    await expect(profiler.start(2 ** 22 + 12345, join(scratch, 'none.txt'), { maxDurationSec: 5 })).rejects.toThrow(/py-spy did not start/);
  });
});
