import type { z } from 'zod';

/** A user's definition or option is invalid; `message` names the field. Exit code 2 in the CLI. */
export class BenchsuiteConfigError extends Error {
  override name = 'BenchsuiteConfigError';
  constructor(
    message: string,
    readonly issues: string[] = [message],
  ) {
    super(message);
  }
}

/**
 * The run's driver cannot be used (not installed, or lacks what a scenario needs): a
 * `BenchsuiteConfigError` found after the options were valid, when the driver is resolved.
 */
export class DriverUnusableError extends BenchsuiteConfigError {
  override name = 'DriverUnusableError';
}

/** Render a zod path like `scenarios[2].load.connections`. */
function formatPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(root)';
}

/** Parse with zod; on failure throw one error listing every bad field by its full path. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, prefix: string): z.output<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => `${formatPath(prefix, i.path)}: ${i.message}`);
  throw new BenchsuiteConfigError(issues.join('\n'), issues);
}
