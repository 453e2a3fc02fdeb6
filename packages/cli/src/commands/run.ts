import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  METHOD_NAMES,
  MEMORY_REDUCER_MODES,
  type MemoryReducerMode,
  methodSentences,
  type MethodName,
  BenchsuiteConfigError,
  DEFAULTS,
  isReplica,
  DriverUnusableError,
  QUICK,
  drivers,
  driverNames,
  parseRuntime,
  unusableDir,
  planOptions,
  planSuiteRun,
  diffPlans,
  readPlan,
  runSuite,
  stopAllProcesses,
  type BenchResult,
  type BenchsuiteConfig,
  type DesignOptions,
  type LoadOverrides,
  type PlanAsk,
  type RunPlan,
  type RunSuiteOptions,
  type SuiteRunPlan,
} from '@benchsuite/sdk';
import { budgetTexts, noteText, runHeaderFacts, stoppingText, warmupText, type RenderOptions, type RunOutlook } from '@benchsuite/report';
import { closest, defineCommand, kebab, type FlagValues } from '../_cli.js';
import { availableSuites, builtinSuites, DEFAULT_SUITE, loadConfig, pick, validateConfig } from '../_config.js';
import { EXIT, UsageError } from '../_errors.js';
import { useColor, writeFileAtomic, type CommandIO } from '../_io.js';
import { createProgress } from '../_progress.js';
import { readProfileStacks } from '../_results.js';
import { formatPercent, formatSeconds, parseConnections, parseDuration, parseFraction, parseInteger, parseNames, parseRange, parseThresholdFlag, ValueError } from '../_values.js';

const text = (raw: string) => {
  if (!raw.trim()) throw new ValueError('expected a value, got ""');
  return raw;
};
const driverName = (raw: string) => {
  if (!(driverNames as readonly string[]).includes(raw)) throw new ValueError(`expected one of ${driverNames.join(', ')}, got "${raw}"`);
  return raw;
};
const PROCESS_MODES = ['per-scenario', 'shared'] as const;
const processesMode = (raw: string): (typeof PROCESS_MODES)[number] => {
  if (!(PROCESS_MODES as readonly string[]).includes(raw)) throw new ValueError(`expected per-scenario or shared, got "${raw}"`);
  return raw as (typeof PROCESS_MODES)[number];
};
const methodName = (raw: string): MethodName => {
  if (!(METHOD_NAMES as readonly string[]).includes(raw)) throw new ValueError(`expected ${METHOD_NAMES.join(' or ')}, got "${raw}"`);
  return raw as MethodName;
};
const youngGeneration = (raw: string): number | 'default' => {
  if (raw === 'default') return 'default';
  const mb = Number(raw);
  if (!Number.isInteger(mb) || mb < 1 || mb > 1024) throw new ValueError(`expected a size in MB (1–1024) or default, got "${raw}"`);
  return mb;
};
const memoryReducer = (raw: string): MemoryReducerMode => {
  if (!(MEMORY_REDUCER_MODES as readonly string[]).includes(raw)) throw new ValueError(`expected ${MEMORY_REDUCER_MODES.join(' or ')}, got "${raw}"`);
  return raw as MemoryReducerMode;
};
const replicaCount = (raw: string): number => {
  const k = Number(raw);
  if (!Number.isInteger(k) || k < 1 || k > 8) throw new ValueError(`expected a whole number of processes per target from 1 to 8, got "${raw}"`);
  return k;
};
const CONTROLS = ['aa', 'none'] as const;
const controlName = (raw: string): (typeof CONTROLS)[number] => {
  if (!(CONTROLS as readonly string[]).includes(raw)) throw new ValueError(`expected aa or none, got "${raw}"`);
  return raw as (typeof CONTROLS)[number];
};
const runtimeList = (raw: string) => {
  const specs = raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (!specs.length) throw new ValueError('expected runtimes like node@22,bun,deno');
  for (const sp of specs) {
    try {
      parseRuntime(sp);
    } catch (err) {
      throw new ValueError((err as Error).message);
    }
  }
  return specs;
};
const range = (r: { min: number; max: number }) => `${r.min},${r.max}`;
const { stepSettleSec: QUICK_SETTLE, ...QUICK_DESIGN } = QUICK;
const quickSummary = `${formatSeconds(QUICK.windowSec)} windows, ${QUICK.rounds.max} rounds, ${QUICK.blocks.max} block, ${formatSeconds(QUICK.warmup.maxSec)} warm-up`;

/**
 * The flags of `benchsuite run`: the one table the parser, `--help` and docs/cli.md's flag table
 * are generated from. Defaults come from the SDK's DEFAULTS, never restated.
 */
export const runFlags = {
  suite: {
    type: 'value',
    short: 's',
    value: 'NAME',
    parse: text,
    help: 'suite to run: framework, gateway, python, or one from benchsuite.config.ts',
    default: `${DEFAULT_SUITE}, or the config's first suite`,
  },
  scenario: { type: 'value', value: 'A,B', parse: parseNames, repeatable: true, help: 'only these scenarios (names are checked)' },
  target: { type: 'value', value: 'X,Y', parse: parseNames, repeatable: true, help: 'only these targets (names are checked)' },
  connections: { type: 'value', short: 'c', value: 'N', parse: parseConnections, help: 'connections for every scenario, or a stepped list like 10,50,100', default: "each scenario's own" },
  duration: {
    type: 'value',
    short: 'd',
    value: 'S',
    parse: (r: string) => parseDuration(r, { exclusive: true }),
    help: 'measured length of each window: 10s, 500ms, 1.5 (seconds)',
    default: formatSeconds(DEFAULTS.windowSec),
  },
  requests: {
    type: 'value',
    value: 'N',
    parse: (r: string) => parseInteger(r, { min: 1 }),
    help: `send exactly N requests per window (per connection step) instead of running for --duration, as h2load -n does; with -c 1 a sequential run (needs a driver that can: ${Object.values(drivers)
      .filter((d) => d.capabilities.fixedRequests)
      .map((d) => d.name)
      .join(', ')})`,
  },
  warmup: {
    type: 'value',
    short: 'w',
    value: 'S',
    parse: (r: string) => parseDuration(r),
    help: `settle time before each window of a stepped load (later steps: ${formatSeconds(DEFAULTS.laterStepSettleSec)}, or S if shorter; each block warms up until steady anyway)`,
    default: formatSeconds(DEFAULTS.stepSettleSec),
  },
  precision: {
    type: 'value',
    value: 'PCT',
    parse: (r: string) => parseFraction(r),
    help: "stop adding blocks once every relative figure's 95% interval is within ±PCT: 2% or 0.02",
    default: formatPercent(DEFAULTS.precision),
  },
  budget: {
    type: 'value',
    value: 'TIME',
    parse: (r: string) => parseDuration(r, { exclusive: true }),
    help: 'wall-clock budget of the run: 20m, 90s; blocks stop being added when it is spent',
    default: formatSeconds(DEFAULTS.budgetSec),
  },
  rounds: { type: 'value', value: 'MIN[,MAX]', parse: parseRange, help: 'rounds per block (each measures every target once, in a seeded random order)', default: range(DEFAULTS.rounds) },
  blocks: { type: 'value', value: 'MIN[,MAX]', parse: parseRange, help: 'blocks per scenario (each starts fresh server processes)', default: range(DEFAULTS.blocks) },
  processes: {
    type: 'value',
    value: 'MODE',
    parse: processesMode,
    help: "per-scenario: each scenario's block starts its own fresh processes; shared: a block's fresh processes serve every scenario in turn, in a seeded order per block (warmed from cold once per block)",
    default: DEFAULTS.processes,
  },
  method: {
    type: 'value',
    value: 'NAME',
    parse: methodName,
    help: METHOD_NAMES.map((name) => `${name}: ${methodSentences(name).help}`).join('; '),
    default: `${DEFAULTS.method} (sequential with a driver that cannot slice)`,
  },
  youngGeneration: {
    type: 'value',
    value: 'MB',
    parse: youngGeneration,
    help: "V8's young generation (semi-space) of every Node target, the reference included, fixed at MB from the first request: the size a long-running server reaches; default: the runtime's own sizing, which grows it under load",
    default: `${DEFAULTS.youngGenerationMb}`,
  },
  memoryReducer: {
    type: 'value',
    value: 'MODE',
    parse: memoryReducer,
    help: "V8's memory reducer in every Node target, the reference included. off (--no-memory-reducer): no heap shrinking while a process waits for its slot, as a loaded server never waits; default: the runtime's own",
    default: DEFAULTS.memoryReducer,
  },
  control: {
    type: 'value',
    value: 'KIND',
    parse: controlName,
    help: "aa: the reference also runs as a second process in every block, the run's A/A control (its ratio should be 1; its spread is the processes' own noise); none: not",
    default: DEFAULTS.control.kind,
  },
  replicas: {
    type: 'value',
    value: 'K',
    parse: replicaCount,
    help: "processes of every target in each block, each in its own slot of a round; a round's figure of a target is the geometric mean over its processes (replicas nested in blocks: intervals keep blocks − 1 degrees of freedom)",
    default: `${DEFAULTS.replicas}`,
  },
  reference: { type: 'value', value: 'NAME', parse: text, help: 'target the relative figures are measured against', default: `${DEFAULTS.reference} when present, else the first target` },
  stealThreshold: {
    type: 'value',
    value: 'PCT',
    parse: (r: string) => parseFraction(r),
    help: 'a window with more CPU steal stays in the raw data but is left out of the estimates and replaced',
    default: formatPercent(DEFAULTS.stealThreshold),
  },
  driver: {
    type: 'value',
    value: 'NAME',
    parse: driverName,
    help: `load generator: ${driverNames.join(', ')}; auto picks the available one with the highest ceiling (for --open-loop and --slo, the highest measured open-loop ceiling), or for --requests and loads of ${DEFAULTS.lowConnections} connections or fewer the one with the lowest time per request`,
    default: 'auto',
  },
  seed: { type: 'value', value: 'N', parse: (r: string) => parseInteger(r), help: 'seed of the round order and the bootstrap (recorded in the result)', default: 'random' },
  out: { type: 'value', short: 'o', value: 'DIR', parse: text, help: 'output folder', default: 'benchsuite-results/<timestamp>_<suite>' },
  resume: { type: 'value', value: 'DIR', parse: text, help: 'continue the interrupted run in DIR with its seed, plan and design; nothing finished runs again' },
  config: { type: 'value', value: 'FILE', parse: text, help: 'config file', default: './benchsuite.config.ts, .mts, .js or .mjs' },
  rate: { type: 'value', value: 'N', parse: (r: string) => parseInteger(r, { min: 1 }), help: 'offered requests per second for every scenario (closed loop unless --open-loop)' },
  openLoop: { type: 'switch', help: 'open loop: send at --rate on a fixed schedule whatever the server does, latency also timed from each intended send (an open-loop driver: oha, vegeta or k6)' },
  runtime: {
    type: 'value',
    value: 'LIST',
    parse: runtimeList,
    repeatable: true,
    help: "run every Node server on each runtime too, as <target>@<runtime>: node@22, node@24, bun, deno (installed from the npm registry into the tool's cache; the host's Node is always the baseline)",
  },
  threshold: {
    type: 'value',
    value: 'EXPR',
    parse: parseThresholdFlag,
    repeatable: true,
    help: `pass/fail checks on every pair's merged figures, e.g. p99<50ms,errors<0.1%,rps>20000; a failed one exits ${DEFAULTS.thresholdExitCode}`,
  },
  slo: {
    type: 'value',
    value: 'EXPR',
    parse: parseThresholdFlag,
    help: 'capacity run: the highest open-loop rate per target that meets this SLO, e.g. p99<50ms,errors<0.1%, in at least 3 blocks; a capacity the loader could not reach is marked loader-bound (≥) (an open-loop driver: oha, vegeta or k6)',
  },
  profile: { type: 'switch', help: 'after each scenario, profile every target for one extra window (never in the estimates): top functions, time by package, collapsed stacks' },
  history: { type: 'switch', help: "add the finished run to the history (`benchsuite history`); report.html then draws each pair's series with its change points" },
  db: { type: 'value', value: 'PATH', parse: text, help: "with --history: the history's SQLite file", default: '<tool cache>/history.sqlite' },
  instructions: {
    type: 'switch',
    help: `after each scenario, count user-space instructions per request under valgrind's callgrind on ${DEFAULTS.instructions.processes} fresh processes per target (deterministic, kernel work excluded; Node and Python targets)`,
  },
  quick: { type: 'switch', help: `smoke run that checks the plumbing, not a figure to publish: ${quickSummary}` },
  dryRun: { type: 'switch', short: 'n', help: 'print the plan (scenarios, targets, reference, design, budget, driver) and exit without starting anything' },
  json: { type: 'switch', help: 'print only the result JSON on stdout; progress and summary stay on stderr' },
  costs: { type: 'switch', help: `also measure startup (median of ${DEFAULTS.startups} cold starts), idle RSS/PSS of the process tree and artifact size`, default: 'on for gateway and python' },
  verify: { type: 'switch', negatable: true, help: 'skip sending each scenario once to each target and checking the answer before any load' },
  pin: { type: 'switch', negatable: true, help: 'skip pinning servers and load generator to separate cores (taskset)' },
  trials: {
    type: 'removed',
    message: 'there are no trials any more: a run is rounds of short paired windows in blocks of fresh server processes; use --rounds MIN[,MAX], --blocks MIN[,MAX] or --precision PCT',
  },
} as const;

export type RunFlags = FlagValues<typeof runFlags>;

/** The plan of the run in DIR, read by the SDK; a finished run is refused. */
function readRunPlan(dir: string): RunPlan {
  let plan: RunPlan;
  try {
    plan = readPlan(dir);
  } catch (err) {
    if (err instanceof BenchsuiteConfigError) throw new UsageError(`--${err.message}`);
    throw err;
  }
  const results = join(dir, 'results.json');
  if (existsSync(results)) {
    try {
      if ((JSON.parse(readFileSync(results, 'utf8')) as { interrupted?: boolean }).interrupted === false) throw new UsageError(`--resume: the run in ${dir} finished; there is nothing to resume`);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      // An unreadable results.json was cut short by a kill: the run did not finish.
    }
  }
  return plan;
}

/**
 * Flags given with `--resume` that contradict the run's plan, each with the plan's value. A flag
 * that asks what the plan already holds is fine; `fresh` is what the flags would ask of a new run.
 * Each flag says which facts of a plan it asks (`diffPlans` compares them) and how the plan's reads.
 */
function contradictions(flags: RunFlags, plan: RunPlan, fresh: { design: DesignOptions; overrides: LoadOverrides }, cwd: string): string[] {
  const { design: d, options: o } = plan;
  const ov = o.overrides;
  const fd = fresh.design;
  const fo = fresh.overrides;
  const asks: Array<[keyof RunFlags, PlanAsk, unknown]> = [
    ['suite', { suite: flags.suite }, plan.suite],
    ['scenario', { scenarios: flags.scenario }, plan.scenarios.join(',')],
    ['target', { targets: flags.target }, plan.targets.join(',')],
    ['connections', { overrides: { connections: fo.connections } }, ov.connections ?? "each scenario's own"],
    ['duration', { overrides: { duration: fo.duration } }, ov.duration ?? 'the design window'],
    ['warmup', { overrides: { warmup: fo.warmup } }, ov.warmup ?? 'the default settle'],
    ['requests', { overrides: { requests: fo.requests } }, ov.requests ?? 'timed windows'],
    ['rate', { overrides: { rate: fo.rate } }, ov.rate ?? 'unlimited'],
    ['openLoop', { overrides: { openLoop: fo.openLoop } }, ov.openLoop ? 'open loop' : 'closed loop'],
    ['precision', { design: { precision: fd.precision } }, d.precision],
    ['budget', { design: { budgetSec: fd.budgetSec } }, `${d.budgetSec} s`],
    ['rounds', { design: { rounds: fd.rounds } }, JSON.stringify(d.rounds)],
    ['blocks', { design: { blocks: fd.blocks } }, JSON.stringify(d.blocks)],
    ['processes', { design: { processes: fd.processes ?? DEFAULTS.processes } }, d.processes],
    ['method', { design: { method: fd.method ?? DEFAULTS.method } }, d.method],
    ['reference', { design: { reference: fd.reference } }, d.reference],
    ['youngGeneration', { design: { youngGenerationMb: fd.youngGenerationMb ?? DEFAULTS.youngGenerationMb } }, d.youngGenerationMb ?? 'default'],
    ['memoryReducer', { design: { memoryReducer: fd.memoryReducer ?? DEFAULTS.memoryReducer } }, d.memoryReducer ?? 'default'],
    ['control', { design: { control: fd.control ?? DEFAULTS.control.kind } }, d.control ?? 'none'],
    ['replicas', { design: { replicas: fd.replicas ?? DEFAULTS.replicas } }, d.replicas ?? 1],
    ['stealThreshold', { design: { stealThreshold: fd.stealThreshold } }, d.stealThreshold],
    ['driver', { driver: flags.driver }, plan.driver],
    ['seed', { seed: flags.seed }, plan.seed],
    ['quick', { design: { windowSec: QUICK.windowSec, rounds: QUICK_DESIGN.rounds, blocks: QUICK_DESIGN.blocks } }, 'a full run'],
    ['costs', { options: { costs: flags.costs } }, o.costs ? 'on' : 'off'],
    ['verify', { options: { verify: flags.verify } }, o.verify ? 'on' : 'off'],
    ['pin', { options: { pinning: flags.pin !== false } }, o.pinning === false ? 'off' : 'on'],
    ['profile', { options: { profile: flags.profile } }, o.profile ? 'on' : 'off'],
    ['instructions', { options: { instructions: flags.instructions } }, o.instructions ? 'on' : 'off'],
    ['threshold', { options: { thresholds: flags.threshold } }, (o.thresholds ?? []).join(',') || 'none'],
    ['slo', { options: { slo: flags.slo?.[0] } }, o.slo ?? 'none'],
    ['runtime', { options: { runtimes: flags.runtime } }, (o.runtimes ?? []).join(',') || "the host's Node only"],
  ];
  const flagName = (k: keyof RunFlags) => (k === 'verify' ? (flags.verify ? '--verify' : '--no-verify') : k === 'pin' ? (flags.pin ? '--pin' : '--no-pin') : `--${kebab(k)}`);
  const contradicting: Array<[keyof RunFlags, unknown]> = asks.filter(([k, ask]) => flags[k] !== undefined && diffPlans(plan, ask).length > 0).map(([k, , planned]) => [k, planned]);
  // Not a fact of the plan: --out names another folder than the one resumed.
  if (flags.out !== undefined && resolve(cwd, flags.out) !== resolve(cwd, flags.resume ?? '')) contradicting.push(['out', 'the folder being resumed']);
  return contradicting.map(([k, planned]) => `--resume: ${flagName(k)} contradicts the run's plan (${String(planned)}); drop it to continue the run as planned`);
}

function timestamp(d = new Date()): string {
  return d.toISOString().replace(/[:.]/g, '-').replace('T', '_').slice(0, 19);
}

/** Design from the config, then `--quick`, then the flags; a single MIN keeps MAX at least MIN. */
function buildDesign(base: DesignOptions | undefined, flags: RunFlags): DesignOptions {
  const d: DesignOptions = { ...base, ...(flags.quick ? structuredClone(QUICK_DESIGN) : {}) };
  const widen = (r: { min: number; max?: number }, prev: { max?: number } | undefined, def: { max: number }) => ({ min: r.min, max: r.max ?? Math.max(r.min, prev?.max ?? def.max) });
  if (flags.rounds) d.rounds = widen(flags.rounds, d.rounds, DEFAULTS.rounds);
  if (flags.blocks) d.blocks = widen(flags.blocks, d.blocks, DEFAULTS.blocks);
  if (flags.processes !== undefined) d.processes = flags.processes;
  if (flags.method !== undefined) d.method = flags.method;
  if (flags.precision !== undefined) d.precision = flags.precision;
  if (flags.budget !== undefined) d.budgetSec = flags.budget;
  if (flags.stealThreshold !== undefined) d.stealThreshold = flags.stealThreshold;
  if (flags.reference !== undefined) d.reference = flags.reference;
  if (flags.youngGeneration !== undefined) d.youngGenerationMb = flags.youngGeneration;
  if (flags.memoryReducer !== undefined) d.memoryReducer = flags.memoryReducer;
  if (flags.control !== undefined) d.control = flags.control;
  if (flags.replicas !== undefined) d.replicas = flags.replicas;
  return d;
}

/** Flags whose values land in these option fields: the SDK's messages then name the flag the user typed. */
const FIELD_FLAGS: Record<string, keyof RunFlags> = {
  'design.reference': 'reference',
  'design.precision': 'precision',
  'design.budgetSec': 'budget',
  'design.rounds': 'rounds',
  'design.blocks': 'blocks',
  'design.processes': 'processes',
  'design.method': 'method',
  'design.stealThreshold': 'stealThreshold',
  'design.youngGenerationMb': 'youngGeneration',
  'design.memoryReducer': 'memoryReducer',
  'design.control': 'control',
  'design.replicas': 'replicas',
  'overrides.duration': 'duration',
  'overrides.warmup': 'warmup',
  'overrides.connections': 'connections',
  'overrides.requests': 'requests',
};
function nameFlag(issue: string, flags: RunFlags): string {
  for (const [field, flag] of Object.entries(FIELD_FLAGS)) {
    if (flags[flag] !== undefined && (issue.startsWith(`${field}:`) || issue.startsWith(`${field}.`))) return `--${kebab(flag)}${issue.slice(issue.indexOf(':'))}`;
  }
  return issue;
}

/** What the header and `--dry-run` say of the run before it starts, all from its plan (the sentences come from the report package). */
function outlook(p: Prepared): RunOutlook {
  const { plan } = p;
  return {
    suite: p.suite,
    scenarios: plan.scenarios.map((s) => s.name),
    // A target's replicas are its processes, not targets of their own.
    targets: plan.targets.filter((t) => !isReplica(t.name)).map((t) => t.name),
    reference: plan.design.reference,
    design: plan.design,
    windowSec: plan.outlook.windowSec,
    requests: plan.opts.overrides.requests,
    minimumSec: plan.outlook.budget.minimumSec,
    expectedHalfWidth: plan.outlook.budget.expectedHalfWidth,
    forecast: plan.outlook.budget.forecast,
    driver: { name: plan.driver.name, reason: plan.driver.reason },
    capacity: plan.outlook.capacity,
  };
}

/** Facts as aligned lines: `  label   text`. */
const factLines = (facts: ReadonlyArray<{ label: string; text: string | string[] }>, indent: string, width: number) =>
  facts.map((f) => `${indent}${f.label.padEnd(width)} ${Array.isArray(f.text) ? f.text.join('; ') : f.text}`);

interface Prepared {
  options: RunSuiteOptions & { outDir: string };
  suite: string;
  configFile: string | undefined;
  /** The plan of the interrupted run being resumed (`--resume`), as written in its folder. */
  resumed: RunPlan | undefined;
  /** The SDK's plan of the run: what the header and `--dry-run` print and what `runSuite` runs. */
  plan: SuiteRunPlan;
}

/** Everything `run` needs, validated as a whole: every problem in flags, config and selection is listed at once. */
export async function prepareRun(flags: RunFlags, cwd = process.cwd()): Promise<Prepared> {
  const plan = flags.resume !== undefined ? readRunPlan(resolve(cwd, flags.resume)) : undefined;
  const loaded = await loadConfig(flags.config, cwd);
  const config: BenchsuiteConfig | undefined = loaded ? validateConfig(loaded.raw, loaded.file) : undefined;

  const issues: string[] = [];
  const { suites, defaultSuite } = availableSuites(config);
  const suiteName = plan?.suite ?? flags.suite ?? defaultSuite;
  const suite = suites[suiteName];
  if (!suite) {
    throw new UsageError(
      plan
        ? `--resume: the run was of suite "${suiteName}", which is neither built in nor in ${loaded ? loaded.file : 'a config here'}; pass --config FILE`
        : `--suite: unknown "${suiteName}"${closest(suiteName, Object.keys(suites)) ? `; did you mean "${closest(suiteName, Object.keys(suites))}"?` : ''}; expected one of: ${Object.keys(suites).join(', ')}`,
    );
  }
  const scenarios = pick(suite.scenarios, plan?.scenarios ?? flags.scenario, plan ? 'the run plan: scenario' : '--scenario', issues);
  const targets = pick(suite.targets, plan?.targets ?? flags.target, plan ? 'the run plan: target' : '--target', issues);

  // Flag and config values were checked against the driver registry already.
  const driver = plan?.driver ?? flags.driver ?? config?.driver ?? 'auto';
  const freshDesign = buildDesign(config?.design, flags);
  const freshOverrides: LoadOverrides = {
    ...config?.overrides,
    ...(flags.quick ? { warmup: QUICK_SETTLE, duration: QUICK.windowSec } : {}),
    ...(flags.duration !== undefined ? { duration: flags.duration } : {}),
    ...(flags.warmup !== undefined ? { warmup: flags.warmup } : {}),
    ...(flags.connections !== undefined ? { connections: flags.connections } : {}),
    ...(flags.requests !== undefined ? { requests: flags.requests } : {}),
    ...(flags.rate !== undefined ? { rate: flags.rate } : {}),
    ...(flags.openLoop ? { openLoop: true } : {}),
  };
  if (plan) issues.push(...contradictions(flags, plan, { design: freshDesign, overrides: freshOverrides }, cwd));
  if (issues.length) throw new UsageError(issues, issues.length > 1 ? `${issues.length} problems` : undefined);
  // A resumed run asks exactly what its plan asked (the SDK reads the same plan).
  const planned = plan ? planOptions(plan) : undefined;
  const design = planned?.design ?? freshDesign;
  const overrides = planned?.overrides ?? freshOverrides;
  const outDir = plan ? resolve(cwd, flags.resume!) : resolve(cwd, flags.out ?? join('benchsuite-results', `${timestamp()}_${suiteName}`));
  const bad = unusableDir(outDir);
  if (bad) throw new UsageError(`${plan ? '--resume' : '--out'}: cannot write results to ${outDir}: ${bad}`);
  if (!plan && (existsSync(join(outDir, 'run.json')) || existsSync(join(outDir, 'windows.jsonl')))) {
    issues.push(`--out: ${outDir} already holds a run; \`benchsuite run --resume ${flags.out ?? outDir}\` continues it, or choose another folder`);
  }
  const seed = plan?.seed ?? flags.seed ?? config?.seed;
  const options: Prepared['options'] = {
    suite: suiteName,
    scenarios,
    targets,
    design,
    driver,
    ...(seed !== undefined ? { seed } : {}),
    overrides,
    outDir,
    resume: Boolean(plan),
    pinning: flags.pin === false ? false : (config?.pinning ?? 'auto'),
    verify: flags.verify ?? config?.verify ?? true,
    profile: flags.profile ?? config?.profile ?? false,
    // --instructions turns counting on; a config's own counts (an object) still apply.
    instructions: flags.instructions ? (typeof config?.instructions === 'object' ? config.instructions : true) : (config?.instructions ?? false),
    costs: flags.costs ?? config?.costs ?? suite.costs,
    ...((flags.threshold ?? config?.thresholds) ? { thresholds: flags.threshold ?? config?.thresholds } : {}),
    ...((flags.runtime ?? config?.runtimes) ? { runtimes: flags.runtime ?? config?.runtimes } : {}),
    ...((flags.slo?.[0] ?? config?.slo) !== undefined ? { slo: flags.slo?.[0] ?? config?.slo } : {}),
    ...planned,
  };
  // The SDK plans the run (validation, the design fitted to the budget, the driver, the forecast);
  // its messages are said with the flag the user typed. An unusable driver is a usage error too,
  // said only when nothing else was wrong.
  let suitePlan: SuiteRunPlan | undefined;
  try {
    suitePlan = await planSuiteRun(options);
  } catch (err) {
    if (!(err instanceof BenchsuiteConfigError)) throw err;
    if (!(err instanceof DriverUnusableError)) issues.push(...err.issues.map((i) => nameFlag(i, flags)));
    else if (!issues.length) throw new UsageError(err.message);
  }
  if (issues.length || !suitePlan) throw new UsageError(issues, issues.length > 1 ? `${issues.length} problems` : undefined);
  return { options, suite: suiteName, configFile: loaded?.file, resumed: plan, plan: suitePlan };
}

async function dryRun(p: Prepared, json: boolean, io: CommandIO): Promise<number> {
  const o = p.options;
  const { driver: d, design, outlook: planned } = p.plan;
  const plan = {
    suite: p.suite,
    config: p.configFile ?? null,
    resume: o.resume ?? false,
    scenarios: o.scenarios.map((s) => s.name),
    targets: p.plan.targets.map((t) => t.name),
    reference: design.reference,
    design,
    overrides: o.overrides ?? {},
    driver: { name: d.name, reason: d.reason },
    seed: o.seed ?? null,
    outDir: o.outDir,
    pinning: o.pinning,
    verify: o.verify,
    costs: o.costs,
  };
  if (json) {
    io.stdout(`${JSON.stringify(plan, null, 2)}\n`);
    return EXIT.ok;
  }
  // The header's lines, then what the plan holds beside them.
  const facts = runHeaderFacts(outlook(p));
  const at = (label: string) => facts.findIndex((f) => f.label === label) + 1;
  facts.splice(at('suite'), 0, { label: 'scenarios', text: plan.scenarios.join(', ') });
  // A capacity run's header says its own search, warm-up and length; the budget's fit is not its.
  if (p.options.slo === undefined) {
    facts.splice(at('budget'), 0, ...budgetTexts(planned.budget, design.budgetSec).map((text) => ({ label: '', text })));
    facts.splice(at('design'), 0, { label: 'warm-up', text: warmupText(design) }, { label: 'stopping', text: stoppingText(design) });
  }
  if (p.configFile || plan.resume) facts[0]!.text += `${p.configFile ? ` (${p.configFile})` : ''}${plan.resume ? ', resuming the run in the output folder' : ''}`;
  facts.push(
    { label: 'seed', text: String(plan.seed ?? 'random (recorded in the result)') },
    { label: 'output', text: plan.outDir },
    {
      label: 'options',
      text: `pinning ${plan.pinning === false ? 'off' : typeof plan.pinning === 'object' ? 'custom' : 'auto'}, verify ${plan.verify ? 'on' : 'off'}, costs ${plan.costs ? 'on' : 'off'}`,
    },
  );
  io.stdout([...factLines(facts, '', 10), '', 'nothing was started (--dry-run)', ''].join('\n'));
  return EXIT.ok;
}

/**
 * `results.json` first (so nothing later can lose it), then `history` if given (`--history`: add
 * the run, read its series back), then the reports.
 */
export async function writeOutputs(result: BenchResult, dir: string, io: CommandIO, history?: () => Promise<RenderOptions['history']>): Promise<string[]> {
  const file = join(dir, 'results.json');
  await writeFileAtomic(file, `${JSON.stringify(result, null, 2)}\n`);
  const files = [file];
  let series: RenderOptions['history'];
  try {
    series = await history?.();
  } catch (err) {
    io.stderr(`warning: the run was not added to the history (${(err as Error).message}); \`benchsuite history add ${file}\` adds it later\n`);
  }
  try {
    const { formats, RUN_REPORTS, stacksFilesOf } = await import('../_formats.js');
    const stacks = await readProfileStacks(file, stacksFilesOf(result));
    for (const name of RUN_REPORTS) {
      const out = join(dir, `report.${formats[name].extension}`);
      await writeFileAtomic(out, formats[name].render(result, { stacks, ...(series ? { history: series } : {}) }));
      files.push(out);
    }
  } catch (err) {
    io.stderr(`warning: reports not written (${(err as Error).message}); \`benchsuite report ${file}\` renders them later\n`);
  }
  return files;
}

async function summary(result: BenchResult, io: CommandIO): Promise<void> {
  try {
    const { renderTerminal } = await import('../_formats.js');
    io.stderr(`${renderTerminal(result, { color: useColor(io.stderrTTY, io.env) })}\n`);
  } catch (err) {
    io.stderr(`warning: no summary (${(err as Error).message})\n`);
  }
}

/** `--history`: add the run, then its pairs' series with their changes, and its machine's checks (A/A, round 1, forecasts), for the reports. */
async function addRunToHistory(result: BenchResult, db: string | undefined, io: CommandIO): Promise<RenderOptions['history']> {
  const { addToHistory, historyFile, historyOfRun } = await import('./history.js');
  const file = historyFile(db, io);
  const { record, runId, added } = await addToHistory(file, result);
  io.stderr(`history: ${added ? `added as run #${runId}` : `already there as run #${runId}`} (machine ${record.fingerprint}) in ${file}\n`);
  return historyOfRun(file, record);
}

/** Exit 1 when any window, server start in a block, capacity block, verification or target set-up failed; the threshold code when a threshold failed. */
export function runExitCode(result: BenchResult): number {
  if (result.interrupted) return EXIT.interrupted;
  if (result.thresholds?.some((t) => !t.pass)) return EXIT.threshold;
  const failed =
    result.windows.some((w) => w.status === 'failed') ||
    result.blocks.some((b) => b.targets.some((t) => t.status === 'failed')) ||
    result.verify.some((v) => !v.ok) ||
    result.targets.some((t) => t.status === 'failed') ||
    (result.capacity ?? []).some((c) => c.blocks.some((b) => b.failure !== undefined));
  return failed ? EXIT.failed : EXIT.ok;
}

async function run(flags: RunFlags, io: CommandIO): Promise<number> {
  if (flags.db !== undefined && !flags.history) throw new UsageError('--db names the history file of --history; add --history, or drop --db');
  const p = await prepareRun(flags);
  if (flags.dryRun) return dryRun(p, Boolean(flags.json), io);
  const o = p.options;
  const resumeHint = `\`benchsuite run --resume ${o.outDir}\` continues it`;
  const output = { label: 'output', text: `${o.outDir} (Ctrl-C stops after the current window; ${resumeHint})` };
  io.stderr(
    p.resumed
      ? `benchsuite run: resuming suite ${p.suite} in ${o.outDir} (same seed, plan and design)\n`
      : `${['benchsuite run', ...factLines([...runHeaderFacts(outlook(p)), output], '  ', 7)].join('\n')}\n`,
  );

  // The header named the driver and why; the run's own choice is said again only if it differs.
  const progress = createProgress({ write: io.stderr, tty: io.stderrTTY && !io.env.CI, columns: process.stderr.columns, announcedDriver: p.resumed ? undefined : p.plan.driver.name });
  const ac = new AbortController();
  let interrupts = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    interrupts++;
    if (interrupts === 1) {
      progress.note(noteText({ kind: 'interrupting', signal: sig }));
      ac.abort();
    } else void stopAllProcesses(500).finally(() => process.exit(EXIT.interrupted));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let result: BenchResult;
  try {
    // The plan the header showed, run as it is.
    result = await runSuite(p.plan, { signal: ac.signal, onEvent: progress.onEvent });
  } finally {
    progress.done();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const files = await writeOutputs(result, o.outDir, io, flags.history ? () => addRunToHistory(result, flags.db, io) : undefined);
  await summary(result, io);
  io.stderr(`results: ${files.join('\n         ')}\n`);
  if (result.interrupted) io.stderr(`interrupted: ${resumeHint}\n`);
  if (flags.json) io.stdout(`${JSON.stringify(result)}\n`);
  return runExitCode(result);
}

/** Where a stray word probably belongs: `run gateway` → `--suite gateway`. */
function strayHint(arg: string): string {
  if (arg in builtinSuites) return `did you mean --suite ${arg}?`;
  for (const s of Object.values(builtinSuites)) {
    if (s.scenarios.some((x) => x.name === arg)) return `did you mean --scenario ${arg}?`;
    if (s.targets.some((x) => x.name === arg)) return `did you mean --target ${arg}?`;
  }
  return '`benchsuite run` takes options only (see `benchsuite run --help`)';
}

/** `benchsuite run`. */
export const runCommand = defineCommand({
  name: 'run',
  summary: 'run a suite: rounds of short paired windows in blocks of fresh processes, until precise or out of budget',
  flags: runFlags,
  examples: [
    ['benchsuite run --quick', `smoke run of the framework suite (${quickSummary})`],
    ['benchsuite run -s gateway --costs', 'the LLM gateway suite, with startup and memory figures'],
    ['benchsuite run --scenario baseline,json-post --target node-http,fastify --precision 1%', 'two scenarios, two targets, a tighter interval'],
    ['benchsuite run --budget 5m -o results/today', 'stop adding blocks after five minutes; write to results/today'],
    ['benchsuite run -n', 'show the plan and the driver that would be used, start nothing'],
    ['benchsuite run --resume benchsuite-results/<folder>', 'continue an interrupted run'],
    ['benchsuite run --scenario baseline --threshold "p99<50ms,errors<0.1%"', `fail the job (exit ${DEFAULTS.thresholdExitCode}) when a pair's merged p99 or error share is over the limit`],
    ['benchsuite run --driver k6 --rate 2000 --open-loop', 'open-loop load at 2,000 req/s, latency also from each intended send'],
    ['benchsuite run --scenario baseline --slo "p99<50ms,errors<0.1%"', 'capacity: the highest open-loop rate per target that meets the SLO'],
  ],
  exitCodes: [
    [EXIT.ok, 'done'],
    [EXIT.failed, 'some windows or capacity blocks failed, or a target failed to set up or verify'],
    [EXIT.usage, 'bad usage or config (every problem is listed, each naming its flag or field)'],
    [EXIT.threshold, "a threshold (--threshold, or a scenario's thresholds) failed, or a target that failed verify had one named on it; the reports show each with its measured value"],
    [EXIT.interrupted, 'interrupted: Ctrl-C stops after the current window and writes the results (--resume DIR continues); a second Ctrl-C quits at once'],
  ],
  strayHint,
  run: (args, io) => run(args.flags, io),
});
