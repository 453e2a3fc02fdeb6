import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { defineCommand } from 'citty';
import { runSuite, stopAllProcesses, type BenchResult } from '@benchsuite/sdk';
import { availableSuites, loadConfig, pick } from '../_config.js';
import { EXIT, UsageError } from '../_errors.js';
import { createProgress } from '../_progress.js';
import { summaryText } from '../_summary.js';

/** `--quick`: one trial, short windows — a smoke run, not a measurement to publish. */
export const QUICK = { trials: 1, duration: 0.75, warmup: 0.25 } as const;

const list = (v: unknown): string[] | undefined => {
  if (v === undefined || v === '' || v === true) return undefined;
  return (Array.isArray(v) ? v : [v]).flatMap((x) => String(x).split(',')).map((s) => s.trim()).filter(Boolean);
};
function num(v: unknown, flag: string, opts: { int?: boolean; min?: number } = {}): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v === '' || v === true || !Number.isFinite(n) || (opts.int && !Number.isInteger(n)) || n < (opts.min ?? 0)) {
    throw new UsageError(`${flag}: expected ${opts.int ? 'a whole number' : 'a number'}${opts.min !== undefined ? ` ≥ ${opts.min}` : ''}, got "${String(v)}"`);
  }
  return n;
}

export const runArgs = {
  suite: { type: 'string', description: 'suite to run: framework (default), gateway, or one from benchsuite.config.ts' },
  scenario: { type: 'string', description: 'only these scenarios (comma list)' },
  target: { type: 'string', description: 'only these targets (comma list)' },
  trials: { type: 'string', description: 'trials per (scenario, target) pair [3]' },
  duration: { type: 'string', description: 'measured seconds per window (each connection step)' },
  warmup: { type: 'string', description: 'warm-up seconds before each window (never recorded)' },
  connections: { type: 'string', description: 'connections, or a stepped list like 10,50,100' },
  driver: { type: 'string', description: 'load generator: auto (default), autocannon, wrk' },
  seed: { type: 'string', description: 'seed of the interleaved trial order' },
  out: { type: 'string', description: 'output folder [benchsuite-results/<timestamp>]' },
  config: { type: 'string', description: 'config file [benchsuite.config.ts in the working directory]' },
  quick: { type: 'boolean', description: `smoke run: ${QUICK.trials} trial, ${QUICK.warmup}s warm-up, ${QUICK.duration}s windows` },
  json: { type: 'boolean', description: 'print only the result JSON on stdout (everything else on stderr)' },
  costs: { type: 'boolean', description: 'measure startup, idle memory and artifact size (default on for gateway)' },
  verify: { type: 'boolean', default: true, description: 'check every scenario against every target before load (--no-verify to skip)' },
  pin: { type: 'boolean', default: true, description: 'pin server and loader to different cores with taskset (--no-pin to disable)' },
} as const;

function timestamp(d = new Date()): string {
  return d.toISOString().replace(/[:.]/g, '-').replace('T', '_').slice(0, 19);
}

async function writeOutputs(result: BenchResult, dir: string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const files = [join(dir, 'results.json')];
  await writeFileAtomic(files[0]!, JSON.stringify(result, null, 2) + '\n');
  try {
    const report = await import('@benchsuite/report');
    await writeFileAtomic(join(dir, 'report.md'), report.renderMarkdown(result));
    await writeFileAtomic(join(dir, 'report.html'), report.renderHtml(result));
    files.push(join(dir, 'report.md'), join(dir, 'report.html'));
  } catch (err) {
    process.stderr.write(`warning: reports not written: ${(err as Error).message}\n`);
  }
  return files;
}

/** `benchsuite run`: parse flags, call `runSuite`, print. Exit 0 done, 1 some trials failed, 2 bad usage, 130 interrupted. */
export const runCommand = defineCommand({
  meta: { name: 'run', description: 'run a suite: scenarios × targets × trials, pinned, interleaved' },
  args: runArgs,
  async run({ args }) {
    const loaded = await loadConfig(args.config);
    const cfg = loaded?.config;
    const { suites, defaultSuite } = availableSuites(cfg);
    const suiteName = args.suite ?? defaultSuite;
    const suite = suites[suiteName];
    if (!suite) throw new UsageError(`--suite: unknown "${suiteName}"; expected one of: ${Object.keys(suites).join(', ')}`);
    const scenarios = pick(suite.scenarios, list(args.scenario), '--scenario');
    const targets = pick(suite.targets, list(args.target), '--target');
    const driver = args.driver ?? cfg?.driver ?? 'auto';
    if (typeof driver === 'string' && !['auto', 'autocannon', 'wrk'].includes(driver)) throw new UsageError(`--driver: expected auto, autocannon or wrk, got "${driver}"`);
    const connections = list(args.connections)?.map((c) => num(c, '--connections', { int: true, min: 1 })!);
    const overrides = {
      ...(args.quick ? { duration: QUICK.duration, warmup: QUICK.warmup } : {}),
      ...cfg?.overrides,
      ...(args.duration !== undefined ? { duration: num(args.duration, '--duration', { min: 0.1 }) } : {}),
      ...(args.warmup !== undefined ? { warmup: num(args.warmup, '--warmup') } : {}),
      ...(connections ? { connections: connections.length === 1 ? connections[0]! : connections } : {}),
    };
    const trials = num(args.trials, '--trials', { int: true, min: 1 }) ?? (args.quick ? QUICK.trials : (cfg?.trials ?? 3));
    const outDir = resolve(args.out ?? join('benchsuite-results', `${timestamp()}_${suiteName}`));

    const progress = createProgress();
    const ac = new AbortController();
    let interrupts = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      interrupts++;
      if (interrupts === 1) {
        process.stderr.write(`\n${sig}: stopping after cleaning up the current trial; finished trials are kept (again to quit now)\n`);
        ac.abort();
      } else {
        void stopAllProcesses(500).finally(() => process.exit(EXIT.interrupted));
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    let result: BenchResult;
    try {
      process.stderr.write(`benchsuite: suite ${suiteName}, ${scenarios.length} scenario(s) × ${targets.length} target(s) × ${trials} trial(s); finished trials go to ${join(outDir, 'trials.jsonl')}\n`);
      result = await runSuite({
        suite: suiteName,
        scenarios,
        targets,
        trials,
        driver: driver as never,
        ...(args.seed !== undefined ? { seed: num(args.seed, '--seed', { int: true })! } : cfg?.seed !== undefined ? { seed: cfg.seed } : {}),
        overrides,
        outDir,
        pinning: args.pin ? (cfg?.pinning ?? 'auto') : false,
        verify: args.verify,
        costs: args.costs ?? cfg?.costs ?? suite.costs,
        signal: ac.signal,
        onEvent: progress.onEvent,
      });
    } finally {
      progress.done();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    const files = await writeOutputs(result, outDir);
    process.stderr.write(summaryText(result) + '\n\n');
    process.stderr.write(`results: ${files.join('\n         ')}\n`);
    if (args.json) process.stdout.write(JSON.stringify(result) + '\n');
    if (result.interrupted) return EXIT.interrupted;
    const failed = result.trials.some((t) => t.status === 'failed') || result.verify.some((v) => !v.ok) || result.targets.some((t) => t.status === 'failed');
    return failed ? EXIT.failed : EXIT.ok;
  },
});
