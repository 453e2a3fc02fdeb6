import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseCollapsed, totalWeight, type CollapsedProfile } from './collapsed.js';
import { PROFILE_DEFAULTS } from './defaults.js';
import type { Profiler, ProfileSession, ProfileStartOptions } from './profiler.js';
import { canTraceOthers, runCommand, spawnSampler } from './_sampler.js';

/** What the FastAPI target's setup adds to its virtualenv (`pip install "py-spy>=0.4,<0.5"`). */
export const PY_SPY_REQUIREMENT = 'py-spy>=0.4,<0.5';

/** The py-spy command inside a virtualenv, given its `bin` folder (`<venv>/bin`). */
export function pySpyCommand(venvBin: string): string[] {
  return [join(venvBin, 'py-spy')];
}

/**
 * py-spy's `--format raw` output → collapsed stacks (it is already folded). Frames read
 * `function (path:line)`; with `--subprocesses` each stack starts with a `process <pid>:"…"`
 * frame, which summaries treat as synthetic.
 */
export function pySpyRawToCollapsed(text: string): CollapsedProfile {
  const stacks = parseCollapsed(text);
  return { stacks, unit: 'samples', samples: totalWeight(stacks) };
}

export interface PySpyProfilerOptions {
  /** py-spy command; default `['py-spy']` from PATH (see `pySpyCommand` for a virtualenv's). */
  command?: readonly string[];
  /** Samples per second; default `PROFILE_DEFAULTS.pySpyRate`. */
  rate?: number;
  /**
   * Sample without pausing the interpreter. Off by default: py-spy then stops the process for
   * each sample, which costs the server a little but gives consistent stacks.
   */
  nonblocking?: boolean;
}

/** The argv of one `py-spy record` (raw folded output, one frame per function, full paths, worker processes included). */
export function pySpyRecordArgs(pid: number, outFile: string, o: { rate: number; durationSec: number; nonblocking?: boolean | undefined }): string[] {
  return [
    'record',
    '--pid',
    String(pid),
    '--rate',
    String(o.rate),
    '--duration',
    String(Math.max(1, Math.ceil(o.durationSec))),
    '--format',
    'raw',
    '--function',
    '--full-filenames',
    '--subprocesses',
    ...(o.nonblocking ? ['--nonblocking'] : []),
    '--output',
    outFile,
  ];
}

/**
 * A py-spy profiler: `py-spy record` on the server's pid and its subprocesses (uvicorn workers),
 * stopped with SIGINT, after which py-spy writes its file. Needs ptrace rights (root here).
 *
 * @example
 * createPySpyProfiler({ command: pySpyCommand('/srv/app/.venv/bin') })
 */
export function createPySpyProfiler(options: PySpyProfilerOptions = {}): Profiler {
  const command = options.command ?? ['py-spy'];
  const rate = options.rate ?? PROFILE_DEFAULTS.pySpyRate;
  let availability: Promise<true | string> | undefined;
  return {
    name: 'py-spy',
    available: () =>
      (availability ??= (async () => {
        try {
          await runCommand([...command, '--version'], 10_000);
        } catch (err) {
          return `py-spy is not runnable (${(err as Error).message}); install it with pip install "${PY_SPY_REQUIREMENT}"`;
        }
        let scope: string | undefined;
        try {
          scope = readFileSync('/proc/sys/kernel/yama/ptrace_scope', 'utf8');
        } catch {
          scope = undefined;
        }
        return canTraceOthers(scope);
      })()),
    async start(pid: number, outFile: string, opts: ProfileStartOptions = {}): Promise<ProfileSession> {
      const effectiveRate = opts.intervalUs ? Math.max(1, Math.round(1e6 / opts.intervalUs)) : rate;
      const args = pySpyRecordArgs(pid, outFile, { rate: effectiveRate, durationSec: opts.maxDurationSec ?? PROFILE_DEFAULTS.maxDurationSec, nonblocking: options.nonblocking });
      const sampler = spawnSampler([...(opts.pin ?? []), ...command, ...args]);
      let exited = false;
      void sampler.exited.then(() => (exited = true));
      // py-spy prints "Sampling process …" once it is attached and sampling.
      await new Promise<void>((resolve, reject) => {
        let polls = Math.ceil(PROFILE_DEFAULTS.startTimeoutMs / 10);
        const timer = setInterval(() => {
          if (/Sampling process/.test(sampler.output())) {
            clearInterval(timer);
            resolve();
          } else if (exited || --polls <= 0) {
            clearInterval(timer);
            sampler.child.kill('SIGKILL');
            reject(new Error(`py-spy did not start on process ${pid}: ${sampler.output().trim() || (exited ? 'it exited' : 'timed out')}`));
          }
        }, 10);
      });
      const startedAt = process.hrtime.bigint();
      return {
        async stop() {
          if (!exited) sampler.child.kill('SIGINT');
          const exit = await sampler.exited;
          const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
          if (!existsSync(outFile)) throw new Error(`py-spy wrote no profile (exit ${exit.code ?? exit.signal}): ${sampler.output().trim()}`);
          return { ...pySpyRawToCollapsed(await readFile(outFile, 'utf8')), durationSec: seconds, intervalUs: 1e6 / effectiveRate };
        },
      };
    },
  };
}

/** py-spy from PATH with the default rate. */
export const pySpyProfiler = createPySpyProfiler();
