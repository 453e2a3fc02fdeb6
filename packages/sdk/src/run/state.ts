import { z } from 'zod';
import type { BudgetChange } from '../analysis/budget.js';
import type { Design } from '../design-options.js';
import {
  blockSchema,
  capacityBlockSchema,
  ceilingSchema,
  costsSchema,
  instructionsRecordSchema,
  floorWindowSchema,
  profileRecordSchema,
  streamBlockSchema,
  verifyOutcomeSchema,
  windowSchema,
  type BlockRecord,
  type Capacity,
  type CapacityBlock,
  type Ceiling,
  type Costs,
  type InstructionsRecord,
  type FloorWindow,
  type ProfileRecord,
  type StopRecord,
  type StreamBlock,
  type StreamResult,
  type VerifyOutcome,
  type WindowRecord,
} from '../result-schema.js';

/**
 * The events a run journals (appended to `windows.jsonl` as they happen, replayed by `--resume`),
 * as the journal's lines hold them. A scenario kind that journals its own records adds its line here.
 */
export const journalEventSchema = z.discriminatedUnion('record', [
  /** `loadSec`: the run's seconds under load once this window's were added. */
  z.strictObject({ record: z.literal('window'), window: windowSchema, loadSec: z.number().nonnegative().optional() }),
  /** A scenario's part of a block, measured, or cut short by a kill and closed when a resumed run reaches it. */
  z.strictObject({ record: z.literal('block'), block: blockSchema }),
  /** A change to the design for the rest of the run (a warm-up cut to reach a scenario's minimum of blocks). */
  z.strictObject({
    record: z.literal('replan'),
    change: z.strictObject({
      what: z.enum(['rounds', 'warmup', 'blocks']),
      from: z.number().nonnegative(),
      to: z.number().nonnegative(),
      atSec: z.number().nonnegative().optional(),
      scenario: z.string().optional(),
    }),
  }),
  z.strictObject({ record: z.literal('verify'), outcome: verifyOutcomeSchema }),
  z.strictObject({ record: z.literal('costs'), target: z.string(), costs: costsSchema }),
  z.strictObject({ record: z.literal('ceiling'), ceiling: ceilingSchema }),
  /** A window of the loader's round-trip floor, after a scenario's part of a block (a low connection step). */
  z.strictObject({ record: z.literal('floor-window'), window: floorWindowSchema }),
  z.strictObject({ record: z.literal('profile'), profile: profileRecordSchema }),
  z.strictObject({ record: z.literal('instructions'), instructions: instructionsRecordSchema }),
  z.strictObject({ record: z.literal('stream'), scenario: z.string(), target: z.string(), block: streamBlockSchema }),
  /** A finished block of a capacity search (`--slo`), its probes' windows included. */
  z.strictObject({ record: z.literal('capacity-block'), scenario: z.string(), target: z.string(), block: capacityBlockSchema }),
]);
export type JournalEvent = z.infer<typeof journalEventSchema>;

/**
 * What happens during a run, one event at a time: the journalled ones, and those that live only in
 * the process that records them (a resumed run counts its load from its windows, decides its stops
 * again and figures each capacity again from its journalled blocks).
 */
export type RunEvent =
  | JournalEvent
  /** Seconds under load outside a measured window's record (warm-ups, streams, probes). */
  | { record: 'load'; sec: number }
  | { record: 'stop'; stop: StopRecord }
  | { record: 'capacity'; capacity: Capacity };

export const isJournaled = (e: RunEvent): e is JournalEvent => e.record !== 'load' && e.record !== 'stop' && e.record !== 'capacity';

/** Everything the run has measured and decided so far, replayed and new: changed only by `reduce`. */
export interface RunState {
  readonly windows: readonly WindowRecord[];
  /** Block records in the order they were recorded. */
  readonly blocks: readonly BlockRecord[];
  readonly replans: readonly BudgetChange[];
  readonly verify: readonly VerifyOutcome[];
  readonly costs: ReadonlyMap<string, Costs>;
  readonly ceilings: readonly Ceiling[];
  readonly floorWindows: readonly FloorWindow[];
  readonly profiles: readonly ProfileRecord[];
  readonly instructions: readonly InstructionsRecord[];
  /** Streaming scenarios' blocks, per (scenario, target). */
  readonly streams: readonly StreamResult[];
  readonly stops: readonly StopRecord[];
  readonly capacity: readonly Capacity[];
  /** Finished blocks of capacity searches, per (scenario, target), replayed by `--resume`. */
  readonly capacityBlocks: ReadonlyArray<{ scenario: string; target: string; block: CapacityBlock }>;
  /** Seconds under load so far (an interrupted run's included), for the overhead figure. */
  readonly loadSec: number;
  /** The next window's sequence number. */
  readonly nextIndex: number;
}

export const emptyState = (): RunState => ({
  windows: [],
  blocks: [],
  replans: [],
  verify: [],
  costs: new Map(),
  ceilings: [],
  floorWindows: [],
  profiles: [],
  instructions: [],
  streams: [],
  stops: [],
  capacity: [],
  capacityBlocks: [],
  loadSec: 0,
  nextIndex: 0,
});

/** The run's state after one more event: the one place where it changes. Pure. */
export function reduce(s: RunState, e: RunEvent): RunState {
  switch (e.record) {
    case 'window':
      return { ...s, windows: [...s.windows, e.window], loadSec: Math.max(s.loadSec, e.loadSec ?? 0), nextIndex: Math.max(s.nextIndex, e.window.index + 1) };
    case 'block':
      return { ...s, blocks: [...s.blocks, e.block] };
    case 'replan':
      return { ...s, replans: [...s.replans, e.change] };
    case 'verify':
      return { ...s, verify: [...s.verify, e.outcome] };
    case 'costs':
      return { ...s, costs: new Map([...s.costs, [e.target, e.costs]]) };
    case 'ceiling':
      return { ...s, ceilings: [...s.ceilings, e.ceiling] };
    case 'floor-window':
      return { ...s, floorWindows: [...s.floorWindows, e.window] };
    case 'profile':
      return { ...s, profiles: [...s.profiles, e.profile] };
    case 'instructions':
      return { ...s, instructions: [...s.instructions, e.instructions] };
    case 'stream': {
      const known = s.streams.some((r) => r.scenario === e.scenario && r.target === e.target);
      const streams = known
        ? s.streams.map((r) => (r.scenario === e.scenario && r.target === e.target ? { ...r, blocks: [...r.blocks, e.block] } : r))
        : [...s.streams, { scenario: e.scenario, target: e.target, blocks: [e.block] }];
      return { ...s, streams };
    }
    case 'capacity-block': {
      // Its probes' windows are numbered among the run's: the next window comes after them.
      const last = Math.max(-1, ...e.block.probes.map((p) => p.window?.index ?? -1));
      return { ...s, capacityBlocks: [...s.capacityBlocks, { scenario: e.scenario, target: e.target, block: e.block }], nextIndex: Math.max(s.nextIndex, last + 1) };
    }
    case 'load':
      return { ...s, loadSec: s.loadSec + e.sec };
    case 'stop':
      return { ...s, stops: [...s.stops, e.stop] };
    case 'capacity':
      return { ...s, capacity: [...s.capacity, e.capacity] };
  }
}

/**
 * A step of a run that the journal can hold, so that a resumed run does not take it again: a
 * scenario's part of a block, the loader's floor after it, a check, a target's costs, a backend's
 * ceiling, a profile, an instruction count, a capacity search and each of its blocks, a stream block.
 */
export type Step =
  | { step: 'verify'; scenario: string; target: string }
  | { step: 'costs'; target: string }
  | { step: 'ceiling'; scenario: string }
  | { step: 'block'; scenario: string; block: number }
  | { step: 'floor'; scenario: string; block: number }
  | { step: 'profile'; scenario: string; target: string }
  | { step: 'instructions'; scenario: string; target: string }
  | { step: 'capacity'; scenario: string; target: string }
  | { step: 'capacity-block'; scenario: string; target: string; block: number }
  | { step: 'stream'; scenario: string; target: string; block: number };

/** The record that makes each step (but a block, which `blockState` answers) done. */
export interface StepRecords {
  verify: VerifyOutcome;
  costs: Costs;
  ceiling: Ceiling;
  floor: FloorWindow;
  profile: ProfileRecord;
  instructions: InstructionsRecord;
  capacity: Capacity;
  'capacity-block': CapacityBlock;
  stream: StreamBlock;
}

type RecordedStep = Exclude<Step, { step: 'block' }>;

const of = (scenario: string, target: string) => (x: { scenario: string; target: string }) => x.scenario === scenario && x.target === target;

/** The record the state holds of a step (the first, for the floor's windows), or undefined: the step is still to be taken. */
export function doneRecord<S extends RecordedStep>(s: RunState, step: S): StepRecords[S['step']] | undefined {
  const found = (() => {
    switch (step.step) {
      case 'verify':
        return s.verify.find(of(step.scenario, step.target));
      case 'costs':
        return s.costs.get(step.target);
      case 'ceiling':
        return s.ceilings.find((c) => c.scenario === step.scenario);
      case 'floor':
        return s.floorWindows.find((w) => w.scenario === step.scenario && w.block === step.block);
      case 'profile':
        return s.profiles.find(of(step.scenario, step.target));
      case 'instructions':
        return s.instructions.find(of(step.scenario, step.target));
      case 'capacity':
        return s.capacity.find(of(step.scenario, step.target));
      case 'capacity-block':
        return s.capacityBlocks.find((c) => of(step.scenario, step.target)(c) && c.block.block === step.block)?.block;
      case 'stream':
        return s.streams.find(of(step.scenario, step.target))?.blocks.find((b) => b.block === step.block);
    }
  })();
  return found as StepRecords[S['step']] | undefined;
}

/**
 * Is this step done? The one place a run decides what a resumed run skips: every step whose record
 * the state holds, and a block's part that was recorded or cut short by a kill (`blockState`).
 */
export function isDone(s: RunState, step: Step): boolean {
  return step.step === 'block' ? blockState(s, step.scenario, step.block) !== undefined : doneRecord(s, step) !== undefined;
}

/**
 * What the state holds of a scenario's block: its record, its windows only (a kill cut it short
 * before its record), or nothing (it is still to be measured).
 */
export function blockState(s: RunState, scenario: string, block: number): 'recorded' | 'cut-short' | undefined {
  if (s.blocks.some((x) => x.scenario === scenario && x.block === block)) return 'recorded';
  return s.windows.some((w) => w.scenario === scenario && w.block === block) ? 'cut-short' : undefined;
}

/** The record of a block a kill cut short, made from its windows when a resumed run reaches it: incomplete, every target as it began. */
export function cutShortRecord(s: RunState, scenario: string, block: number, names: readonly string[]): BlockRecord {
  const windows = s.windows.filter((w) => w.scenario === scenario && w.block === block);
  return {
    scenario,
    block,
    startedAt: windows[0]!.startedAt,
    wallSec: 0,
    roundsWallSec: 0,
    plannedRounds: 0,
    rounds: Math.max(...windows.map((w) => w.round)),
    extraRounds: 0,
    complete: false,
    targets: names.map((n) => ({ target: n, status: 'ok' as const, warmupRps: [], steady: false })),
  };
}

/** The design as it stands after the run's replans: a warm-up cut holds from its event on. */
export function designNow<D extends Pick<Design, 'warmup'>>(design: D, replans: readonly BudgetChange[]): D {
  const cut = replans.filter((c) => c.what === 'warmup').at(-1);
  return cut ? { ...design, warmup: { ...design.warmup, maxSec: cut.to } } : design;
}
