import type { Driver } from '../driver.js';
import { autocannonDriver } from './autocannon.js';
import { wrkDriver } from './wrk.js';

/** Built-in drivers by name; the keys are the valid `--driver` values besides `auto`. */
export const drivers = { autocannon: autocannonDriver, wrk: wrkDriver } satisfies Record<string, Driver>;
export type DriverName = keyof typeof drivers;

/** Resolve `auto` to the available driver with the highest ceiling, or a named one (with why it cannot run). */
export async function resolveDriver(choice: 'auto' | DriverName | Driver, needsRate = false): Promise<Driver> {
  if (typeof choice === 'object') return choice;
  if (choice !== 'auto') {
    const d = drivers[choice];
    const ok = await d.available();
    if (ok !== true) throw new Error(`driver ${choice} is not available: ${ok}`);
    return d;
  }
  const candidates = Object.values(drivers).sort((a, b) => b.ceilingRps - a.ceilingRps);
  for (const d of candidates) {
    if (needsRate && d.name === 'wrk') continue;
    if ((await d.available()) === true) return d;
  }
  return autocannonDriver;
}
