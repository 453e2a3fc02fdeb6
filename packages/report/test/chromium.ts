import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first of `names` that is an executable file on PATH, or null. */
function onPath(names: readonly string[]): string | null {
  for (const name of names) {
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
      if (!dir) continue;
      try {
        accessSync(join(dir, name), constants.X_OK);
        return join(dir, name);
      } catch {
        // not in this folder
      }
    }
  }
  return null;
}

/** The browser the HTML report is opened in: Debian names it `chromium`, Ubuntu and others `chromium-browser`. */
export const chromiumPath = onPath(['chromium', 'chromium-browser']);

/** Why the real-browser tests are skipped, or null when chromium is there. */
export const chromiumMissing = chromiumPath ? null : 'chromium not found on PATH (chromium or chromium-browser); scripts/test-prereqs.sh installs it when run as root with apt-get';
