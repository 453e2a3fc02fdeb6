import type { RequestSpec } from './scenario.js';
import type { Histogram } from './histogram.js';

/** What a driver is asked to do: one measured (or warm-up) window against one server. */
export interface DriverRunOptions {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  baseUrl: string;
  /** Sent round-robin on each connection. */
  requests: readonly RequestSpec[];
  connections: number;
  /** Seconds of load before the measured window; nothing from it is recorded. */
  warmupSec: number;
  durationSec: number;
  /**
   * Send exactly this many requests in the measured part instead of running for `durationSec`
   * (drivers with the `fixedRequests` capability); the settle part stays timed.
   */
  requestCount?: number | undefined;
  /** Offered requests per second for the whole run; unlimited when absent. */
  rate?: number | undefined;
  /**
   * With `rate`: send on a fixed schedule whatever the server does (open loop), and time each
   * request from its intended send as well. Only drivers with `capabilities.openLoop`.
   */
  openLoop?: boolean | undefined;
  timeoutSec: number;
  /** Expected statuses; anything else is counted as `unexpected`. */
  expectStatus: readonly number[];
  /** Prefix for the loader's command line, e.g. `['taskset', '-c', '1']`. */
  pin: readonly string[];
  /**
   * A time-sliced window (drivers with `capabilities.slots`): requests leave only inside these
   * slots, `[start, end)` in CLOCK_MONOTONIC milliseconds (`monotonicMs()`); the other targets of the
   * round are loaded in the time between. `warmupSec` and `durationSec` are then ignored: the
   * loader starts at once, opens its connections before the first slot and stops after the last.
   */
  slots?: ReadonlyArray<readonly [number, number]> | undefined;
  /** With `slots`: seconds after the last slot's end for its last responses to arrive before the loader stops. */
  drainSec?: number | undefined;
  /** Called with the loader's pid when the measured window starts and when it ends (CPU sampling). */
  onMeasureStart?: (pid: number) => void;
  onMeasureEnd?: (pid: number) => void;
  signal?: AbortSignal | undefined;
}

/** What a driver measured in the window (never the warm-up), latency in µs. */
export interface DriverRunResult {
  requests: number;
  durationSec: number;
  histogram: Histogram;
  statusCounts: Record<string, number>;
  /** Failed sends with no response (the server's side: refused, reset, closed). */
  errors: number;
  /** The loader's own failed sends (`isLoaderError`: its file descriptors, local ports or buffers ran out), not in `errors`. */
  loaderErrors?: number;
  timeouts: number;
  non2xx: number;
  unexpected: number;
  /** Open-loop figures: latency from each request's intended send time (µs), late and dropped sends. */
  openLoop?: OpenLoopFigures;
  /** A time-sliced window's figures (`slots` given). */
  sliced?: SlicedFigures;
}

/**
 * What a time-sliced window measured. `durationSec` of the result is `activeSec` and `requests`
 * every response (those that ended after their slot included: they cost the server CPU too).
 */
export interface SlicedFigures {
  /** Seconds from each slot's first send to its last response inside it, summed over slots (the time measured). */
  activeSec: number;
  /**
   * The loader process's own CPU seconds, read inside it as it ends: a round's loaders exit
   * together, and the runner's reaped-children ticks cannot tell one from another.
   */
  loaderCpuSec?: number;
  /** Responses that arrived inside their slot. */
  inSlot: number;
  /** The throughput: responses inside the slots ÷ their measured seconds (`inSlot / activeSec` with one loader thread). */
  rps: number;
  /** Responses to requests sent in a slot that arrived after its end (the drain). */
  drained: number;
  /**
   * Responses inside their slot in its first half (from its first send to the slot's midpoint) and
   * in its second: their ratio shows what the switch from the previous slot's server costs.
   */
  halves?: [number, number];
  /** Responses inside their slot in each eighth of it (from its first send to its end): where in a slot the switch's cost falls. */
  eighths?: number[];
  /** Slots the loader sent in. */
  slots: number;
  /** Each slot's throughput, in the order of the plan's slots (`DriverRunOptions.slots`); 0 where none was answered. */
  slotRps?: number[];
}

/** CLOCK_MONOTONIC in milliseconds: the clock of `DriverRunOptions.slots` (what `process.hrtime` reads). */
export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** What an open-loop window adds to its figures. */
export interface OpenLoopFigures {
  /** Latency from the intended send time (corrects for coordinated omission), µs. */
  corrected: Histogram;
  /** Sends that left later than their schedule. */
  late: number;
  /** Scheduled sends that never left (no free connection / virtual user). */
  dropped: number;
}

export interface DriverCapabilities {
  /** Can cap the offered request rate (`load.rate`). */
  capRate: boolean;
  /** Can send an exact number of requests per window instead of running for a duration (`load.requests`, `--requests`). */
  fixedRequests?: boolean;
  /** Sends on a schedule whatever the server does and times requests from their intended send (`load.openLoop`). */
  openLoop?: boolean;
  /** Records latency at µs resolution. */
  microsecondLatency: boolean;
  /** Can confine its sends to given time slots (`DriverRunOptions.slots`): time-sliced rounds. */
  slots?: boolean;
  /** How many loader cores one loader process can keep busy: `one` (an event loop) or one thread per loader core. */
  threads: 'one' | 'per-loader-core';
  /** Sends one method, header set and body for every request of a window (only paths may differ): a scenario whose requests differ needs another driver. */
  uniformRequests?: boolean;
  /**
   * Its own time per request is the lowest of the drivers: `auto` prefers it for fixed request
   * counts and for loads at `DEFAULTS.lowConnections` connections or fewer, where that time sits in
   * every round trip.
   */
  lowOverhead?: boolean;
  /** Sends one request shape per run: a scenario with several requests (round-robin) needs another driver. */
  oneRequest?: boolean;
}

/**
 * A load generator behind one small interface. `available` says why it cannot run here.
 *
 * @example
 * defineDriver({ name: 'mine', ceilingRps: 50_000, available: async () => true, version: async () => '1.0', flags: () => [], run: async (o) => … })
 */
export interface Driver {
  name: string;
  /** Rough single-core ceiling, used by `auto` to pick the stronger driver. */
  ceilingRps: number;
  /**
   * Open loop (`capabilities.openLoop`): the highest rate it sends on schedule from one loader core,
   * as measured here (`npm run bench:open-loop`); `auto` picks the highest for open-loop runs and `--slo`.
   */
  openLoopCeilingRps?: number;
  /** What the driver can do; `auto` and the runner ask these instead of checking names. */
  capabilities: DriverCapabilities;
  available(): Promise<true | string>;
  version(): Promise<string>;
  /** The flags this driver runs with for these options, recorded in the result. */
  flags(options: Pick<DriverRunOptions, 'connections' | 'durationSec' | 'warmupSec' | 'rate' | 'timeoutSec' | 'requestCount' | 'openLoop'>): string[];
  /** Warm up for `warmupSec`, then measure for `durationSec`, in the loader's own (pinned) process. */
  run(options: DriverRunOptions): Promise<DriverRunResult>;
  /** A sentence on what limits this driver (e.g. latency resolution). */
  note?: string;
  /** Stop what the driver keeps between windows (a long-lived loader process); `runSuite` calls it when the run ends. */
  close?(): Promise<void>;
}

/** Identity helper for typing a custom driver. */
export function defineDriver<const T extends Driver>(driver: T): T {
  return driver;
}
