import { DEFAULTS } from '../defaults.js';
import type { Driver } from '../driver.js';
import { connectionSteps, driverLoaded, scenarioRequests, type Scenario } from '../scenario.js';
import { autocannonDriver } from './autocannon.js';
import { h2loadCannotSend, h2loadDriver } from './h2load.js';
import { k6Driver } from './k6.js';
import { ohaDriver } from './oha.js';
import { vegetaDriver } from './vegeta.js';
import { wrkDriver } from './wrk.js';

/** Built-in drivers by name; the keys are the valid `--driver` values besides `auto`. */
export const drivers = { wrk: wrkDriver, h2load: h2loadDriver, autocannon: autocannonDriver, oha: ohaDriver, vegeta: vegetaDriver, k6: k6Driver } satisfies Record<string, Driver>;
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
  /** A scenario's requests differ in method, headers or body (a driver with `uniformRequests` cannot send them). */
  mixedRequests?: boolean;
  /** A scenario loads at `DEFAULTS.lowConnections` connections or fewer, where the loader's own time per request is in every round trip. */
  lowConnections?: boolean;
  /** A scenario sends several requests round-robin (`requests: [...]`). */
  severalRequests?: boolean;
}

/** What these scenarios ask of the driver (verify-only and other-kind ones are never loaded by it). */
export function driverNeeds(scenarios: readonly Pick<Scenario, 'load' | 'verifyOnly' | 'kind' | 'request' | 'requests'>[], o: { slo?: string | undefined } = {}): DriverNeeds {
  const loaded = scenarios.filter(driverLoaded);
  return {
    capRate: loaded.some((s) => s.load.rate !== undefined),
    fixedRequests: loaded.some((s) => s.load.requests !== undefined),
    openLoop: loaded.some((s) => s.load.openLoop) || o.slo !== undefined,
    mixedRequests: loaded.some((s) => h2loadCannotSend(scenarioRequests(s)) !== undefined),
    lowConnections: loaded.some((s) => connectionSteps(s.load).some((c) => c <= DEFAULTS.lowConnections)),
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
  if (needs.mixedRequests && d.capabilities.uniformRequests) return 'sends one method, header set and body per run, and a scenario of this suite sends requests that differ in them';
  if (needs.severalRequests && d.capabilities.oneRequest) return 'sends one request per run (a scenario of this suite sends several round-robin)';
  return undefined;
}

/** The built-in drivers that can do all of what is needed, for the hint after a refusal. */
const ableDrivers = (needs: DriverNeeds) =>
  Object.values(drivers as Record<string, Driver>)
    .filter((d) => !lacks(d, needs))
    .map((d) => d.name);

/**
 * The order `auto` tries the drivers in: with `lowFirst` (fixed request counts, or a low connection
 * count) the drivers whose own time per request is the lowest (`capabilities.lowOverhead`) first;
 * then by ceiling.
 */
function autoOrder(lowFirst: boolean, needs: DriverNeeds): Driver[] {
  const rank = (d: Driver) => (lowFirst && d.capabilities.lowOverhead ? 0 : 1);
  return Object.values(drivers as Record<string, Driver>).sort((a, b) => rank(a) - rank(b) || rankOf(b, needs) - rankOf(a, needs));
}

/** The ceiling `auto` ranks a driver by: its measured open-loop ceiling when the load is open loop, else its closed-loop one. */
const rankOf = (d: Driver, needs: DriverNeeds) => (needs.openLoop ? (d.openLoopCeilingRps ?? 0) : d.ceilingRps);

const k = (n: number) => `${Math.round(n / 1000)}k`;

/**
 * Resolve `auto` to the available driver that can do what the suite needs (a capped rate, a fixed
 * count, open loop): for fixed counts or a load at `DEFAULTS.lowConnections` connections or fewer the
 * one with the lowest time per request, otherwise the one with the highest ceiling (for open loop
 * and `--slo`, the highest measured open-loop ceiling); or check a named one. The reason names what
 * was passed over and why.
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
    if (missing) {
      const able = ableDrivers(needs);
      throw new Error(`${choice} ${missing}, which a scenario of this suite needs${able.length && !needs.openLoop ? ` (${able.join(' or ')} can)` : ''}`);
    }
    const ok = await d.available();
    if (ok !== true) throw new Error(`driver ${choice} is not available: ${ok}`);
    return { driver: d, reason: `chosen with --driver (one process tops out near ${k(rankOf(d, needs) || d.ceilingRps)} req/s${needs.openLoop ? ' open loop' : ''} per loader core)` };
  }
  const passed: string[] = [];
  const lowFirst = Boolean(needs.fixedRequests || needs.lowConnections);
  const unavailable: Driver[] = [];
  for (const d of autoOrder(lowFirst, needs)) {
    const missing = lacks(d, needs);
    if (missing) {
      passed.push(`${d.name} ${missing}`);
      continue;
    }
    const ok = await d.available();
    if (ok !== true) {
      passed.push(`${d.name} not available (${ok})`);
      unavailable.push(d);
      continue;
    }
    const preferred = lowFirst && d.capabilities.lowOverhead;
    const best = preferred
      ? `${d.name} has the lowest time per request of the drivers available, which ${needs.fixedRequests ? 'fixed request counts' : `loads at ${DEFAULTS.lowConnections} connections or fewer`} need`
      : `${d.name} has the highest ${needs.openLoop ? 'open-loop ' : ''}ceiling of the drivers available`;
    const why = passed.length ? `${passed.join('; ')}: using ${d.name}${preferred ? ` (${best.slice(d.name.length + 1)})` : ''}` : best;
    const ceiling = needs.openLoop
      ? `, which sends on schedule up to about ${k(rankOf(d, needs))} req/s from one loader core here: a server faster than that is measured as loader-bound`
      : d.capabilities.threads === 'one'
        ? `, whose one core tops out near ${k(d.ceilingRps)} req/s here`
        : '';
    const hint = [
      ...(unavailable.some((x) => x.name === 'wrk') ? ['; `apt-get install wrk` for a higher ceiling'] : []),
      ...unavailable.filter((x) => lowFirst && x.capabilities.lowOverhead).map((x) => `; \`benchsuite setup ${x.name}\` for a lower time per request`),
    ].join('');
    return { driver: d, reason: `${why}${ceiling}${hint}` };
  }
  throw new Error(`no load generator available: ${passed.join('; ')}`);
}
