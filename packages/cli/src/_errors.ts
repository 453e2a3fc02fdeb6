import { BenchsuiteConfigError, DEFAULTS } from '@benchsuite/sdk';

/** Exit codes of every command; `compare` uses `failed` for a regression. */
export const EXIT = { ok: 0, failed: 1, usage: 2, threshold: DEFAULTS.thresholdExitCode, interrupted: 130 } as const;

/**
 * A user's mistake (flag, config, file): printed without a stack trace, exit code 2. It carries
 * every problem found, so a user fixes them in one pass instead of one run per mistake.
 */
export class UsageError extends Error {
  override name = 'UsageError';
  readonly issues: string[];
  /** `title` heads a list of several issues, e.g. `benchsuite.config.ts has 2 problems`. */
  constructor(
    issues: string | string[],
    readonly title?: string,
  ) {
    const list = typeof issues === 'string' ? [issues] : issues;
    super(list.join('\n'));
    this.issues = list;
  }
}

/** Colour codes a message may carry (from a library): a log file or pipe must not get them. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/**
 * The one error path of the CLI: a usage or config error prints its issues (one per line, each
 * naming its flag or field) and gives exit 2; anything else is a bug, printed with its stack, exit 1.
 */
export function errorExit(err: unknown, io: { stderr: (text: string) => void }): number {
  if (err instanceof UsageError || err instanceof BenchsuiteConfigError) {
    const issues = ((err as { issues?: string[] }).issues ?? [err.message]).map((i) => i.replace(ANSI, ''));
    const title = err instanceof UsageError ? err.title : undefined;
    if (issues.length === 1 && !title) io.stderr(`benchsuite: ${issues[0]}\n`);
    else {
      const head = title ?? `${issues.length} problems`;
      io.stderr(`benchsuite: ${head}:\n${issues.map((i) => `  ${i.replace(/\n/g, '\n    ')}`).join('\n')}\n`);
    }
    return EXIT.usage;
  }
  io.stderr(`benchsuite: internal error (please report it): ${(err as Error)?.stack ?? String(err)}\n`);
  return EXIT.failed;
}
