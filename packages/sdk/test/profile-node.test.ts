// Starts real servers and loads them for a few seconds: run under the shared lock,
//   flock /tmp/bs-load.lock npx vitest run packages/sdk/test/profile-node.test.ts
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startProcess, type RunningProcess } from '../src/process.js';
import { NODE_PROFILE_DIR_ENV, PROFILE_DEFAULTS, nodeHookPath, nodeProfiler, resolveProfiler, summarizeProfile } from '../src/profile/index.js';
import { hammer, lineOf } from './_profile-helpers.js';
import { scratch as scratchDir } from '@benchsuite/testkit';

const hotServer = fileURLToPath(new URL('./fixtures/profile/hot-server.mjs', import.meta.url));
const scratch = scratchDir('bs-profile-node-test');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Start the hot server through the profiler's prepareCommand, as the runner will. */
async function startHot(): Promise<{ server: RunningProcess; env: Record<string, string> }> {
  const profiler = resolveProfiler('auto', [process.execPath, hotServer]);
  expect(profiler.name).toBe('node');
  const prepared = profiler.prepareCommand!([process.execPath, hotServer], {});
  expect(prepared.command.slice(0, 3)).toEqual([process.execPath, '--import', expect.stringMatching(/^file:.*_node-hook\.js$/)]);
  return { server: await startProcess({ command: prepared.command, env: prepared.env }), env: prepared.env };
}

describe('node profiler (V8 sampling through a preloaded inspector hook)', () => {
  it('is available once the SDK is built (the hook ships in dist/)', async () => {
    expect(await nodeProfiler.available()).toBe(true);
    expect(existsSync(nodeHookPath())).toBe(true);
  });

  it('names the hot function at the top of the profile with more than 50% self time', async () => {
    const { server, env } = await startHot();
    try {
      const outFile = join(scratch, 'hot.cpuprofile');
      const session = await nodeProfiler.start(server.pid, outFile, { env });
      const sent = await hammer(`${server.url}/hot?n=300000`, { maxRequests: 400, maxMs: 3000 });
      const profile = await session.stop();
      expect(sent).toBeGreaterThan(10);
      expect(profile.unit).toBe('us');
      expect(profile.intervalUs).toBe(PROFILE_DEFAULTS.nodeIntervalUs);
      expect(JSON.parse(readFileSync(outFile, 'utf8'))).toHaveProperty('nodes');

      const summary = summarizeProfile(profile, { profiler: 'node' });
      const top = summary.top[0]!;
      expect(top.name).toBe(`burnCpuHot (${hotServer}:${lineOf(hotServer, 'function burnCpuHot(')})`);
      expect(top.group).toBe('own');
      expect(top.self, JSON.stringify({ top: summary.top.slice(0, 6), byPackage: summary.byPackage, samples: summary.samples }, null, 1)).toBeGreaterThan(0.5);

      // the server is undisturbed: it still answers, can be profiled again, and its SIGTERM handler still ends it cleanly
      expect((await fetch(`${server.url}/ping`)).status).toBe(200);
      const again = await nodeProfiler.start(server.pid, join(scratch, 'again.cpuprofile'), { env });
      await hammer(`${server.url}/ping`, { maxRequests: 20, maxMs: 1000 });
      expect((await again.stop()).samples).toBeGreaterThan(0);
    } finally {
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    }
  });

  it('finds the hand-off folder in /proc/<pid>/environ when the runner did not keep the env', async () => {
    const { server } = await startHot();
    try {
      const session = await nodeProfiler.start(server.pid, join(scratch, 'environ.cpuprofile'));
      expect((await session.stop()).samples).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
  });

  it('refuses to send SIGUSR2 to a process without the hook (it would kill it)', async () => {
    const server = await startProcess({ command: [process.execPath, hotServer] });
    try {
      const dir = mkdtempSync(join(scratch, 'nohook-'));
      await expect(nodeProfiler.start(server.pid, join(dir, 'x.cpuprofile'), { env: { [NODE_PROFILE_DIR_ENV]: dir } })).rejects.toThrow(/hook is not loaded/);
      // a ready file left by an earlier process that had the same pid does not count
      writeFileSync(join(dir, `${server.pid}.ready`), '1');
      await expect(nodeProfiler.start(server.pid, join(dir, 'x.cpuprofile'), { env: { [NODE_PROFILE_DIR_ENV]: dir } })).rejects.toThrow(/hook is not loaded/);
      expect((await fetch(`${server.url}/ping`)).status).toBe(200);
    } finally {
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    }
  });

  it('the hook keeps nothing alive and changes nothing when not signalled', async () => {
    const prepared = nodeProfiler.prepareCommand([process.execPath, '-e', 'console.log(JSON.stringify([process.env.BENCHSUITE_PROFILE_DIR ?? null, process.listenerCount("SIGTERM")]))'], {});
    const child = spawn(prepared.command[0]!, prepared.command.slice(1), { env: { ...process.env, ...prepared.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    // the folder variable is removed from the server's own env (children are not profiled), no SIGTERM listener added
    expect(JSON.parse(out)).toEqual([null, 0]);
    expect(existsSync(join(prepared.env[NODE_PROFILE_DIR_ENV]!, `${child.pid}.ready`))).toBe(true);
  });

  it('leaves non-Node commands alone', () => {
    expect(nodeProfiler.prepareCommand(['python3', 'app.py'], { A: '1' })).toEqual({ command: ['python3', 'app.py'], env: { A: '1' } });
  });
});
