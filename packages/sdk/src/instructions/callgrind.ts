import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { DEFAULTS } from '../defaults.js';
import { hasCommand } from '../environment.js';

const run = promisify(execFile);

/**
 * Valgrind's callgrind as a deterministic cost meter: a server started under it with
 * instrumentation off, warmed up at native-ish speed, then counted between `callgrind_control -z`
 * and `-d` while a known number of requests is answered. The count is user-space instructions
 * only: the kernel's work (sockets, scheduling) is not in it.
 */

/** Whether valgrind and callgrind_control are here, or why not. */
export function callgrindAvailable(): true | string {
  if (process.platform !== 'linux') return 'valgrind counts instructions on Linux only';
  if (!hasCommand('valgrind')) return 'valgrind not found on PATH; `benchsuite setup valgrind` installs it';
  if (!hasCommand('callgrind_control')) return 'callgrind_control not found on PATH (it comes with valgrind)';
  return true;
}

/** The interpreter a command starts, when callgrind can count it repeatably. */
export type CountedRuntime = 'node' | 'python';

export function runtimeOfCommand(command: readonly string[]): CountedRuntime | undefined {
  const exe = basename(command[0] ?? '');
  if (command[0] === process.execPath || /^node(\d+)?$/.test(exe)) return 'node';
  if (/^python(\d+(\.\d+)?)?$/.test(exe)) return 'python';
  return undefined;
}

/**
 * The command and environment that run `command` under callgrind with instrumentation off, its
 * output files in `dir` (`callgrind.out.<pid>.<dump>`), with the runtime's determinism flags.
 */
export function callgrindCommand(
  command: readonly string[],
  env: Readonly<Record<string, string>>,
  runtime: CountedRuntime,
  dir: string,
): { command: string[]; env: Record<string, string>; flags: string[] } {
  const [exe, ...args] = command;
  const flags = runtime === 'node' ? [...DEFAULTS.instructions.nodeFlags] : [];
  const extraEnv: Record<string, string> = runtime === 'python' ? { ...DEFAULTS.instructions.pythonEnv } : {};
  return {
    command: ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${join(dir, 'callgrind.out.%p')}`, exe!, ...flags, ...args],
    env: { ...env, ...extraEnv },
    flags: [...flags, ...Object.entries(extraEnv).map(([k, v]) => `${k}=${v}`)],
  };
}

/** Send one command to the callgrind process `pid` (`-i on`, `-i off`, `-z`, `-d`). */
export async function callgrindControl(pid: number, ...args: string[]): Promise<void> {
  await run('callgrind_control', [...args, String(pid)], { timeout: 30_000 });
}

/**
 * What a callgrind dump counted: its total (the `totals:` line; the `summary:` line can be garbage
 * after a zeroing) and the part inside V8's collections, the inclusive cost of every call to
 * `Heap::CollectGarbage` from outside it (callgrind's format gives a call's inclusive cost on the
 * line after its `calls=`; 0 for a runtime without that function). Pure, so it is tested on text.
 */
export function dumpCost(text: string): { total: number; collections: number } {
  const m = /^totals:\s+(\d+)/m.exec(text);
  if (!m) throw new Error('callgrind dump has no totals line');
  const names = new Map<string, string>();
  const named = (line: string): string => {
    const r = /^c?fn=\((\d+)\)(?: (.*))?$/.exec(line);
    if (!r) return '';
    if (r[2] !== undefined) names.set(r[1]!, r[2]);
    return names.get(r[1]!) ?? '';
  };
  const isCollection = (name: string) => /Heap::CollectGarbage\(/.test(name);
  let fn = '';
  let callee = '';
  let inclusiveNext = false;
  let collections = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('fn=')) fn = named(line);
    else if (line.startsWith('cfn=')) callee = named(line);
    else if (line.startsWith('calls=')) inclusiveNext = true;
    else if (inclusiveNext) {
      inclusiveNext = false;
      if (isCollection(callee) && !isCollection(fn)) collections += Number(line.trim().split(/\s+/)[1] ?? 0);
    }
  }
  return { total: Number(m[1]), collections };
}

/** What the newest dump of `pid` in `dir` counted (`dumpCost`). */
export function newestDumpCost(dir: string, pid: number): { total: number; collections: number } {
  const stem = `callgrind.out.${pid}.`;
  const dumps = readdirSync(dir)
    .filter((f) => f.startsWith(stem))
    .map((f) => ({ f, n: Number(f.slice(stem.length)) }))
    .filter((d) => Number.isInteger(d.n))
    .sort((a, b) => b.n - a.n);
  if (!dumps.length) throw new Error(`callgrind wrote no dump for pid ${pid} in ${dir}`);
  try {
    return dumpCost(readFileSync(join(dir, dumps[0]!.f), 'utf8'));
  } catch (err) {
    throw new Error(`callgrind dump ${dumps[0]!.f}: ${(err as Error).message}`);
  }
}
