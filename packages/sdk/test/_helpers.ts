import { fileURLToPath } from 'node:url';
import type { DesignOptions, TargetInput } from '../src/index.js';
import { hasCommand } from '../src/environment.js';
import type { z } from 'zod';
import { okWindowSchema, resourceSchema, type OkWindow } from '../src/result-schema.js';
import { createHistogram, encodeHistogram, latencyOf } from '../src/histogram.js';

type Resources = z.infer<typeof resourceSchema>;

export const tinyServer = fileURLToPath(new URL('./fixtures/tiny-server.mjs', import.meta.url));

/** A process target running the tiny test server with the given env. */
export function tiny(name: string, env: Record<string, string> = {}, extra: Partial<TargetInput> = {}): TargetInput {
  return { kind: 'process', name, command: [process.execPath, tinyServer], env, ...extra } as TargetInput;
}

export const hasWrk = (): boolean => hasCommand('wrk');

/**
 * A tiny measuring design for tests: one block, two rounds of 0.25-s windows, a short warm-up.
 * No A/A control: these tests count targets, windows and rounds (the control has tests of its own,
 * aa-control.test.ts and run-cli's). Steal leaves no window out (`stealThreshold: 1`): on the
 * shared VM a burst would add rounds or leave a pair without windows, and these tests check the
 * run's shape, not the steal rule (suite.test.ts checks that rule with the default threshold).
 */
export const tinyDesign = { windowSec: 0.25, rounds: { min: 2, max: 2 }, blocks: { min: 1, max: 1 }, warmup: { minSec: 0.2, maxSec: 0.4 }, control: 'none', stealThreshold: 1 } satisfies DesignOptions;

/**
 * A window's resource figures, 0 for every field of the schema that takes a number (a new numeric
 * field needs no edit in the tests), then `over`. Fields that are not numbers (flags) stay absent.
 */
export function zeroResources<T extends Record<string, number>>(over: T): Resources & T {
  const zeros = Object.entries(resourceSchema.shape).flatMap(([k, field]) => (field.safeParse(0).success ? [[k, 0] as const] : []));
  return { ...Object.fromEntries(zeros), ...over } as Resources & T;
}

let windowIndex = 0;
/** One ok window of 0.5 s at `rps`, every response at 100 µs, checked against the result schema. */
export function okWindow(o: { scenario: string; target: string; block: number; round: number; rps: number }): OkWindow {
  const requests = Math.max(1, Math.round(o.rps * 0.5));
  const h = createHistogram();
  h.recordValueWithCount(100, requests);
  const latency = latencyOf(h);
  const histogram = encodeHistogram(h);
  const resources = zeroResources({ serverCpuSeconds: requests * 10e-6, serverPeakRssBytes: 50e6, serverProcesses: 1 });
  const counters = { requests, statusCounts: { '200': requests }, errors: 0, timeouts: 0, non2xx: 0, unexpected: 0 };
  const flags = { clientBound: false, backendBound: false, serverNotSaturated: false, loaderBound: false };
  const step = { connections: 10, durationSec: 0.5, rps: o.rps, ...counters, latency, histogram, resources, ...flags, rpsPerCpuSecond: null };
  return okWindowSchema.parse({
    scenario: o.scenario,
    target: o.target,
    block: o.block,
    round: o.round,
    position: 0,
    index: windowIndex++,
    startedAt: new Date(0).toISOString(),
    elapsedSec: 1,
    status: 'ok',
    durationSec: 0.5,
    rps: o.rps,
    ...counters,
    latency,
    histogram,
    resources,
    ...flags,
    cpuPerRequestUs: 10,
    steps: [step],
    excluded: null,
  });
}
