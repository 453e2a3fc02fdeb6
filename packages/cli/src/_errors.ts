import { BenchsuiteConfigError } from '@benchsuite/sdk';

/** A user's mistake: printed as one clear message, exit code 2, never a stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

/** Print an error the way a user should see it and return the exit code. */
export function reportError(err: unknown): number {
  if (err instanceof UsageError || err instanceof BenchsuiteConfigError || (err as { name?: string })?.name === 'CLIError') {
    process.stderr.write(`benchsuite: ${(err as Error).message.replace(/\u001b\[[0-9;]*m/g, '')}\n`);
    return EXIT.usage;
  }
  process.stderr.write(`benchsuite: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
  return EXIT.failed;
}
