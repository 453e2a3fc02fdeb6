import { createHash } from 'node:crypto';
import { forecastOutcome, type BenchResult, type Environment } from '@benchsuite/sdk';
import type { Better } from './changes.js';

/** The figures a history follows per (scenario, target): relative throughput, relative CPU per request, instructions per request. */
export const FIGURES = {
  rps: { better: 'higher', label: 'throughput ÷ the reference' },
  cpu: { better: 'lower', label: 'server CPU per request ÷ the reference' },
  instructions: { better: 'lower', label: 'instructions per request (callgrind, one connection)' },
} as const satisfies Record<string, { better: Better; label: string }>;
export type FigureName = keyof typeof FIGURES;
export const figureNames = Object.keys(FIGURES) as FigureName[];

const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 12);

/** What makes two runs' figures comparable as a machine: never mixed in one series. */
export interface MachineFacts {
  cpuModel: string;
  cores: number;
  arch: string;
  kernel: string;
  node: string;
  python: string | null;
  /** Memory in whole GiB (a VM's total moves by a few MiB between boots). */
  memoryGiB: number;
}

export function machineOf(env: Environment): MachineFacts {
  return { cpuModel: env.cpuModel, cores: env.cores, arch: env.arch, kernel: env.kernel, node: env.node, python: env.python, memoryGiB: Math.round(env.memoryBytes / 2 ** 30) };
}

/** The machine fingerprint: a short hash of `MachineFacts` (CPU model, cores, arch, kernel, runtime versions, memory). */
export const fingerprintOf = (m: MachineFacts) => hash(m);

/**
 * The parts of a machine `history check --same-machine` can ask to match: `cpu` (the hardware: CPU
 * model, cores, architecture, memory; always matched) and the software that updates under it.
 */
export const MACHINE_PARTS = {
  cpu: ['cpuModel', 'cores', 'arch', 'memoryGiB'],
  kernel: ['kernel'],
  node: ['node'],
  python: ['python'],
} as const satisfies Record<string, readonly (keyof MachineFacts)[]>;
export type MachinePart = keyof typeof MACHINE_PARTS;
export const machinePartNames = Object.keys(MACHINE_PARTS) as MachinePart[];
/** The parts that can change while the hardware stays: what a change of machine facts names. */
export type SoftwarePart = Exclude<MachinePart, 'cpu'>;

/** The hardware facts of a machine (`cpu`): runs that differ here are never the same machine. */
export const hardwareOf = (m: MachineFacts): Pick<MachineFacts, (typeof MACHINE_PARTS.cpu)[number]> => ({ cpuModel: m.cpuModel, cores: m.cores, arch: m.arch, memoryGiB: m.memoryGiB });

/** Whether two machines are the same on `parts` (the hardware always counts). */
export function sameMachine(a: MachineFacts, b: MachineFacts, parts: readonly MachinePart[]): boolean {
  const facts = new Set<keyof MachineFacts>(MACHINE_PARTS.cpu);
  for (const p of parts) for (const f of MACHINE_PARTS[p]) facts.add(f);
  return [...facts].every((f) => a[f] === b[f]);
}

/**
 * The parts of a run's design that change what a figure means (not only how precise it is): the
 * reference, how processes are shared and warmed, the window, the driver, pinning, the
 * instruction-count settings. Budget, precision, rounds and blocks change the interval, not the
 * figure, so runs that differ only there share a series.
 */
export function designFacts(r: BenchResult): Record<string, unknown> {
  const d = r.design;
  return {
    reference: d.reference,
    processes: d.processes ?? 'per-scenario',
    freshWarmup: d.freshWarmup ?? 'one-by-one',
    carriedWarmupRounds: d.carriedWarmupRounds ?? null,
    carriedWarmupWindowSec: d.carriedWarmupWindowSec ?? null,
    carriedWarmupServed: d.carriedWarmupServed ?? null,
    // Only when on every scenario's requests, so the runs before it keep their series.
    ...(d.warmupRequests === 'all-scenarios' ? { warmupRequests: d.warmupRequests } : {}),
    windowSec: d.windowSec,
    warmup: d.warmup,
    driver: r.environment.driver.name,
    pinning: r.environment.pinning.enabled,
    instructions: d.instructions ?? null,
  };
}
export const designKeyOf = (r: BenchResult) => hash(designFacts(r));

/** One figure of one pair in one run, with its interval and the noise it was measured in. */
export interface FigureRecord {
  scenario: string;
  target: string;
  reference: string;
  /** The scenario's load as run (connections, fixed requests, rate): part of the series key. */
  load: string;
  figure: FigureName;
  point: number;
  lo: number | null;
  hi: number | null;
  halfWidth: number | null;
  n: number;
  /** SD of the log-ratio within blocks and between blocks (ratios); null for instructions. */
  withinSd: number | null;
  betweenSd: number | null;
  /** Instructions: (max − min) ÷ median over the processes. */
  spread: number | null;
}

/** One scenario's A/A interval in a run: twin ÷ reference, which should hold 1. */
export interface ControlScenarioRecord {
  scenario: string;
  blocks: number;
  point: number | null;
  lo: number | null;
  hi: number | null;
  /** Whether the interval holds 1; null when the run had no interval (one block). */
  containsOne: boolean | null;
  withinSd: number | null;
  betweenSd: number | null;
}

/** A run's A/A control (`result.control`) as the history keeps it. */
export interface ControlFacts {
  twin: string;
  scenarios: ControlScenarioRecord[];
  /** One process's own level, SD of its log, with its 95% interval and degrees of freedom. */
  processSd: { point: number; lo: number | null; hi: number | null; df: number } | null;
}

/** The A/A control of a result, or null for a run without one (`--control none`, results from before it). */
export function controlOf(result: BenchResult): ControlFacts | null {
  const c = result.control;
  if (!c) return null;
  return {
    twin: c.twin,
    scenarios: c.scenarios.map((s) => ({
      scenario: s.scenario,
      blocks: s.blocks,
      point: s.ratio?.point ?? null,
      lo: s.ratio?.ci95?.[0] ?? null,
      hi: s.ratio?.ci95?.[1] ?? null,
      containsOne: s.containsOne,
      withinSd: s.within,
      betweenSd: s.between,
    })),
    processSd: c.processSd ? { point: c.processSd.point, lo: c.processSd.ci95?.[0] ?? null, hi: c.processSd.ci95?.[1] ?? null, df: c.processSd.df } : null,
  };
}

/**
 * A run's design-bias check of round 1 (`result.designBias.roundOne.overall`): round 1 ÷ its block's
 * later rounds of the pairs' ratios to the reference, the mean over `n` blocks, with its 95%
 * t-interval over them. The history pools it over runs (`pooledRoundOne`), where one run reads it to
 * ±3–5%.
 */
export interface RoundOneFacts {
  point: number;
  lo: number | null;
  hi: number | null;
  /** Blocks behind it: a scenario's block with processes per scenario, a block with shared ones. */
  n: number;
}

/**
 * The round-1 check of a result, or null: a run without it (from before it, a run with one round a
 * block), or one from before 2026-11-29, whose figure took pairs rather than blocks as its unit.
 */
export function roundOneOf(result: BenchResult): RoundOneFacts | null {
  const r = result.designBias?.roundOne;
  const o = r?.overall;
  if (!r || !o || r.overallOver !== 'blocks' || !(o.point > 0)) return null;
  return { point: o.point, lo: o.ci95?.[0] ?? null, hi: o.ci95?.[1] ?? null, n: o.n };
}

/**
 * A run's forecast against what it reached (`forecastOutcome`): the last 80% range said (its
 * `coverage` the share of runs its record says it holds) and the median half-width reached over the
 * ratios to the reference. The history counts how often the reached figure fell inside.
 */
export interface ForecastFacts {
  low: number;
  high: number;
  coverage: number;
  reached: number;
}

/** The forecast of a result against what it reached, or null: a run without a forecast, a range, or a reached figure. */
export function forecastFactsOf(result: BenchResult): ForecastFacts | null {
  const o = forecastOutcome(result);
  if (!o || o.range === null || o.reached === null) return null;
  return { low: o.range.low, high: o.range.high, coverage: o.range.coverage, reached: o.reached };
}

/** A finished run as the history keeps it. */
export interface RunRecord {
  /** Identifies the result document, so the same run is never added twice. */
  resultKey: string;
  suite: string;
  startedAt: string;
  finishedAt: string;
  commit: string | null;
  branch: string | null;
  dirty: boolean;
  machine: MachineFacts;
  fingerprint: string;
  designKey: string;
  design: Record<string, unknown>;
  seed: number;
  noise: {
    meanSteal: number;
    maxSteal: number;
    medianHalfWidth: number | null;
    worstHalfWidth: number | null;
    precisionTarget: number;
    windows: number;
    excludedSteal: number;
    verdict: string | null;
  };
  wallSec: number;
  figures: FigureRecord[];
  /** The run's A/A control; null when it had none. */
  control: ControlFacts | null;
  /** The run's round-1 check; null when it had none. */
  roundOne: RoundOneFacts | null;
  /** The run's forecast and what it reached; null when it had no range to judge. */
  forecast: ForecastFacts | null;
}

/**
 * A result as the history stores it. `commit` and `branch` given here win over the result's own
 * record (the commit `run` saw) and over nothing.
 */
export function recordOf(result: BenchResult, meta: { commit?: string | null; branch?: string | null } = {}): RunRecord {
  const loads = new Map(result.scenarios.map((s) => [s.name, JSON.stringify({ connections: s.load.connections, requests: s.load.requests ?? null, rate: s.load.rate ?? null })]));
  const figures: FigureRecord[] = [];
  for (const s of result.summaries) {
    const load = loads.get(s.scenario) ?? '{}';
    const base = { scenario: s.scenario, target: s.target, reference: s.reference, load, withinSd: s.variance.withinBlocks, betweenSd: s.variance.betweenBlocks, spread: null };
    for (const [figure, e] of [
      ['rps', s.relativeRps],
      ['cpu', s.relativeCpu],
    ] as const) {
      if (!e || s.target === s.reference || !(e.point > 0)) continue;
      figures.push({ ...base, figure, point: e.point, lo: e.ci95?.[0] ?? null, hi: e.ci95?.[1] ?? null, halfWidth: e.halfWidth, n: e.n });
    }
  }
  for (const rec of result.instructions ?? []) {
    if (rec.status !== 'ok') continue;
    const level = [...rec.levels].sort((a, b) => a.connections - b.connections)[0];
    if (!level || !(level.perRequest > 0)) continue;
    const reference = result.design.reference;
    figures.push({
      scenario: rec.scenario,
      target: rec.target,
      reference,
      load: loads.get(rec.scenario) ?? '{}',
      figure: 'instructions',
      point: level.perRequest,
      lo: level.perProcess.length ? Math.min(...level.perProcess) : null,
      hi: level.perProcess.length ? Math.max(...level.perProcess) : null,
      halfWidth: null,
      n: level.perProcess.length,
      withinSd: null,
      betweenSd: null,
      spread: level.spread,
    });
  }
  const machine = machineOf(result.environment);
  const o = result.overall;
  return {
    resultKey: hash([result.suite, result.startedAt, result.finishedAt, result.seed]),
    suite: result.suite,
    startedAt: result.startedAt,
    finishedAt: result.finishedAt,
    commit: meta.commit !== undefined ? meta.commit : (result.environment.git?.commit ?? null),
    branch: meta.branch ?? null,
    dirty: result.environment.git?.dirty ?? false,
    machine,
    fingerprint: fingerprintOf(machine),
    designKey: designKeyOf(result),
    design: designFacts(result),
    seed: result.seed,
    noise: {
      meanSteal: o.meanSteal,
      maxSteal: o.maxSteal,
      medianHalfWidth: o.medianHalfWidth,
      worstHalfWidth: o.worstHalfWidth,
      precisionTarget: result.design.precision,
      windows: o.windows,
      excludedSteal: o.excludedSteal,
      verdict: o.verdict?.band ?? null,
    },
    wallSec: result.runner.wallSec,
    figures,
    control: controlOf(result),
    roundOne: roundOneOf(result),
    forecast: forecastFactsOf(result),
  };
}
