import {
  DEFAULTS,
  methodSentences,
  type BudgetChange,
  type CapacityProbe,
  type ControlRecord,
  type DesignBiasRecord,
  type IntervalLimitsRecord,
  type PairVerdict,
  type RunVerdict,
  type StopRecord,
  type VerdictBand,
} from '@benchsuite/sdk';
import { fmtDuration, fmtEstimate, fmtHalfWidth, fmtInt, fmtPct, fmtRatio, fmtRps } from './units.js';

const pct = (x: number, digits = 0) => fmtPct(x, digits);
/** A share and the threshold it was judged against, with as many decimals as they need to read apart ("97% (under 97%)" read as a contradiction). */
const pctApart = (x: number, threshold: number): [string, string] => {
  for (let digits = 0; digits < 2; digits++) if (pct(x, digits) !== pct(threshold, digits)) return [pct(x, digits), pct(threshold, digits)];
  return [pct(x, 2), pct(threshold, 2)];
};

/**
 * Every warning or remark a reader may see about a figure, as a variant that carries its own
 * threshold and sentence (as hyperfine's `warnings.rs` does). The report package owns every sentence;
 * the SDK emits data and events, and the CLI and the reports render `noteText`: no sentence or
 * threshold is written twice.
 */
export type Note =
  | { kind: 'client-bound'; windows: number; of: number; busiest: number; threshold: number }
  | { kind: 'client-bound-unknown'; windows: number; of: number }
  | { kind: 'backend-bound'; windows: number; of: number; busiest: number; threshold: number }
  | { kind: 'server-not-saturated'; windows: number; of: number; share: number; cores: number; threshold: number }
  | { kind: 'loader-bound'; windows: number; of: number; share: number; busiest: number; cores: number; serverShare: number; loaderBusy: number }
  | { kind: 'verdict-bands'; bands: { excellent: number; acceptable: number; noisy: number }; share: number }
  | { kind: 'run-verdict'; verdict: RunVerdict | null; bands: { excellent: number; acceptable: number; noisy: number } }
  | { kind: 'interval-limits'; limits: IntervalLimitsRecord }
  | { kind: 'aa-control'; control: ControlRecord }
  | { kind: 'warmup-served'; served: number | undefined; targets: Array<{ target: string; median: number }>; cold: number; short: number }
  | { kind: 'design-bias'; bias: DesignBiasRecord }
  | { kind: 'young-generation'; mb: number | 'default' | undefined }
  | { kind: 'memory-reducer'; reducer: 'off' | 'default' | undefined }
  | { kind: 'host-disturbed'; windows: number; other: number; slowLoader: number; of: number }
  | { kind: 'steal'; excluded: number; of: number; mean: number; max: number; threshold: number }
  | { kind: 'not-pinned'; reason?: string | undefined }
  | { kind: 'budget-changed'; givenMinimumSec: number; budgetSec: number; changes: ReadonlyArray<BudgetChange | string> }
  | { kind: 'budget-over'; minimumSec: number; overBySec: number; budgetSec: number }
  | { kind: 'budget-replanned'; change: BudgetChange }
  | {
      kind: 'step-failed';
      step: 'backend-ceiling' | 'loader-floor' | 'capacity' | 'artifact-size' | 'costs';
      scenario?: string | undefined;
      target?: string | undefined;
      block?: number | undefined;
      message: string;
    }
  | { kind: 'loader-floor-measuring'; connections: readonly number[] }
  | { kind: 'loader-floor-table'; responder: string }
  | { kind: 'loader-share'; share: number; connections: number; floorRps: number; rps: number; threshold: number }
  | { kind: 'windows-lengthened'; scenario: string; block: number; fromSec: number; toSec: number; connections: number; minResponses: number }
  | { kind: 'interrupting'; signal: string }
  | { kind: 'driver-choice'; driver: string; reason: string }
  | {
      kind: 'resume';
      dir: string;
      replayed: { windows: number; blocks: number; checks: number; costs: number };
      seed: number;
      driver: string;
      overrides: Record<string, unknown>;
      verify: boolean;
      pinning: boolean;
      costs: boolean;
    }
  | { kind: 'precision-not-met'; reached: number; target: number; reason: string }
  | { kind: 'warmup-not-steady'; target: string; blocks: number; of: number; tolerance: number; served?: number | undefined }
  | { kind: 'failed-windows'; windows: number; of: number }
  | { kind: 'relative-figures'; reference: string; method: string | undefined }
  | { kind: 'capacity-figures' }
  | { kind: 'noise-labels'; stealThreshold: number; noisyWindowCov: number; disturbedSteal: number }
  | { kind: 'stop-reason'; reason: StopRecord['reason']; blocks: number }
  | { kind: 'stopped'; scenario: string; reason: StopRecord['reason']; blocks: number; rounds: number; worst: number | null; target: number }
  | { kind: 'single-block'; scenario: string }
  | { kind: 'interrupted' }
  | { kind: 'regression-rule'; thresholdPct: number; band?: number }
  | { kind: 'instruction-rule'; thresholdPct: number }
  | { kind: 'incomparable'; fields: string[] }
  | { kind: 'forced-comparison'; fields: string[] }
  | { kind: 'warmup-not-steady-targets'; targets: Array<{ target: string; blocks: number; of: number }>; tolerance: number; served?: number | undefined }
  | { kind: 'precision-not-met-targets'; targets: Array<{ target: string; reached: number }>; target: number; reason: string }
  | { kind: 'profile-shares' }
  | { kind: 'profile-cost'; ratio: number | null; profiled: number; unprofiled: number }
  | { kind: 'profile-missing'; target: string; status: 'unavailable' | 'failed'; profiler: string; reason?: string | undefined }
  | { kind: 'profile-no-stacks'; file?: string | undefined }
  | {
      kind: 'capacity-loader-bound';
      driver: string;
      pairs: Array<{ scenario: string; target: string; capacity: number | null; at: number }>;
      /** How the loader-bound probes were told (absent: an older result, judged by the loader's CPU). */
      evidence?: ReadonlyArray<LoaderEvidence> | undefined;
    }
  | { kind: 'capacity-blocks-failed'; blocks: Array<{ scenario: string; target: string; block: number; message: string }> }
  | { kind: 'capacity-steal'; repeated: number; judged: number; threshold: number };

type LoaderEvidence = NonNullable<CapacityProbe['loaderEvidence']>;

/** How a probe was found loader-bound, in words. */
const EVIDENCE_WORDS: Record<LoaderEvidence, string> = {
  busy: 'its core was busy and its sends fell behind the schedule',
  late: 'its late sends alone failed the SLO (timed from the actual send, the server met it)',
  failed: 'its process failed the probe',
};

const STEP_WORDS: Record<Extract<Note, { kind: 'step-failed' }>['step'], string> = {
  'backend-ceiling': "measuring the backend's own ceiling",
  'loader-floor': "measuring the loader's round-trip floor",
  capacity: 'the capacity search',
  'artifact-size': 'measuring the artifact size',
  costs: 'the cost figures (startup, memory)',
};

/** One change the budget planner made, with what it costs the figures; older results hold the sentence itself. */
function budgetChangeText(c: BudgetChange | string): string {
  if (typeof c === 'string') return c;
  switch (c.what) {
    case 'rounds':
      return `rounds per block start at ${c.to} instead of ${c.from} (the first blocks estimate the noise from fewer windows)`;
    case 'warmup':
      return `warm-up stops at ${c.to} s instead of ${c.from} s (a server still speeding up then is measured as it is)`;
    case 'blocks':
      return `${c.to} block${c.to === 1 ? '' : 's'} of fresh processes at least instead of ${c.from} (with one block the intervals leave out the variation between processes)`;
  }
}

/** The budget planner's plan in words (none when the design fit): for the run's progress, `--dry-run` and the reports. */
export function budgetTexts(plan: { minimumSec: number; givenMinimumSec: number; changes: ReadonlyArray<BudgetChange | string>; overBySec: number }, budgetSec: number): string[] {
  const during = (c: BudgetChange | string): c is BudgetChange => typeof c === 'object' && c.atSec !== undefined;
  const before = plan.changes.filter((c) => !during(c));
  return [
    ...(before.length ? [noteText({ kind: 'budget-changed', givenMinimumSec: plan.givenMinimumSec, budgetSec, changes: before })] : []),
    ...(plan.overBySec > 0 ? [noteText({ kind: 'budget-over', minimumSec: plan.minimumSec, overBySec: plan.overBySec, budgetSec })] : []),
    ...plan.changes.filter(during).map((change) => noteText({ kind: 'budget-replanned', change })),
  ];
}

/** The word of each CoV verdict band, as every report writes it. */
const VERDICT_WORDS: Record<VerdictBand, string> = { excellent: 'Excellent', acceptable: 'Acceptable', noisy: 'Noisy', unreliable: 'Unreliable' };

/** A pair's verdict in a table cell: `Acceptable (blocks 3.4%, windows 8.1%)`; a dash without one. */
export function pairVerdictText(v: PairVerdict | null | undefined): string {
  if (!v) return '—';
  const part = (label: string, c: PairVerdict['blocks']) => (c ? [`${label} ${pct(c.cov, 1)}`] : []);
  return `${VERDICT_WORDS[v.band]} (${[...part('blocks', v.blocks), ...part('windows', v.windows)].join(', ')})`;
}

/** What to do with a run's figures, from its worst band present: where the reader should look, and what narrows it. */
function verdictAdvice(v: RunVerdict, b: { acceptable: number; noisy: number }): string {
  const n = v.pairs;
  const they = (k: number) => (k === 1 ? 'that pair' : `those ${k}`);
  if (n.unreliable)
    return (
      `${they(n.unreliable)} varied by more than ${pct(b.noisy)} between blocks: trust ${n.unreliable === 1 ? 'its' : 'their'} places only where the ranking gives a single rank, ` +
      'and rerun their scenarios with a larger --budget (more blocks), on a quieter host, before publishing them'
    );
  if (n.noisy)
    return `${they(n.noisy)} varied by ${pct(b.acceptable)}–${pct(b.noisy)} between blocks: read ${n.noisy === 1 ? 'its' : 'their'} figures with their intervals; a larger --budget narrows them`;
  return `every pair varied by under ${pct(b.acceptable)} between blocks: the figures compare as they are`;
}

/**
 * What set a run's intervals and what would narrow them most, from `overall.limits`: `the host,
 * window by window (a round's log-ratio SD 12.0% within a block: 85% of a block median's variance),
 * with 4 blocks (Student's t 1.6× a normal quantile); most help: twice the budget, or half the
 * pairs (about ±8.1%)`.
 */
function limitsText(l: IntervalLimitsRecord): string {
  const by = {
    host: `the host, window by window (a round's log-ratio SD ${pct(l.components.within, 1)} within a block: ${pct(l.withinShare)} of a block median's variance)`,
    processes: `the processes, block by block (their levels' SD ${pct(l.components.between, 1)}: ${pct(l.betweenShare)} of a block median's variance)`,
    blocks: `too few blocks to know the processes' spread`,
  }[l.setBy];
  const blocks =
    l.blocksFactor === null
      ? 'one block (no spread between processes measured)'
      : `${l.blocks} block${l.blocks === 1 ? '' : 's'} of ${l.rounds} round${l.rounds === 1 ? '' : 's'} (Student's t ${l.blocksFactor.toFixed(1)}× a normal quantile)`;
  const option = (o: IntervalLimitsRecord['options'][number]) =>
    o.change === 'budget'
      ? `twice the --budget, or half as many pairs (about ${fmtHalfWidth(o.halfWidth)})`
      : `time-sliced rounds: install wrk (apt-get install wrk; about ${fmtHalfWidth(o.halfWidth)})`;
  const best = l.options.find((o) => o.change === l.best);
  return `set by ${by}, with ${blocks}${best ? `; most help: ${option(best)}` : ''}`;
}

/** The sentence for a note, with the figures that raised it. */
export function noteText(n: Note): string {
  switch (n.kind) {
    case 'client-bound': {
      const [busiest, threshold] = pctApart(n.busiest, n.threshold);
      return `client-bound in ${n.windows} of ${n.of} windows (busiest loader core ${busiest}, over ${threshold}): that req/s is the load generator's ceiling, not the server's`;
    }
    case 'backend-bound': {
      const [busiest, threshold] = pctApart(n.busiest, n.threshold);
      return `backend-bound in ${n.windows} of ${n.of} windows (its busiest helper service used ${busiest} of a core, over ${threshold}): that req/s is the backend's limit, not the server's`;
    }
    case 'server-not-saturated': {
      const [share, threshold] = pctApart(n.share, n.threshold);
      return `server not saturated in ${n.windows} of ${n.of} windows (its process tree used ${share} of its ${n.cores} core${n.cores === 1 ? '' : 's'}, under ${threshold}, while the loader had room): the figure is bounded by waiting (upstream latency, a pool, a lock), not by the server's CPU`;
    }
    case 'client-bound-unknown':
      return `whether the load generator was the limit is unknown in ${n.windows} of ${n.of} windows: its CPU was not measured (a merged k6 run: the runners' logs do not carry their CPU)`;
    case 'loader-bound': {
      const [share, serverShare] = pctApart(n.share, n.serverShare);
      const [busiest, loaderBusy] = pctApart(n.busiest, n.loaderBusy);
      return `loader-bound in ${n.windows} of ${n.of} windows, judged by the server: its process tree used ${share} of its ${n.cores} core${n.cores === 1 ? '' : 's'} (under ${serverShare}) while the busiest loader core was at ${busiest} (over ${loaderBusy}): that req/s is the loader's figure, not the server's`;
    }
    case 'loader-floor-measuring':
      return `measuring the loader's round-trip floor at ${n.connections.join(', ')} connection${n.connections.length === 1 && n.connections[0] === 1 ? '' : 's'} (the driver against a trivial responder on the server's cores)`;
    case 'loader-floor-table':
      return `The run's driver against a trivial responder (${n.responder}) at each low connection count, after each block: the loader's own time per request, the kernel's loopback and the least a server can do. Each pair's loader share is its req/s ÷ this floor's.`;
    case 'loader-share':
      return (
        `the loader's share of the round trip was ${pct(n.share)} at ${n.connections} connection${n.connections === 1 ? '' : 's'} (its floor, against a trivial responder on the server's cores, ` +
        `${fmtRps(n.floorRps)} req/s; this target ${fmtRps(n.rps)}), over ${pct(n.threshold)}: the loader's own time is in every round trip, ` +
        `so a difference between targets here shows at about ${pct(1 - n.share)} of its size`
      );
    case 'verdict-bands': {
      const b = n.bands;
      return (
        `verdict: the CoV of a pair's headline figure over its blocks (fresh processes; the windows' CoV within blocks when one block ran) — ` +
        `under ${pct(b.excellent)} Excellent, under ${pct(b.acceptable)} Acceptable, up to ${pct(b.noisy)} Noisy, above Unreliable; ` +
        `the run's verdict is the band that at least ${pct(n.share)} of its pairs reach or beat`
      );
    }
    case 'run-verdict': {
      const v = n.verdict;
      if (!v) return 'no pair had a figure to judge';
      const total = Object.values(v.pairs).reduce((a, b) => a + b, 0);
      const shares = (Object.keys(v.pairs) as VerdictBand[]).filter((b) => v.pairs[b] > 0).map((b) => `${v.pairs[b]} ${VERDICT_WORDS[b]} (${pct(v.pairs[b] / total)})`);
      return `${VERDICT_WORDS[v.band]} — of ${total} pair${total === 1 ? '' : 's'}, ${shares.join(', ')}; ${verdictAdvice(v, n.bands)}`;
    }
    case 'interval-limits':
      return limitsText(n.limits);
    case 'aa-control':
      return controlText(n.control);
    case 'design-bias':
      return designBiasText(n.bias);
    case 'warmup-served':
      return (
        `fresh processes served ${n.targets.map((t) => `${t.target} ${fmtInt(Math.round(t.median))}`).join(', ')} requests in their warm-ups (median per block)` +
        (n.served ? `; ${n.short} of ${n.cold} ended at the maximum before serving ${fmtInt(n.served)}` : `; ${n.short} of ${n.cold} ended at the maximum before steady`)
      );
    case 'young-generation':
      return n.mb === undefined || n.mb === 'default'
        ? "every Node target with the runtime's own young-generation sizing: V8 grows it under load, so a process was measured at some point of that growth (a figure partly of GC state, not of the framework)"
        : `every Node target, the reference included, started with V8's young generation fixed at ${n.mb} MB (--min-semi-space-size=${n.mb} --max-semi-space-size=${n.mb}), the size a long-running server reaches: measured in that state from its first request (--young-generation default for the runtime's own sizing)`;
    case 'memory-reducer':
      return n.reducer === 'off'
        ? "V8's memory reducer off in every Node target (--no-memory-reducer): no heap shrinking while a process waits for its slot, as a loaded server never waits (--memory-reducer default for the runtime's own)"
        : "V8's memory reducer on (the runtime's own): a process may shrink its heap while it waits for its slot, so it was measured in a heap state its idle moments drew";
    case 'host-disturbed':
      return n.windows
        ? `${n.windows} of ${n.of} disturbed by the host beyond steal (${n.other} with another process on the measured cores, ${n.slowLoader} with the loader running slow), kept in the estimates`
        : 'none disturbed by the host beyond steal (no other process on the measured cores, the loader never slow)';
    case 'steal':
      return `CPU steal by the hypervisor averaged ${pct(n.mean, 1)} (worst window ${pct(n.max, 1)}); ${n.excluded} of ${n.of} windows were over ${pct(n.threshold)} and were left out of the estimates (kept in the raw data)`;
    case 'not-pinned':
      return `server and load generator were not pinned to separate cores (${n.reason ?? 'no reason recorded'}): they competed for the same CPUs`;
    case 'budget-changed':
      return `the minimum design (about ${fmtDuration(Math.round(n.givenMinimumSec))}) does not fit the ${fmtDuration(n.budgetSec)} budget: ${n.changes.map(budgetChangeText).join('; ')}`;
    case 'budget-over':
      return (
        `even the smallest design needs about ${fmtDuration(Math.round(n.minimumSec))}, ${fmtDuration(Math.round(n.overBySec))} over the ${fmtDuration(n.budgetSec)} budget: ` +
        `the run will overrun it; give --budget ${Math.ceil(n.minimumSec / 60)}m or fewer scenarios or targets`
      );
    case 'budget-replanned': {
      const c = n.change;
      return (
        `from ${fmtDuration(c.atSec ?? 0)} on, ${budgetChangeText(c)}: ${c.scenario ?? 'a scenario'}'s blocks took longer than planned, ` +
        'and without it that scenario would have stopped below its minimum of blocks'
      );
    }
    case 'step-failed': {
      const where = [n.scenario, n.target].filter(Boolean).join(' × ') + (n.block ? ` block ${n.block}` : '');
      return `${where ? `${where}: ` : ''}${STEP_WORDS[n.step]} failed, the run goes on without it: ${n.message}`;
    }
    case 'windows-lengthened':
      return (
        `${n.scenario}: windows lengthened from ${n.fromSec.toFixed(2)} s to ${n.toSec.toFixed(2)} s in block ${n.block}, so that each of ` +
        `${n.connections} connections gets at least ${n.minResponses} responses at the latency ${n.block > 1 ? "the warm-up and the scenario's earlier blocks saw" : 'the warm-up saw'}`
      );
    case 'interrupting':
      return `${n.signal}: stopping after the current window and writing the results so far (again to quit at once)`;
    case 'driver-choice':
      return `driver ${n.driver}: ${n.reason}`;
    case 'resume': {
      const r = n.replayed;
      const load = Object.keys(n.overrides).length ? `overrides ${JSON.stringify(n.overrides)}` : 'no load overrides';
      const on = (b: boolean) => (b ? 'on' : 'off');
      const count = (k: number, one: string, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;
      return `resume: replaying ${count(r.windows, 'window')}, ${count(r.blocks, 'block')}, ${count(r.checks, 'check')} and ${count(r.costs, 'cost figure')} from ${n.dir}; continuing with seed ${n.seed}, driver ${n.driver}, ${load}, verify ${on(n.verify)}, pinning ${on(n.pinning)}, costs ${on(n.costs)}`;
    }
    case 'precision-not-met':
      return `precision ±${pct(n.reached, 1)} reached, target ±${pct(n.target, 1)} (${n.reason})`;
    case 'warmup-not-steady':
      return n.served
        ? `${n.target}: warm-up reached its maximum before serving ${fmtInt(n.served)} requests in ${n.blocks} of ${n.of} blocks`
        : `${n.target}: warm-up reached its maximum without steady req/s (within ±${pct(n.tolerance)}) in ${n.blocks} of ${n.of} blocks`;
    case 'failed-windows':
      return `${n.windows} of ${n.of} windows failed (see the raw windows for each failure)`;
    case 'relative-figures':
      return `relative figures are ratios to ${n.reference} measured side by side in this run: ${methodSentences(n.method).sideBySide}, so drift of the host hits all of them alike and cancels in the ratio; they hold for this machine and run (use \`benchsuite compare\` across runs)`;
    case 'capacity-figures':
      return "capacities are each target's own req/s, not ratios: each block's search ran on fresh processes of that target alone, and the interval is over blocks; they hold for this machine at this hour, so compare targets within this run, never with another run's capacities";
    case 'noise-labels':
      return `noise: quiet = window-to-window req/s varied by at most ${pct(n.noisyWindowCov)} (CoV within blocks) with little steal; noisy = it varied more; disturbed = windows were left out for CPU steal over ${pct(n.stealThreshold)}, or steal averaged over ${pct(n.disturbedSteal)}`;
    case 'stop-reason':
      return n.reason === 'precision'
        ? 'every headline figure reached the precision target'
        : n.reason === 'budget'
          ? 'the time budget ran out'
          : n.reason === 'max-blocks'
            ? `the maximum of ${n.blocks} blocks was reached`
            : n.reason === 'interrupted'
              ? 'the run was interrupted'
              : 'no target could be measured';
    case 'stopped':
      return (
        `${n.scenario}: stopped after ${n.blocks} block${n.blocks === 1 ? '' : 's'} (${n.rounds} rounds): ${noteText({ kind: 'stop-reason', reason: n.reason, blocks: n.blocks })}` +
        (n.worst === null ? '' : ` (worst ±${pct(n.worst, 1)}, target ±${pct(n.target, 1)})`)
      );
    case 'single-block':
      return `${n.scenario}: one block (one server process per target) was run, so its intervals leave out the variation between server processes`;
    case 'interrupted':
      return 'the run was interrupted: windows that did not run are absent (`benchsuite run --resume DIR` continues it)';
    case 'instruction-rule':
      return `instruction counts are compared without a bootstrap: head ÷ base of the median over fresh processes is a regression above ${+(1 + n.thresholdPct / 100).toFixed(4)} and an improvement below ${+(1 - n.thresholdPct / 100).toFixed(4)}, unless three times the larger spread between processes exceeds ${+n.thresholdPct.toFixed(2)}% (then the count is too unstable to gate); counts made with another warm-up, request count or runtime flags are not compared`;
    case 'regression-rule': {
      const t = n.thresholdPct / 100;
      return (
        `the change is head ÷ base of each pair's headline figure (throughput relative to the reference; the reference's own median req/s), with a 95% bootstrap interval over rounds; ` +
        `a regression is a change whose interval lies wholly below ${+(1 - t).toFixed(4)} (a drop of more than ${+n.thresholdPct.toFixed(2)}% that the noise cannot explain), an improvement one wholly above ${+(1 + t).toFixed(4)}; ` +
        `changes within ±${pct(n.band ?? DEFAULTS.practicalBand, 1)} count as no change`
      );
    }
    case 'incomparable':
      return `the two results were measured on environments that differ in ${n.fields.join(', ')}: a change would measure the machine, not the code (--force compares them anyway)`;
    case 'forced-comparison':
      return `compared although the environments differ in ${n.fields.join(', ')}: the changes may measure the machine, not the code`;
    case 'warmup-not-steady-targets': {
      // Targets with the same count share one parenthesis: `node-http, koa (1 of 1 blocks); express (1 of 2 blocks)`.
      const groups = new Map<string, string[]>();
      for (const t of n.targets) {
        const key = `${t.blocks} of ${t.of} block${t.of === 1 ? '' : 's'}`;
        groups.set(key, [...(groups.get(key) ?? []), t.target]);
      }
      const which = [...groups].map(([k, ts]) => `${ts.join(', ')} (${k})`).join('; ');
      return n.served ? `warm-up reached its maximum before serving ${fmtInt(n.served)} requests for: ${which}` : `warm-up not steady within ±${pct(n.tolerance)} for: ${which}`;
    }
    case 'precision-not-met-targets':
      return `precision target ±${pct(n.target, 1)} not reached by: ${n.targets.map((t) => `${t.target} ±${pct(t.reached, 1)}`).join(', ')} (${n.reason})`;
    case 'profile-shares':
      return (
        "profiles: after a scenario's blocks, each target ran once more on a fresh process, one window of it under a sampling CPU profiler (never part of an estimate); " +
        'shares are of the CPU time it saw busy, idle left out: self = the function (or package) on top of the stack, total = anywhere on it'
      );
    case 'profile-cost':
      return n.ratio === null
        ? "the profiler's cost is unknown: the unprofiled windows around the profiled one served no requests"
        : `the profiled window ran at ${n.ratio.toFixed(2)}× the unprofiled req/s (${Math.round(n.profiled).toLocaleString('en-US')} vs ${Math.round(n.unprofiled).toLocaleString('en-US')} req/s, same process): the profiler's cost`;
    case 'profile-missing':
      return n.status === 'unavailable'
        ? `${n.target}: not profiled, ${n.profiler === 'none' ? '' : `profiler ${n.profiler} unavailable: `}${n.reason ?? 'no reason given'}`
        : `${n.target}: profiling with ${n.profiler} failed: ${n.reason ?? 'no reason given'}`;
    case 'capacity-loader-bound': {
      const each = n.pairs.map(
        (p) =>
          `${p.target} on ${p.scenario} ${p.capacity === null ? 'none met' : `≥ ${Math.round(p.capacity).toLocaleString('en-US')}`}, loader-bound at ${Math.round(p.at).toLocaleString('en-US')} req/s`,
      );
      const how = (n.evidence?.length ? n.evidence : (['busy'] as const)).map((e) => EVIDENCE_WORDS[e]).join('; or ');
      return (
        `the open-loop loader (${n.driver}) was the limit of ${n.pairs.length} capacity search${n.pairs.length === 1 ? '' : 'es'} (${each.join('; ')}): ` +
        `${how}, while the server had room, so those capacities are lower bounds, not the servers' figures; ` +
        (n.driver === 'oha' ? 'more loader cores would be needed to find them' : 'a faster open-loop engine (oha: benchsuite setup oha) or more loader cores would be needed to find them')
      );
    }
    case 'capacity-blocks-failed': {
      const each = n.blocks.map((b) => `${b.target} on ${b.scenario}, block ${b.block}: ${b.message}`);
      return (
        `${n.blocks.length} capacity block${n.blocks.length === 1 ? '' : 's'} failed (${each.join('; ')}): ` +
        'their searches did not finish, so the capacities stand on the other blocks only, and the run exits 1'
      );
    }
    case 'capacity-steal':
      return (
        `${n.repeated} capacity probe${n.repeated === 1 ? ' was' : 's were'} not judged: CPU steal over ${pct(n.threshold)}, probed again at the same rate` +
        (n.judged ? `; ${n.judged} still over it after the repeats ${n.judged === 1 ? 'was' : 'were'} judged as measured` : '')
      );
    case 'profile-no-stacks':
      return n.file
        ? `no flame graph: it is drawn from the collapsed stacks in ${n.file} next to results.json, which were not given to the report (\`benchsuite report results.json\` reads them from there)`
        : 'no flame graph: the run kept no collapsed stacks (it had no output folder)';
  }
}

/**
 * The A/A control as the run's noise floor: `node-http.twin ÷ node-http (a second process of the
 * reference in every block) read 1.012 [0.962, 1.065] on baseline, …; every interval holds 1; one
 * process's own level varies by 4.1% [2.3%, 15.2%] (SD, 3 df)`.
 */
function controlText(c: ControlRecord): string {
  const per = c.scenarios.map((s) => `${fmtEstimate(s.ratio, fmtRatio)} on ${s.scenario}`).join(', ');
  const missed = c.scenarios.filter((s) => s.containsOne === false).map((s) => s.scenario);
  const holds =
    c.holds === null
      ? 'no interval yet (one block)'
      : missed.length
        ? `${missed.length} of ${c.scenarios.length} intervals miss 1 (${missed.join(', ')}): expect about 1 in 20 by chance; more says this run's intervals are too narrow`
        : 'every interval holds 1, as it should';
  const sd = c.processSd
    ? `; one process's own level varies by ${fmtPct(c.processSd.point, 1)}${c.processSd.ci95 ? ` [${fmtPct(c.processSd.ci95[0], 1)}, ${fmtPct(c.processSd.ci95[1], 1)}]` : ''} (SD, ${c.processSd.df} df): the floor under every ratio's spread between blocks`
    : '';
  return `${c.twin} ÷ ${c.reference} (a second process of the reference in every block) read ${per}; ${holds}${sd}`;
}

const factorText = (e: { point: number; ci95: [number, number] | null } | null): string => (e ? `${e.point.toFixed(3)}${e.ci95 ? ` [${e.ci95[0].toFixed(3)}, ${e.ci95[1].toFixed(3)}]` : ''}` : '—');

/**
 * Flagged slot factors said one by one with their intervals up to this many; beyond it, in one
 * clause with their range and names (a default run of 2026-12-03 flagged nine, and the line ran to
 * 870 characters). A round-1 flag is always said with its own: it changes an estimate.
 */
const SLOT_FLAGS_WITH_INTERVALS = 3;

/**
 * The design-bias check: `round 1 ÷ later rounds 0.994 [0.985, 1.003] (mean over 6 blocks); a
 * slot's first half ÷ its second 0.97–1.01 by target, on the ratios 0.995–1.004; flagged (beyond
 * ±1%, interval excluding 1): koa/json-post round 1 0.951 [0.92, 0.98]`.
 */
function designBiasText(b: DesignBiasRecord): string {
  const parts: string[] = [];
  const o = b.roundOne.overall;
  if (o)
    parts.push(
      `round 1 ÷ the block's later rounds ${factorText(o)} (${b.roundOne.overallOver === 'blocks' ? `the pairs' ratios to the reference, mean over ${o.n} blocks` : `mean over ${o.n} pairs' ratios to the reference`})`,
    );
  const halves = b.slotHalves.targets.map((t) => t.firstHalf?.point).filter((x): x is number => x !== undefined);
  const on = b.slotHalves.pairs.map((p) => p.onRatio);
  if (halves.length) {
    const span = (xs: number[]) => (Math.min(...xs) === Math.max(...xs) ? xs[0]!.toFixed(3) : `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}`);
    parts.push(`a slot's first half ÷ its second ${span(halves)} by target${on.length ? `, a factor of ${span(on)} on the ratios` : ''}`);
  }
  const slotFlags = b.slotHalves.pairs.filter((p) => p.flagged);
  const flags = [
    ...b.roundOne.pairs.filter((p) => p.flagged).map((p) => `${p.target}/${p.scenario} round 1 ${factorText(p.roundOne)} (not steady: left out of its estimate)`),
    ...(slotFlags.length > SLOT_FLAGS_WITH_INTERVALS
      ? [
          `slots of ${slotFlags.length} pairs, ×${Math.min(...slotFlags.map((p) => p.onRatio)).toFixed(3)}–×${Math.max(...slotFlags.map((p) => p.onRatio)).toFixed(3)} (${slotFlags.map((p) => `${p.target}/${p.scenario}`).join(', ')}; each with its interval in results.json, designBias.slotHalves)`,
        ]
      : slotFlags.map((p) => `${p.target}/${p.scenario} slots ×${factorText({ point: p.onRatio, ci95: p.ci95 ?? null })}`)),
  ];
  parts.push(flags.length ? `flagged (beyond ±${pct(b.flag)}, the interval excluding 1): ${flags.join(', ')}` : `no pair beyond ±${pct(b.flag)}`);
  return parts.join('; ');
}
