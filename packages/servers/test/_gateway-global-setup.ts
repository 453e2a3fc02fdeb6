import type { TestProject } from 'vitest/node';
import { copyFastapi, copyPythonWeb } from '../scripts/copy-fastapi.mjs';
import { ensureFastapiVenv } from '../src/gateway/fastapi-venv.js';
import { ensurePythonWebVenv } from '../src/python-suite.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Why the FastAPI gateway cannot run here (no python3, no venv module, pip failed), or null. */
    fastapiUnavailable: string | null;
    /** Why the contract C Python servers cannot run here (their venv could not be made), or null. */
    pythonWebUnavailable: string | null;
  }
}

/**
 * vitest globalSetup: refresh the package's copies of external/fastapi and external/python-web
 * (dist/fastapi, dist/python-web, which the tests run, as an installed package would) and make
 * sure each one's venv exists and matches its requirements.txt (first run ~15-20 s each, then
 * instant). When a venv cannot be made, the reason goes to the test files
 * (`inject('fastapiUnavailable')`, `inject('pythonWebUnavailable')`), whose Python tests are then
 * skipped naming it; nothing else in the servers suite depends on Python.
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
  // The contract C Python servers (external/python-web): the same, with their own requirements.
  copyPythonWeb({ log });
  try {
    const r = await ensurePythonWebVenv({ log });
    log(`python-web venv ${r.created ? 'created' : 'up to date'} (${r.durationMs} ms): ${r.python}`);
    project.provide('pythonWebUnavailable', null);
  } catch (err) {
    const reason = `Python web suite venv unavailable: ${(err as Error).message.split('\n')[0]!.slice(0, 300)}`;
    log(reason);
    project.provide('pythonWebUnavailable', reason);
  }
}
