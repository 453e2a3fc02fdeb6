import type { TestProject } from 'vitest/node';
import { copyFastapi } from '../scripts/copy-fastapi.mjs';
import { ensureFastapiVenv } from '../src/gateway/fastapi-venv.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Why the FastAPI gateway cannot run here (no python3, no venv module, pip failed), or null. */
    fastapiUnavailable: string | null;
  }
}

/**
 * vitest globalSetup: refresh the package's copy of external/fastapi (dist/fastapi, which the
 * tests run, as an installed package would) and make sure its venv exists and matches
 * requirements.txt (first run ~15-20 s, then instant). When the venv cannot be made, the reason
 * goes to the test files (`inject('fastapiUnavailable')`), whose FastAPI tests are then skipped
 * naming it; nothing else in the servers suite depends on Python.
 */
export default async function setup(project: TestProject): Promise<void> {
  const log = (line: string): void => {
    process.stderr.write(`[gateway setup] ${line}\n`);
  };
  copyFastapi({ log });
  try {
    const r = await ensureFastapiVenv({ log });
    log(`fastapi venv ${r.created ? 'created' : 'up to date'} (${r.durationMs} ms): ${r.python}`);
    project.provide('fastapiUnavailable', null);
  } catch (err) {
    // pip's output can be long: the first line carries the cause.
    const reason = `FastAPI venv unavailable: ${(err as Error).message.split('\n')[0]!.slice(0, 300)}`;
    log(reason);
    project.provide('fastapiUnavailable', reason);
  }
}
