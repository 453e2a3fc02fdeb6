// What the bench scripts that read finished runs share: their arguments (results.json paths) and
// reading one (of any version benchsuite reads, as the current one), with a clear error and exit 2
// for a path that cannot be read.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { upgradeResult } from '@benchsuite/sdk';

/** The results.json paths given to `npm run <script> -- …`; usage and exit 2 when there are none. */
export function resultFiles(script) {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    process.stderr.write(`usage: npm run ${script} -- <results.json> [<results.json> ...]\n`);
    process.exit(2);
  }
  return files;
}

/** One results.json, parsed and upgraded to the current version; a path that cannot be read, parsed or upgraded is named, and the script exits 2. */
export function readResult(script, file) {
  try {
    return upgradeResult(JSON.parse(readFileSync(resolve(file), 'utf8')));
  } catch (e) {
    process.stderr.write(`${script}: ${file}: cannot read (${e.message})\n`);
    process.exit(2);
  }
}

/**
 * A result's windows as the run saw them while it ran: round 1 of the pairs its design-bias check
 * found unsteady is marked left out (`excluded: 'unsteady'`) only when the run is assembled, so the
 * checks and forecasts the run made before that read those windows.
 */
export const windowsAsRun = (windows) => windows.map((w) => (w.status === 'ok' && w.excluded === 'unsteady' ? { ...w, excluded: null } : w));
