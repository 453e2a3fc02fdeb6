import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Resolve with the first of `files` that exists. Polled (every 10 ms) rather than watched:
 * fs.watch misses renames on some file systems, and these waits are short and off the measured
 * window. `abort` is asked on every poll and ends the wait with its message (e.g. the process died).
 */
export async function waitForFile(files: readonly string[], timeoutMs: number, abort: () => string | undefined = () => undefined): Promise<string> {
  const polls = Math.ceil(timeoutMs / 10);
  for (let i = 0; i <= polls; i++) {
    for (const f of files) if (existsSync(f)) return f;
    const why = abort();
    if (why) throw new Error(why);
    await sleep(10);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${files.join(' or ')}`);
}
