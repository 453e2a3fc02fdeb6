import { execFile, spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { guardProcessGroup } from '../process.js';

/** An external sampler process (py-spy, perf): its exit, and the tail of what it printed. */
export interface SamplerProcess {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

/**
 * Start a sampler in its own process group, registered with the runner's reaper, so it dies
 * with the runner even if the runner is killed (a stray py-spy would keep pausing a server).
 */
export function spawnSampler(argv: readonly string[], extraStdio: StdioOptions = []): SamplerProcess {
  const child = spawn(argv[0]!, argv.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe', ...(extraStdio as unknown[])] as StdioOptions,
    detached: true,
  });
  guardProcessGroup(child);
  let out = '';
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString('utf8')).slice(-8192);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('error', (err) => {
      keep(Buffer.from(`\n${err.message}`));
      resolve({ code: -1, signal: null });
    });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return { child, exited, output: () => out };
}

/** Run a short command; resolves with stdout, rejects with the command's own message. */
export function runCommand(argv: readonly string[], timeoutMs = 30_000, maxBuffer = 64 * 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: timeoutMs, maxBuffer }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${argv.join(' ')}: ${(stderr || err.message).trim().split('\n').slice(-3).join(' ')}`));
      else resolve(stdout);
    });
  });
}

/** Is this process root, or otherwise able to trace processes it did not start? */
export function canTraceOthers(ptraceScope: string | undefined): true | string {
  if (process.getuid?.() === 0) return true;
  if (ptraceScope === undefined || ptraceScope.trim() === '0') return true;
  return `attaching to another process needs root or kernel.yama.ptrace_scope=0 (it is ${ptraceScope.trim()})`;
}
