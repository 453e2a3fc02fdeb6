import type { Driver } from '../driver.js';
import { autocannonDriver } from './autocannon.js';
import { wrkDriver } from './wrk.js';

/** Built-in drivers by name; the keys are the valid `--driver` values besides `auto`. */
export const drivers = { wrk: wrkDriver, autocannon: autocannonDriver } satisfies Record<string, Driver>;
export type DriverName = keyof typeof drivers;
/** Valid `--driver` values, for the CLI's check and help. */
export const driverNames = ['auto', ...Object.keys(drivers)] as ['auto', ...DriverName[]];

export interface DriverChoice {
  driver: Driver;
  /** Why this driver: said in the CLI header and recorded in the result. */
  reason: string;
}

const k = (n: number) => `${Math.round(n / 1000)}k`;

/**
 * Resolve `auto` to the available driver with the highest ceiling that can do what the suite
 * needs (a capped rate), or check a named one. The reason names what was passed over and why.
 */
export async function resolveDriver(choice: string | Driver, needs: { capRate?: boolean } = {}): Promise<DriverChoice> {
  if (typeof choice === 'object') return { driver: choice, reason: 'custom driver given by the configuration' };
  if (choice !== 'auto') {
    const d = (drivers as Record<string, Driver>)[choice];
    if (!d) throw new Error(`unknown driver "${choice}"; expected one of: ${driverNames.join(', ')}`);
    const ok = await d.available();
    if (ok !== true) throw new Error(`driver ${choice} is not available: ${ok}`);
    if (needs.capRate && !d.capabilities.capRate) throw new Error(`driver ${choice} cannot cap the request rate, which a scenario of this suite needs`);
    return { driver: d, reason: `chosen with --driver (one process tops out near ${k(d.ceilingRps)} req/s per loader core)` };
  }
  const passed: string[] = [];
  for (const d of Object.values(drivers as Record<string, Driver>).sort((a, b) => b.ceilingRps - a.ceilingRps)) {
    if (needs.capRate && !d.capabilities.capRate) {
      passed.push(`${d.name} cannot cap the request rate`);
      continue;
    }
    const ok = await d.available();
    if (ok !== true) {
      passed.push(`${d.name} not available (${ok})`);
      continue;
    }
    const why = passed.length ? `${passed.join('; ')}: using ${d.name}` : `${d.name} has the highest ceiling of the drivers available`;
    const ceiling = d.capabilities.threads === 'one' ? `, whose one core tops out near ${k(d.ceilingRps)} req/s here` : '';
    const hint = passed.some((p) => p.startsWith('wrk not available')) ? '; `apt-get install wrk` for a higher ceiling' : '';
    return { driver: d, reason: `${why}${ceiling}${hint}` };
  }
  throw new Error(`no load generator available: ${passed.join('; ')}`);
}
