import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh empty folder under the system's temporary folder, named `<prefix>-XXXXXX`. */
export function scratch(prefix = 'benchsuite-test'): string {
  return mkdtempSync(join(tmpdir(), `${prefix}-`));
}
