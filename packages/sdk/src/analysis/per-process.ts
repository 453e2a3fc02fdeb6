import { DEFAULTS } from '../defaults.js';
import type { Estimate, PerProcess } from '../result-schema.js';
import { median, type Grouped } from './bootstrap.js';

/** What one window says about the server's processes and CPU. */
export interface ProcessSample {
  rps: number;
  requests: number;
  durationSec: number;
  serverCpuSeconds: number;
  /** Processes seen in the tree (supervisors and helpers included). */
  serverProcesses: number;
  /** Processes that did the work (see `workerCount`); absent in older records. */
  serverWorkers?: number | undefined;
}

/**
 * Workers of a tree from each process's CPU seconds in the window: those that used at least
 * `share` of the tree's total. A uvicorn supervisor and its resource tracker idle; its workers do not.
 */
export function workerCount(cpuByProcess: readonly number[], share: number = DEFAULTS.workerCpuShare): number {
  const total = cpuByProcess.reduce((a, b) => a + b, 0);
  if (!(total > 0)) return 0;
  return cpuByProcess.filter((c) => c >= share * total).length;
}

/** One window's per-process and per-core figures; null without a sampled server tree or server CPU. */
export function processFigures(s: ProcessSample): { processes: number; coresUsed: number; rpsPerProcess: number; rpsPerCore: number } | null {
  const processes = s.serverWorkers || s.serverProcesses;
  if (!(processes > 0) || !(s.serverCpuSeconds > 0) || !(s.durationSec > 0)) return null;
  return {
    processes,
    coresUsed: s.serverCpuSeconds / s.durationSec,
    rpsPerProcess: s.rps / processes,
    // req/s ÷ (CPU s ÷ window s) = responses per server CPU-second.
    rpsPerCore: s.requests / s.serverCpuSeconds,
  };
}

/**
 * Per-process and per-core figures of a pair from its windows grouped by block, each a median with
 * the same two-level bootstrap as every absolute figure; undefined when no window has them.
 */
export function perProcessOf(groups: readonly (readonly ProcessSample[])[], est: (g: Grouped, name: string) => Estimate): PerProcess | undefined {
  const figs = groups.map((g) => g.map(processFigures).filter((f) => f !== null));
  if (!figs.some((g) => g.length)) return undefined;
  const of = (f: (x: NonNullable<ReturnType<typeof processFigures>>) => number) => figs.map((g) => g.map(f));
  return {
    processes: median(figs.flat().map((f) => f.processes)),
    treeProcesses: Math.max(0, ...groups.flat().map((s) => s.serverProcesses)),
    coresUsed: est(
      of((f) => f.coresUsed),
      'cores-used',
    ),
    rpsPerProcess: est(
      of((f) => f.rpsPerProcess),
      'rps-per-process',
    ),
    rpsPerCore: est(
      of((f) => f.rpsPerCore),
      'rps-per-core',
    ),
  };
}
