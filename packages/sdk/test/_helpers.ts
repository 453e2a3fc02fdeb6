import { fileURLToPath } from 'node:url';
import type { DesignOptions, TargetInput } from '../src/index.js';
import { hasCommand } from '../src/environment.js';

export const tinyServer = fileURLToPath(new URL('./fixtures/tiny-server.mjs', import.meta.url));

/** A process target running the tiny test server with the given env. */
export function tiny(name: string, env: Record<string, string> = {}, extra: Partial<TargetInput> = {}): TargetInput {
  return { kind: 'process', name, command: [process.execPath, tinyServer], env, ...extra } as TargetInput;
}

export const hasWrk = (): boolean => hasCommand('wrk');

/** A tiny measuring design for tests: one block, two rounds of 0.25-s windows, a short warm-up. */
export const tinyDesign = { windowSec: 0.25, rounds: { min: 2, max: 2 }, blocks: { min: 1, max: 1 }, warmup: { minSec: 0.2, maxSec: 0.4 } } satisfies DesignOptions;
