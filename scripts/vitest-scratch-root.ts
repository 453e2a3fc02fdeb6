import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCRATCH_ROOT_ENV } from '../packages/testkit/src/scratch.js';

/**
 * One folder per test run under the system's temporary folder; every test's scratch folder is made
 * inside it (`@benchsuite/testkit`'s `scratch`), and it is removed when the run ends. Without it
 * each `npm test` left some 30 folders behind in /tmp (468 after a few days of CI runs here).
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'benchsuite-tests-'));
  // Set before the test workers start, so each of them (and what they spawn) inherits it.
  process.env[SCRATCH_ROOT_ENV] = root;
  return () => rmSync(root, { recursive: true, force: true });
}
