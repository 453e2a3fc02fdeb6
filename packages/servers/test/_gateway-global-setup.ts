import { ensureFastapiVenv } from '../src/gateway/fastapi-venv.js';

/**
 * vitest globalSetup: make sure external/fastapi/.venv exists and matches requirements.txt
 * before the gateway tests spawn the FastAPI gateway (first run ~15-20 s, then instant).
 * A missing python3 does not abort the whole servers suite: the gateway tests then fail
 * loudly on their own with the reason printed here.
 */
export default async function setup(): Promise<void> {
  const log = (line: string): void => {
    process.stderr.write(`[gateway setup] ${line}\n`);
  };
  try {
    const r = await ensureFastapiVenv({ log });
    log(`fastapi venv ${r.created ? 'created' : 'up to date'} (${r.durationMs} ms): ${r.python}`);
  } catch (err) {
    log(`fastapi venv unavailable: ${(err as Error).message}`);
  }
}
