// Starts a real server and loads it for a few seconds: run under the shared lock,
//   flock /tmp/bs-load.lock npx vitest run packages/sdk/test/profile-perf.test.ts
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startProcess } from '../src/process.js';
import { perfProfiler, resolveProfiler, summarizeProfile } from '../src/profile/index.js';
import { hammer } from './_profile-helpers.js';
import { scratch as scratchDir } from '@benchsuite/testkit';

const hotServer = fileURLToPath(new URL('./fixtures/profile/hot_server.py', import.meta.url));

/** The interpreter itself, not a wrapper such as a pyenv shim (perf must see the process that computes). */
function realPython(): string | undefined {
  try {
    return execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const python = realPython();
const usable = python === undefined ? 'python3 not found' : await perfProfiler.available();
const scratch = scratchDir('bs-profile-perf-test');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(usable !== true)(`perf profiler${usable === true ? '' : ` (skipped: ${usable})`}`, () => {
  it("records a process tree and attributes an interpreter's time to the runtime", async () => {
    // no `auto` here: for a Python command auto picks py-spy; perf is what other processes get
    expect(resolveProfiler('auto', ['./a-compiled-server']).name).toBe('perf');
    const server = await startProcess({ command: [python!, hotServer] });
    try {
      const outFile = join(scratch, 'perf.data');
      const session = await perfProfiler.start(server.pid, outFile, { maxDurationSec: 20 });
      await hammer(`${server.url}/hot?n=300000`, { maxRequests: 100, maxMs: 2000 });
      const profile = await session.stop();
      expect(existsSync(outFile)).toBe(true);
      expect(profile.samples).toBeGreaterThan(50);
      const summary = summarizeProfile(profile, { profiler: 'perf' });
      // CPython's eval loop lives in the interpreter (libpython or the python binary): runtime
      const runtime = summary.byPackage.find((g) => g.kind === 'runtime' && g.name === 'runtime');
      expect(runtime?.self ?? 0, JSON.stringify(summary.top.slice(0, 5))).toBeGreaterThan(0.5);
    } finally {
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    }
  });

  it('reports a pid that does not exist instead of hanging', async () => {
    await expect(perfProfiler.start(2 ** 22 + 12345, join(scratch, 'none.data'))).rejects.toThrow(/not running/);
  });
});
