import type { Driver } from '../driver.js';
import { driverLoaded, type Scenario } from '../scenario.js';
import { autocannonDriver } from './autocannon.js';
import { k6Driver } from './k6.js';
import { ohaDriver } from './oha.js';
import { vegetaDriver } from './vegeta.js';
import { wrkDriver } from './wrk.js';

/** Built-in drivers by name; the keys are the valid `--driver` values besides `auto`. */
export const drivers = { wrk: wrkDriver, autocannon: autocannonDriver, oha: ohaDriver, vegeta: vegetaDriver, k6: k6Driver } satisfies Record<string, Driver>;
export type DriverName = keyof typeof drivers;
/** Valid `--driver` values, for the CLI's check and help. */
export const driverNames = ['auto', ...Object.keys(drivers)] as ['auto', ...DriverName[]];

export interface DriverChoice {
  driver: Driver;
  /** Why this driver: said in the CLI header and recorded in the result. */
  reason: string;
}

/** What the suite's scenarios ask of the driver. */
export interface DriverNeeds {
  /** A scenario caps the request rate (`load.rate`). */
  capRate?: boolean;
  /** A scenario sends a fixed number of requests per window (`load.requests`, `--requests`). */
  fixedRequests?: boolean;
  /** Open-loop load (`load.openLoop`) or a capacity search (`--slo`): sends on a schedule. */
  openLoop?: boolean;
  /** A scenario sends several requests round-robin (`requests: [...]`). */
  severalRequests?: boolean;
}

/** What these scenarios ask of the driver (verify-only and other-kind ones are never loaded by it). */
export function driverNeeds(scenarios: readonly Pick<Scenario, 'load' | 'verifyOnly' | 'kind' | 'requests'>[], o: { slo?: string | undefined } = {}): DriverNeeds {
  const loaded = scenarios.filter(driverLoaded);
  return {
    capRate: loaded.some((s) => s.load.rate !== undefined),
    fixedRequests: loaded.some((s) => s.load.requests !== undefined),
    openLoop: loaded.some((s) => s.load.openLoop) || o.slo !== undefined,
    severalRequests: loaded.some((s) => (s.requests?.length ?? 1) > 1),
  };
}

/** Drivers that can send on a schedule (open loop). */
function openLoopDrivers(): string[] {
  return Object.values(drivers as Record<string, Driver>)
    .filter((d) => d.capabilities.openLoop)
    .map((d) => d.name);
}

/** What a driver cannot do of what is needed, as the end of a sentence; undefined when it can do all. */
function lacks(d: Driver, needs: DriverNeeds): string | undefined {
  if (needs.capRate && !d.capabilities.capRate) return 'cannot cap the request rate';
  if (needs.fixedRequests && !d.capabilities.fixedRequests) return 'cannot send a fixed number of requests per window (--requests)';
  if (needs.openLoop && !d.capabilities.openLoop) return `is closed-loop only (open-loop load and --slo need one of: ${openLoopDrivers().join(', ')})`;
  if (needs.severalRequests && d.capabilities.oneRequest) return 'sends one request per run (a scenario of this suite sends several round-robin)';
  return undefined;
}

const k = (n: number) => `${Math.round(n / 1000)}k`;

/** The ceiling `auto` ranks a driver by: its measured open-loop ceiling when the load is open loop, else its closed-loop one. */
const rankOf = (d: Driver, needs: DriverNeeds) => (needs.openLoop ? (d.openLoopCeilingRps ?? 0) : d.ceilingRps);

/**
 * Resolve `auto` to the available driver with the highest ceiling that can do what the suite
 * needs (a capped rate; for open loop and `--slo`, the highest measured open-loop ceiling), or
 * check a named one. The reason names what was passed over and why.
 */
export async function resolveDriver(choice: string | Driver, needs: DriverNeeds = {}): Promise<DriverChoice> {
  if (typeof choice === 'object') {
    const missing = lacks(choice, needs);
    if (missing) throw new Error(`driver ${choice.name} ${missing}, which a scenario of this suite needs`);
    return { driver: choice, reason: 'custom driver given by the configuration' };
  }
  if (choice !== 'auto') {
    const d = (drivers as Record<string, Driver>)[choice];
    if (!d) throw new Error(`unknown driver "${choice}"; expected one of: ${driverNames.join(', ')}`);
    // What it cannot do is said first: it holds on every machine, installed or not.
    const missing = lacks(d, needs);
    if (missing) throw new Error(`${choice} ${missing}, which a scenario of this suite needs${choice === 'wrk' && !needs.openLoop ? ' (autocannon can)' : ''}`);
    const ok = await d.available();
    if (ok !== true) throw new Error(`driver ${choice} is not available: ${ok}`);
    return { driver: d, reason: `chosen with --driver (one process tops out near ${k(rankOf(d, needs) || d.ceilingRps)} req/s${needs.openLoop ? ' open loop' : ''} per loader core)` };
  }
  const passed: string[] = [];
  for (const d of Object.values(drivers as Record<string, Driver>).sort((a, b) => rankOf(b, needs) - rankOf(a, needs))) {
    const missing = lacks(d, needs);
    if (missing) {
      passed.push(`${d.name} ${missing}`);
      continue;
    }
    const ok = await d.available();
    if (ok !== true) {
      passed.push(`${d.name} not available (${ok})`);
      continue;
    }
    const why = passed.length ? `${passed.join('; ')}: using ${d.name}` : `${d.name} has the highest ${needs.openLoop ? 'open-loop ' : ''}ceiling of the drivers available`;
    const ceiling = needs.openLoop
      ? `, which sends on schedule up to about ${k(rankOf(d, needs))} req/s from one loader core here: a server faster than that is measured as loader-bound`
      : d.capabilities.threads === 'one'
        ? `, whose one core tops out near ${k(d.ceilingRps)} req/s here`
        : '';
    const hint = passed.some((p) => p.startsWith('wrk not available')) ? '; `apt-get install wrk` for a higher ceiling' : '';
    return { driver: d, reason: `${why}${ceiling}${hint}` };
  }
  throw new Error(`no load generator available: ${passed.join('; ')}`);
}
