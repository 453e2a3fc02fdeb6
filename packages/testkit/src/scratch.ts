import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The environment variable naming the test run's own folder (set by the root vitest config's global setup). */
export const SCRATCH_ROOT_ENV = 'BENCHSUITE_TEST_SCRATCH';

/**
 * A fresh empty folder named `<prefix>-XXXXXX`: inside the test run's folder, which is removed when
 * the run ends, or under the system's temporary folder when a file runs without the root config.
 */
export function scratch(prefix = 'benchsuite-test'): string {
  return mkdtempSync(join(process.env[SCRATCH_ROOT_ENV] || tmpdir(), `${prefix}-`));
}
