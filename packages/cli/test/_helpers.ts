import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CommandIO } from '../src/_io.js';
import { main } from '../src/main.js';
import { scratch as scratchDir } from '@benchsuite/testkit';

export const BIN = fileURLToPath(new URL('../bin/benchsuite.js', import.meta.url));
export const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
export const scratch = () => scratchDir('benchsuite-cli');

export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI in this process (from src): stdout and stderr captured, TTYs and environment as given. */
export async function inProcess(argv: string[], opts: { stdoutTTY?: boolean; stderrTTY?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  const io: CommandIO = {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    stdoutTTY: opts.stdoutTTY ?? false,
    stderrTTY: opts.stderrTTY ?? false,
    env: opts.env ?? {},
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/** The built binary (`node bin/benchsuite.js`), as a user runs it, with stdout and stderr piped. */
export function binary(args: string[], env: Record<string, string> = {}, timeout = 120_000): Outcome {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A stack trace line: user mistakes must never print one. */
export const STACK = /\n\s+at /;
export const ANSI = /\u001b\[/;
