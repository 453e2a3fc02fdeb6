import { fileURLToPath } from 'node:url';
import type { TargetInput } from '../src/index.js';
import { hasCommand } from '../src/environment.js';

export const tinyServer = fileURLToPath(new URL('./fixtures/tiny-server.mjs', import.meta.url));

/** A process target running the tiny test server with the given env. */
export function tiny(name: string, env: Record<string, string> = {}, extra: Partial<TargetInput> = {}): TargetInput {
  return { kind: 'process', name, command: [process.execPath, tinyServer], env, ...extra } as TargetInput;
}

export const hasWrk = (): boolean => hasCommand('wrk');

/** Fast load profile for tests. */
export const quickLoad = { connections: 10, warmup: 0.2, duration: 0.5 };
