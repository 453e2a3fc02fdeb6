import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { isNodeCommand, nodeProfiler } from './node.js';
import { perfProfiler } from './perf.js';
import type { Profiler } from './profiler.js';
import { createPySpyProfiler, pySpyCommand, pySpyProfiler } from './py-spy.js';

/** Built-in profilers by name; the keys are the valid profiler names besides `auto`. */
export const profilers = { node: nodeProfiler, 'py-spy': pySpyProfiler, perf: perfProfiler } satisfies Record<string, Profiler>;
export type ProfilerName = keyof typeof profilers;

/** Is argv[0] a Python interpreter (`python`, `python3.11`, a virtualenv's `bin/python`)? */
export function isPythonCommand(command: readonly string[]): boolean {
  return command[0] !== undefined && /^python\d*(?:\.\d+)?$/.test(basename(command[0]));
}

/**
 * The profiler for a target: its own, a named one, or (`auto`) by the server's command — Node →
 * `node`; Python → `py-spy` (the one in the interpreter's virtualenv when there is one); anything
 * else → `perf`. Whether it can run here is `available()`'s answer, asked by the caller.
 *
 * @example
 * resolveProfiler('auto', ['/srv/gw/.venv/bin/python', 'run.py']).name // 'py-spy' (from /srv/gw/.venv/bin/py-spy)
 */
export function resolveProfiler(choice: 'auto' | ProfilerName | Profiler, command: readonly string[]): Profiler {
  if (typeof choice === 'object') return choice;
  if (choice !== 'auto') return profilers[choice];
  if (isNodeCommand(command)) return nodeProfiler;
  if (isPythonCommand(command)) {
    const venvPySpy = pySpyCommand(dirname(command[0]!));
    return existsSync(venvPySpy[0]!) ? createPySpyProfiler({ command: venvPySpy }) : pySpyProfiler;
  }
  return perfProfiler;
}

export { defineProfiler, targetProfileSchema, type Profiler, type ProfileSession, type ProfileStartOptions, type PreparedCommand, type TargetProfileOptions } from './profiler.js';
export { nodeProfiler, nodeHookPath, isNodeCommand, NODE_PROFILE_DIR_ENV } from './node.js';
export { createPySpyProfiler, pySpyProfiler, pySpyCommand, pySpyRecordArgs, pySpyRawToCollapsed, PY_SPY_REQUIREMENT, type PySpyProfilerOptions } from './py-spy.js';
export { createPerfProfiler, perfProfiler, perfRecordArgs, type PerfProfilerOptions } from './perf.js';
export { perfScriptToCollapsed, type PerfScriptOptions } from './perf-script.js';
export { cpuProfileToCollapsed, v8FrameName, type CpuProfile, type CpuProfileNode, type CpuProfileToCollapsedOptions } from './v8.js';
export { parseCollapsed, formatCollapsed, addStack, cleanFrame, totalWeight, splitStack, type CollapsedStacks, type CollapsedProfile } from './collapsed.js';
export { classifyFrame, frameLocation, nodePackageOf, pythonPackageOf, DEFAULT_CONTRACT_PATHS, type ClassifyOptions, type FrameClass, type FrameKind } from './classify.js';
export { summarizeProfile, type SummarizeProfileOptions } from './summarize.js';
export { profileSummarySchema, profileFunctionSchema, profileGroupSchema, profileGroupKindSchema, type ProfileSummary, type ProfileFunction, type ProfileGroup } from './schema.js';
export { PROFILE_DEFAULTS } from './defaults.js';
