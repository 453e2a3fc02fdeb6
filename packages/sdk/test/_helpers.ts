import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TargetInput } from '../src/index.js';

export const tinyServer = fileURLToPath(new URL('./fixtures/tiny-server.mjs', import.meta.url));

/** A process target running the tiny test server with the given env. */
export function tiny(name: string, env: Record<string, string> = {}, extra: Partial<TargetInput> = {}): TargetInput {
  return { kind: 'process', name, command: [process.execPath, tinyServer], env, ...extra } as TargetInput;
}

export function hasWrk(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v wrk'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pids whose command line contains `marker`. */
export function pidsWith(marker: string): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(marker)) out.push(Number(e));
    } catch {
      /* gone */
    }
  }
  return out;
}

export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z /.test(stat); // zombies are dead
  } catch {
    return false;
  }
}

export async function waitFor(cond: () => boolean, timeoutMs: number, everyMs = 50): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return cond();
}

/** Fast load profile for tests. */
export const quickLoad = { connections: 10, warmup: 0.2, duration: 0.5 };
