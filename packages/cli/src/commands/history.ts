import { join, resolve } from 'node:path';
import { DEFAULTS, type BenchResult } from '@benchsuite/sdk';
import {
  HistoryError,
  HistoryStore,
  analyzeSeries,
  changeRule,
  checkRun,
  coverageByMachine,
  defaultHistoryFile,
  figureNames,
  gitFacts,
  machineCoverageOf,
  machinePartNames,
  recordOf,
  withHistory,
  type AnalyzedSeries,
  type CoverageReport,
  type FigureName,
  type MachinePart,
  type RunRecord,
  type StoredControl,
} from '@benchsuite/history';
import { renderHistoryChanges, renderHistoryCheck, renderHistoryHtml, type HistoryRuleView, type RenderOptions } from '@benchsuite/report';
import { defineCommand, type Command } from '../_cli.js';
import { EXIT, UsageError } from '../_errors.js';
import { writeFileAtomic, type CommandIO } from '../_io.js';
import { readResultFile } from '../_results.js';
import { version } from '../_version.js';
import { parseFraction, parseInteger, parseNames, ValueError } from '../_values.js';

const text = (raw: string) => {
  if (!raw.trim()) throw new ValueError('expected a value, got ""');
  return raw;
};
const figureList = (raw: string): FigureName[] => {
  const names = parseNames(raw);
  for (const n of names) if (!(figureNames as readonly string[]).includes(n)) throw new ValueError(`expected ${figureNames.join(', ')} (or a comma list of them), got "${n}"`);
  return names as FigureName[];
};

const machineParts = (raw: string): MachinePart[] => {
  const names = parseNames(raw);
  for (const n of names) if (!(machinePartNames as readonly string[]).includes(n)) throw new ValueError(`expected ${machinePartNames.join(', ')} (or a comma list of them), got "${n}"`);
  return names as MachinePart[];
};

const dbFlag = { type: 'value', value: 'PATH', parse: text, help: "the history's SQLite file", default: '<tool cache>/history.sqlite ($BENCHSUITE_CACHE_DIR or $XDG_CACHE_HOME moves it)' } as const;
const minChangeFlag = {
  type: 'value',
  value: 'PCT',
  parse: (r: string) => parseFraction(r),
  help: 'the smallest lasting change reported (smaller ones are merged away)',
  default: `${DEFAULTS.history.minMagnitude * 100}%`,
} as const;

/** The history file the flags name, resolved from the working directory. */
export const historyFile = (db: string | undefined, io: CommandIO) => (db ? resolve(db) : defaultHistoryFile(io.env));

/** The rule as the report states it. */
const ruleView = (minMagnitude?: number): HistoryRuleView => ({ ...changeRule(minMagnitude !== undefined ? { minMagnitude } : {}) });
/** The default rule, for the run report's history section. */
export const historyRule = () => ruleView();

/** A history problem is the user's to fix: exit 2 with its message, no stack trace. */
async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof HistoryError) throw new UsageError(e.message);
    throw e;
  }
}

/**
 * A result as the history records it: `--commit`/`--branch` win; otherwise the commit the run
 * recorded, and the branch git reports here when its HEAD is that commit.
 */
export function recordFor(result: BenchResult, flags: { commit?: string; branch?: string }, cwd = process.cwd()): RunRecord {
  const git = gitFacts(cwd);
  const commit = flags.commit ?? result.environment.git?.commit ?? git.commit;
  const branch = flags.branch ?? (git.commit && git.commit === commit ? git.branch : null);
  return recordOf(result, { commit: commit ?? null, branch });
}

/** Add a result to the history; returns the record and whether it was new. */
export async function addToHistory(file: string, result: BenchResult, flags: { commit?: string; branch?: string } = {}): Promise<{ record: RunRecord; runId: number; added: boolean }> {
  const record = recordFor(result, flags);
  return guarded(() => withHistory(file, (store) => ({ record, ...store.add(record) })));
}

/**
 * A run among its history, for its report: the series of its machine and design with the changes
 * found (this run included if stored), and its machine's checks over the runs kept (this run
 * counted once): the A/A coverage, its design's round 1 pooled, the forecasts' share held.
 */
export async function historyOfRun(file: string, record: RunRecord): Promise<NonNullable<RenderOptions['history']>> {
  return guarded(async () => {
    const store = await HistoryStore.open(file);
    try {
      const pairs = new Set(record.figures.map((f) => `${f.scenario}\u0000${f.target}`));
      const series = store.series({ fingerprint: record.fingerprint, designKey: record.designKey }).filter((s) => pairs.has(`${s.key.scenario}\u0000${s.key.target}`));
      return { series: analyzeSeries(series, changeRule()), rule: historyRule(), control: machineCoverageOf(store, record) };
    } finally {
      store.close();
    }
  });
}

const addCommand = defineCommand({
  name: 'history add',
  summary: "add finished runs to the history (commit, branch, machine fingerprint, design, every pair's figures with their intervals)",
  positionals: [{ name: 'results.json', help: 'results written by `benchsuite run`', required: true, variadic: true }],
  flags: {
    db: dbFlag,
    commit: { type: 'value', value: 'SHA', parse: text, help: 'the commit the runs measured', default: "the commit the run recorded, else git's HEAD here" },
    branch: { type: 'value', value: 'NAME', parse: text, help: 'the branch the runs measured', default: "git's branch here when its HEAD is the run's commit" },
  },
  examples: [
    ['benchsuite history add benchsuite-results/*/results.json', 'add every finished run of this folder'],
    ['benchsuite history add results.json --branch main --db .bench/history.sqlite', 'a history kept beside the repository (as the CI workflow does)'],
  ],
  exitCodes: [
    [EXIT.ok, 'added (or already there)'],
    [EXIT.usage, 'bad usage, a file that is not a result, or a history file that cannot be read or written'],
  ],
  async run({ flags, positionals }, io) {
    const file = historyFile(flags.db, io);
    const results = await Promise.all(positionals.map((p) => readResultFile(p)));
    const records = results.map((r) => recordFor(r, flags));
    const outcomes = await guarded(() => withHistory(file, (store) => records.map((rec) => ({ rec, ...store.add(rec) }))));
    for (const [i, o] of outcomes.entries()) {
      const what = `${o.rec.commit ? o.rec.commit.slice(0, 10) : 'no commit'}${o.rec.branch ? ` on ${o.rec.branch}` : ''}, machine ${o.rec.fingerprint}, design ${o.rec.designKey}, ${o.rec.figures.length} figures`;
      io.stderr(o.added ? `added ${positionals[i]} as run #${o.runId} (${what})\n` : `${positionals[i]}: already in the history as run #${o.runId}\n`);
    }
    io.stderr(`history: ${file}\n`);
    return EXIT.ok;
  },
});

const seriesFlags = {
  db: dbFlag,
  scenario: { type: 'value', value: 'A,B', parse: parseNames, repeatable: true, help: 'only these scenarios' },
  target: { type: 'value', value: 'X,Y', parse: parseNames, repeatable: true, help: 'only these targets' },
  figure: {
    type: 'value',
    value: 'LIST',
    parse: figureList,
    repeatable: true,
    help: 'only these figures: rps (throughput ÷ the reference), cpu (CPU per request ÷ the reference), instructions (per request)',
  },
  minChange: minChangeFlag,
} as const;

/**
 * The history's series with their changes, and the A/A coverage check over its runs (`--scenario`
 * keeps those scenarios' A/A intervals; `--target` and `--figure` leave the check as it is: the
 * twin is the reference's).
 */
async function analyzeStore(
  file: string,
  flags: { scenario?: string[]; target?: string[]; figure?: FigureName[]; minChange?: number },
  io: CommandIO,
): Promise<{ series: AnalyzedSeries[]; control: CoverageReport; controls: StoredControl[] }> {
  return guarded(async () => {
    const store = await HistoryStore.open(file);
    try {
      const series = store.series({ ...(flags.scenario ? { scenarios: flags.scenario } : {}), ...(flags.target ? { targets: flags.target } : {}), ...(flags.figure ? { figures: flags.figure } : {}) });
      if (series.length > 4) io.stderr(`analyzing ${series.length} series…\n`);
      const controls = store.controls(flags.scenario ? { scenarios: flags.scenario } : {});
      return { series: analyzeSeries(series, changeRule(flags.minChange !== undefined ? { minMagnitude: flags.minChange } : {})), control: coverageByMachine(controls), controls };
    } finally {
      store.close();
    }
  });
}

const changesCommand = defineCommand({
  name: 'history changes',
  summary: 'find lasting changes per pair and figure across the runs of each machine (E-Divisive means, permutation test)',
  flags: { ...seriesFlags, json: { type: 'switch', help: 'print the series, their changes and the A/A coverage check as JSON' } },
  examples: [
    ['benchsuite history changes', 'every change in the history'],
    ['benchsuite history changes --scenario json-post --target fastify --figure instructions', 'one pair, its instruction counts'],
  ],
  exitCodes: [
    [EXIT.ok, 'done (changes found or not)'],
    [EXIT.usage, 'bad usage, or a history file that cannot be read'],
  ],
  async run({ flags }, io) {
    const file = historyFile(flags.db, io);
    const { series, control } = await analyzeStore(file, flags, io);
    if (flags.json) io.stdout(`${JSON.stringify({ file, rule: ruleView(flags.minChange), control, series }, null, 2)}\n`);
    else io.stdout(renderHistoryChanges(series, ruleView(flags.minChange), control));
    return EXIT.ok;
  },
});

const checkCommand = defineCommand({
  name: 'history check',
  summary: 'judge a new run against the recent runs of the same machine and design; exit 1 on a regression the run confirms',
  positionals: [{ name: 'results.json', help: 'the new run', required: true }],
  flags: {
    db: dbFlag,
    figure: seriesFlags.figure,
    window: { type: 'value', value: 'N', parse: (r: string) => parseInteger(r, { min: 2 }), help: 'judge against this many runs before the new one', default: String(DEFAULTS.history.gate.window) },
    since: { type: 'value', value: 'COMMIT', parse: text, help: "only runs from this commit's first run on (after accepting a change: the commit that made it)" },
    minChange: minChangeFlag,
    sameMachine: {
      type: 'value',
      value: 'LIST',
      parse: machineParts,
      help: "what must match for an earlier run to count as this machine: cpu (model, cores, architecture, memory; always), kernel, node, python. `cpu` judges across kernel and runtime updates (a runtime update's step then reads as the next commit's)",
      default: DEFAULTS.history.gate.sameMachine.join(','),
    },
    commit: { type: 'value', value: 'SHA', parse: text, help: 'the commit the new run measured (shown in the verdict)', default: 'as history add' },
    branch: { type: 'value', value: 'NAME', parse: text, help: 'the branch the new run measured', default: 'as history add' },
    json: { type: 'switch', help: "print the verdict per figure and the machine's A/A coverage check as JSON" },
  },
  examples: [
    ['benchsuite history check results.json', 'exit 1 when this run confirms a lasting regression'],
    ['benchsuite history check results.json --figure instructions', 'gate on the deterministic instruction counts only (noisy CI runners)'],
    ['benchsuite history check results.json --same-machine cpu,node', 'keep judging across kernel updates (a runner image), not across Node updates'],
  ],
  exitCodes: [
    [EXIT.ok, 'no regression, or too little history to judge (the output says how many runs it needs)'],
    [EXIT.failed, 'a regression: a lasting change for the worse that this run confirms'],
    [EXIT.usage, 'bad usage, a file that is not a result, or a history file that cannot be read'],
  ],
  async run({ flags, positionals }, io) {
    const file = historyFile(flags.db, io);
    const result = await readResultFile(positionals[0]!);
    const record = recordFor(result, flags);
    const outcome = await guarded(async () => {
      const store = await HistoryStore.open(file);
      try {
        let sinceStartedAt: string | undefined;
        if (flags.since) {
          const first = store.firstRunOfCommit(flags.since);
          if (!first) throw new UsageError(`--since: no run of commit ${flags.since} in ${file}`);
          sinceStartedAt = first.startedAt;
        }
        return checkRun(store, record, {
          rule: changeRule(flags.minChange !== undefined ? { minMagnitude: flags.minChange } : {}),
          ...(flags.window ? { window: flags.window } : {}),
          ...(sinceStartedAt ? { sinceStartedAt } : {}),
          ...(flags.figure ? { figures: flags.figure } : {}),
          ...(flags.sameMachine ? { sameMachine: flags.sameMachine } : {}),
        });
      } finally {
        store.close();
      }
    });
    const window = flags.window ?? DEFAULTS.history.gate.window;
    if (flags.json) io.stdout(`${JSON.stringify({ file, ...outcome }, null, 2)}\n`);
    else
      io.stdout(
        renderHistoryCheck(outcome.checks, {
          rule: ruleView(flags.minChange),
          window,
          fingerprint: outcome.fingerprint,
          file,
          sameMachine: outcome.sameMachine,
          machineChanges: outcome.machineChanges,
          control: outcome.control,
        }),
      );
    return outcome.regressions.length ? EXIT.failed : EXIT.ok;
  },
});

const reportCommand = defineCommand({
  name: 'history report',
  summary: 'write one self-contained HTML page of the whole history: every series, change points marked',
  flags: { ...seriesFlags, out: { type: 'value', short: 'o', value: 'DIR', parse: text, help: 'folder to write history.html into', default: 'benchsuite-history' } },
  examples: [['benchsuite history report --out site', 'site/history.html']],
  exitCodes: [
    [EXIT.ok, 'written'],
    [EXIT.usage, 'bad usage, or a history file that cannot be read, or a folder that cannot be written'],
  ],
  async run({ flags }, io) {
    const file = historyFile(flags.db, io);
    const { series, control, controls } = await analyzeStore(file, flags, io);
    const out = join(resolve(flags.out ?? 'benchsuite-history'), 'history.html');
    await writeFileAtomic(out, renderHistoryHtml(series, { rule: ruleView(flags.minChange), generator: `benchsuite ${version}`, file, control: { coverage: control, runs: controls } }));
    io.stderr(`wrote ${out} (${series.length} series)\n`);
    return EXIT.ok;
  },
});

/** `benchsuite history <sub>`: the commands by their full name. */
export const historyCommands: Record<string, Command> = {
  'history add': addCommand as unknown as Command,
  'history changes': changesCommand as unknown as Command,
  'history check': checkCommand as unknown as Command,
  'history report': reportCommand as unknown as Command,
};
