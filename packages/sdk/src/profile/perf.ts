import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { processTree } from '../procfs.js';
import { PROFILE_DEFAULTS } from './defaults.js';
import { perfScriptToCollapsed } from './perf-script.js';
import type { Profiler, ProfileSession, ProfileStartOptions } from './profiler.js';
import { runCommand, spawnSampler } from './_sampler.js';

export interface PerfProfilerOptions {
  /** perf command; default `['perf']`. */
  command?: readonly string[];
  /** Sampling frequency, Hz; default `PROFILE_DEFAULTS.perfFrequency`. */
  frequency?: number;
}

/**
 * The argv of one `perf record`: cpu-clock (hardware counters are often missing on VMs), call
 * graphs by frame pointer, the given pids, bounded by a `sleep` workload. It starts with events
 * disabled (`-D -1`) and is enabled through a control descriptor, whose ack says sampling has
 * begun: perf itself takes a second or more to start, which must not eat into the window.
 */
export function perfRecordArgs(pids: readonly number[], outFile: string, o: { frequency: number; durationSec: number; controlFd?: [number, number] }): string[] {
  return [
    'record',
    '-q',
    '-e',
    'cpu-clock',
    '-F',
    String(o.frequency),
    '-g',
    ...(o.controlFd ? ['-D', '-1', `--control=fd:${o.controlFd[0]},${o.controlFd[1]}`] : []),
    '-p',
    pids.join(','),
    '-o',
    outFile,
    '--',
    'sleep',
    String(Math.max(1, Math.ceil(o.durationSec))),
  ];
}

/**
 * `perf record` on the server's process tree (every pid in it when sampling starts), then
 * `perf script` parsed into collapsed stacks. For processes without a profiler of their own
 * (Swift, Go, C…); JIT runtimes show up as unresolved frames. Needs perf and, unless root,
 * `kernel.perf_event_paranoid` ≤ 2.
 */
export function createPerfProfiler(options: PerfProfilerOptions = {}): Profiler {
  const command = options.command ?? ['perf'];
  const frequency = options.frequency ?? PROFILE_DEFAULTS.perfFrequency;
  let availability: Promise<true | string> | undefined;
  return {
    name: 'perf',
    available: () =>
      (availability ??= (async () => {
        try {
          await runCommand([...command, '--version'], 10_000);
        } catch (err) {
          return `perf is not installed or not runnable (${(err as Error).message})`;
        }
        // Permissions (perf_event_paranoid, containers without perf_event_open) are easiest to
        // learn by trying: a real, tiny recording.
        const dir = mkdtempSync(join(tmpdir(), 'benchsuite-perf-probe-'));
        try {
          await runCommand([...command, 'record', '-q', '-e', 'cpu-clock', '-F', '99', '-o', join(dir, 'probe.data'), '--', 'true'], 30_000);
          return true;
        } catch (err) {
          let paranoid = '?';
          try {
            paranoid = readFileSync('/proc/sys/kernel/perf_event_paranoid', 'utf8').trim();
          } catch {
            // not Linux, or hidden
          }
          return `perf cannot record here (perf_event_paranoid=${paranoid}; root or a value ≤ 2 is needed): ${(err as Error).message}`;
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      })()),
    async start(pid: number, outFile: string, opts: ProfileStartOptions = {}): Promise<ProfileSession> {
      const pids = processTree(pid)
        .map((s) => s.pid)
        .sort((a, b) => a - b);
      if (pids.length === 0) throw new Error(`process ${pid} is not running`);
      const freq = opts.intervalUs ? Math.max(1, Math.round(1e6 / opts.intervalUs)) : frequency;
      const args = perfRecordArgs(pids, outFile, { frequency: freq, durationSec: opts.maxDurationSec ?? PROFILE_DEFAULTS.maxDurationSec, controlFd: [3, 4] });
      const sampler = spawnSampler([...(opts.pin ?? []), ...command, ...args], ['pipe', 'pipe']);
      const ctl = sampler.child.stdio[3] as Writable;
      const ack = sampler.child.stdio[4] as Readable;
      ctl.on('error', () => undefined);
      await new Promise<void>((resolve, reject) => {
        let settled = false;
        const timer = setTimeout(() => fail('timed out'), PROFILE_DEFAULTS.startTimeoutMs);
        const fail = (why: string) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          sampler.child.kill('SIGKILL');
          reject(new Error(`perf did not start on ${pids.join(',')}: ${sampler.output().trim() || why}`));
        };
        ack.once('data', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve();
        });
        void sampler.exited.then(() => fail('it exited'));
        ctl.write('enable\n');
      });
      const startedAt = process.hrtime.bigint();
      return {
        async stop() {
          // SIGINT to the group: perf writes its file and the `sleep` bound goes too.
          try {
            process.kill(-sampler.child.pid!, 'SIGINT');
          } catch {
            // already ended (the bound ran out)
          }
          const exit = await sampler.exited;
          const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
          let text: string;
          try {
            text = await runCommand([...(opts.pin ?? []), ...command, 'script', '-i', outFile], PROFILE_DEFAULTS.stopTimeoutMs, 1024 * 1024 * 1024);
          } catch (err) {
            throw new Error(`perf script failed after perf record ended (${exit.code ?? exit.signal}; ${sampler.output().trim()}): ${(err as Error).message}`);
          }
          return { ...perfScriptToCollapsed(text), durationSec: seconds, intervalUs: 1e6 / freq };
        },
      };
    },
  };
}

/** perf from PATH at the default frequency. */
export const perfProfiler = createPerfProfiler();
