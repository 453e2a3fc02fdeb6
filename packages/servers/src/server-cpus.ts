import { availableParallelism } from 'node:os';
import { decidePinning } from '@benchsuite/sdk';

/** Environment variable naming the cores the runner pins servers to: a comma list, ranges allowed (`0`, `0,1`, `0-3`). */
export const SERVER_CPUS_ENV = 'BENCHSUITE_SERVER_CPUS';

/**
 * The cores a server target will run on. Targets need this when they are defined, not when
 * they start: a multi-worker target's name and worker count follow it. In order:
 * `BENCHSUITE_SERVER_CPUS` when set (the runner knows its pinning, including `--no-pin` or a
 * custom split); else the server cores of the SDK's default pinning (the first half of the usable
 * cores); else, when the SDK would not pin, every usable core (the server then shares them all).
 *
 * @example
 * serverCpus({ BENCHSUITE_SERVER_CPUS: '0,1' }) // [0, 1]
 */
export function serverCpus(env: NodeJS.ProcessEnv = process.env): number[] {
  const declared = env[SERVER_CPUS_ENV]?.trim();
  if (declared) return parseCpuList(declared);
  const pinning = decidePinning('auto');
  if (pinning.enabled && pinning.serverCpus.length > 0) return pinning.serverCpus;
  return Array.from({ length: availableParallelism() }, (_, i) => i);
}

/** `0,2-3` → [0, 2, 3]; throws on anything else, naming the variable. */
export function parseCpuList(list: string): number[] {
  const cpus: number[] = [];
  for (const part of list.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    const from = Number(m?.[1]);
    const to = m?.[2] === undefined ? from : Number(m[2]);
    if (!m || to < from) throw new Error(`${SERVER_CPUS_ENV} must be a list of core numbers such as "0,1" or "0-3", got "${list}"`);
    for (let c = from; c <= to; c++) if (!cpus.includes(c)) cpus.push(c);
  }
  return cpus;
}
