import { randomBytes } from 'node:crypto';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UsageError } from './_errors.js';

/** Where a command writes; tests pass their own. */
export interface CommandIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stdout / stderr are terminals (live progress, colour). */
  stdoutTTY: boolean;
  stderrTTY: boolean;
  env: NodeJS.ProcessEnv;
}

export const processIO: CommandIO = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  get stdoutTTY() {
    return Boolean(process.stdout.isTTY);
  },
  get stderrTTY() {
    return Boolean(process.stderr.isTTY);
  },
  env: process.env,
};

/** Colour only on a terminal, and never when `NO_COLOR` has any non-empty value (no-color.org). */
export function useColor(isTTY: boolean, env: NodeJS.ProcessEnv): boolean {
  return isTTY && !env.NO_COLOR && env.TERM !== 'dumb';
}

/**
 * The CLI's one writer: a temp file in the same directory, then a rename, so a reader (or an
 * interrupted run) never sees a half-written file. Creates the directory; a failure is a `UsageError`
 * naming the file.
 */
export async function writeFileAtomic(file: string, data: string): Promise<void> {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(tmp, data, 'utf8');
    await rename(tmp, file);
  } catch (e) {
    await unlink(tmp).catch(() => {});
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`${file}: cannot write (${code ?? (e as Error).message})`);
  }
}
