import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { guardTempDir } from '../process.js';
import { PROFILE_DEFAULTS } from './defaults.js';
import type { PreparedCommand, Profiler, ProfileSession, ProfileStartOptions } from './profiler.js';
import { cpuProfileToCollapsed, type CpuProfile } from './v8.js';
import { waitForFile } from './_wait.js';
import { processStartTime } from './_proc-start.js';

/** Folder where the hook and the runner hand files to each other (set by `prepareCommand`). */
export const NODE_PROFILE_DIR_ENV = 'BENCHSUITE_PROFILE_DIR';

/**
 * The preload hook's path. From `dist/` it sits beside this file; when this module runs from
 * `src/` (tests through vitest) the built copy in `dist/` is used, since Node cannot load `.ts`.
 */
export function nodeHookPath(): string {
  const here = fileURLToPath(new URL('./_node-hook.js', import.meta.url));
  if (existsSync(here)) return here;
  const built = fileURLToPath(new URL('../../dist/profile/_node-hook.js', import.meta.url));
  if (existsSync(built)) return built;
  throw new Error(`the Node profiling hook is not built: neither ${here} nor ${built} exists (build @benchsuite/sdk)`);
}

let handOffDir: string | undefined;
/** One hand-off folder per runner (files in it are keyed by pid), removed when the runner ends, even by SIGKILL. */
function sharedHandOffDir(): string {
  handOffDir ??= guardTempDir(mkdtempSync(join(tmpdir(), 'benchsuite-profile-')));
  return handOffDir;
}

/** Is this argv[0] a Node binary (`node`, `nodejs`, or this process's own `process.execPath`)? */
export function isNodeCommand(command: readonly string[]): boolean {
  const bin = command[0];
  if (bin === undefined) return false;
  return bin === process.execPath || basename(bin) === 'node' || basename(bin) === 'nodejs';
}

/** The environment of a running process (Linux), to find the hand-off folder when the runner did not keep it. */
function environOf(pid: number): Record<string, string> {
  try {
    const out: Record<string, string> = {};
    for (const kv of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
      const eq = kv.indexOf('=');
      if (eq > 0) out[kv.slice(0, eq)] = kv.slice(eq + 1);
    }
    return out;
  } catch {
    return {};
  }
}

/**
 * V8's sampling profiler inside a Node server, for one window. `prepareCommand` adds
 * `--import <hook>` after `node` and the runner's hand-off folder to the environment; `start` sends
 * SIGUSR2 (only once the hook has said it is loaded) and waits until V8 samples; `stop` sends it
 * again, waits for the `.cpuprofile` and moves it to `outFile`. The server runs unchanged
 * otherwise: no inspector port, no other signal touched; the sampler thread is the cost
 * (see `PROFILE_DEFAULTS.nodeIntervalUs`).
 */
export const nodeProfiler = {
  name: 'node',
  available: async (): Promise<true | string> => {
    try {
      nodeHookPath();
      return true;
    } catch (err) {
      return (err as Error).message;
    }
  },
  prepareCommand(command: readonly string[], env: Readonly<Record<string, string>>): PreparedCommand {
    if (!isNodeCommand(command)) return { command: [...command], env: { ...env } };
    const dir = env[NODE_PROFILE_DIR_ENV] ?? sharedHandOffDir();
    return {
      command: [command[0]!, '--import', pathToFileURL(nodeHookPath()).href, ...command.slice(1)],
      env: { ...env, [NODE_PROFILE_DIR_ENV]: dir },
    };
  },
  async start(pid: number, outFile: string, options: ProfileStartOptions = {}): Promise<ProfileSession> {
    const dir = options.env?.[NODE_PROFILE_DIR_ENV] ?? environOf(pid)[NODE_PROFILE_DIR_ENV];
    if (!dir) throw new Error(`process ${pid} was not started through nodeProfiler.prepareCommand (no ${NODE_PROFILE_DIR_ENV})`);
    const file = (ext: string) => join(dir, `${pid}.${ext}`);
    const ready = existsSync(file('ready')) ? readFileSync(file('ready'), 'utf8') : undefined;
    if (ready === undefined || (ready !== '' && ready !== processStartTime(pid))) {
      throw new Error(`the profiling hook is not loaded in process ${pid} (no current ${file('ready')}); SIGUSR2 is not sent, since it would end the process`);
    }
    const intervalUs = options.intervalUs ?? PROFILE_DEFAULTS.nodeIntervalUs;
    await Promise.all(['started', 'cpuprofile', 'error'].map((e) => rm(file(e), { force: true })));
    await writeFile(file('request'), JSON.stringify({ intervalUs }));
    process.kill(pid, 'SIGUSR2');
    await waitForHook(file('started'), file('error'), PROFILE_DEFAULTS.startTimeoutMs, pid);
    return {
      async stop() {
        process.kill(pid, 'SIGUSR2');
        await waitForHook(file('cpuprofile'), file('error'), PROFILE_DEFAULTS.stopTimeoutMs, pid);
        await rename(file('cpuprofile'), outFile);
        const profile = JSON.parse(await readFile(outFile, 'utf8')) as CpuProfile;
        return { ...cpuProfileToCollapsed(profile), intervalUs };
      },
    };
  },
} satisfies Profiler;

async function waitForHook(want: string, error: string, timeoutMs: number, pid: number): Promise<void> {
  const found = await waitForFile([want, error], timeoutMs, () => {
    try {
      process.kill(pid, 0);
      return undefined;
    } catch {
      return `process ${pid} exited while being profiled`;
    }
  });
  if (found === error) throw new Error(`the profiling hook in process ${pid} failed: ${(await readFile(error, 'utf8')).trim()}`);
}
