import { BenchsuiteConfigError, parseOrThrow } from './errors.js';
import { twinOf } from './analysis/control.js';
import { replicaName } from './replicas.js';
import { resolveReference } from './reference.js';
import { removedDesignOptions } from './design-options.js';
import { warmupServed } from './defaults.js';
import { suiteOptionsSchema, type RunSuiteOptions } from './options.js';
import { connectionSteps, driverLoaded, parseScenario, type Scenario } from './scenario.js';
import { parseThresholds } from './analysis/thresholds.js';
import { unusableDir } from './output-dir.js';
import { hostRuntime, isHostNode, parseRuntime, runtimeVariants, type RuntimeSpec } from './runtimes.js';
import { parseTarget, type Target } from './target.js';

/**
 * Validate every definition up front, listing every problem at once: nothing starts when one is invalid.
 * Its return type is spelled out: inferred, the declarations would name a type through the package's
 * index, an import circle in `dist`.
 */
export function validateSuite(given: RunSuiteOptions): { opts: ReturnType<typeof suiteOptionsSchema.parse>; scenarios: Scenario[]; targets: Target[] } {
  const errors: string[] = [];
  const collect = (err: unknown) => errors.push(...((err as BenchsuiteConfigError).issues ?? [(err as Error).message]));
  // A design option measurements rejected is said with why, once (not also as an unknown key).
  const removed = Object.keys(given.design ?? {}).filter((k): k is keyof typeof removedDesignOptions => k in removedDesignOptions);
  for (const k of removed) errors.push(`design.${k}: ${removedDesignOptions[k]}`);
  const input: RunSuiteOptions = removed.length ? { ...given, design: Object.fromEntries(Object.entries(given.design!).filter(([k]) => !(k in removedDesignOptions))) } : given;
  let opts: ReturnType<typeof suiteOptionsSchema.parse> | undefined;
  try {
    opts = parseOrThrow(suiteOptionsSchema, input, '');
  } catch (err) {
    collect(err);
  }
  const scenarios: Scenario[] = [];
  const targets: Target[] = [];
  const list = (v: unknown) => (Array.isArray(v) ? v : []);
  list((input as { scenarios?: unknown }).scenarios).forEach((s, i) => {
    try {
      scenarios.push(parseScenario(s, `scenarios[${i}]`));
    } catch (err) {
      collect(err);
    }
  });
  list((input as { targets?: unknown }).targets).forEach((t, i) => {
    try {
      targets.push(parseTarget(t, `targets[${i}]`));
    } catch (err) {
      collect(err);
    }
  });
  // Runtimes as a dimension: every Node target once per runtime, the host's Node first (the baseline).
  if (opts?.runtimes.length) {
    const specs: RuntimeSpec[] = [];
    for (const [i, r] of opts.runtimes.entries()) {
      try {
        specs.push(parseRuntime(r));
      } catch (err) {
        errors.push(`runtimes[${i}]: ${(err as Error).message}`);
      }
    }
    const host = hostRuntime();
    const all = [host, ...specs.filter((r) => !(isHostNode(r) || r.label === host.label))];
    const expanded = runtimeVariants(targets, all);
    targets.splice(0, targets.length, ...expanded);
  }
  const dup = (names: string[], what: string) => {
    const seen = new Set<string>();
    names.forEach((n, i) => {
      if (seen.has(n)) errors.push(`${what}[${i}].name: duplicate name "${n}"`);
      seen.add(n);
    });
  };
  dup(
    scenarios.map((s) => s.name),
    'scenarios',
  );
  dup(
    targets.map((t) => t.name),
    'targets',
  );
  const reserved = opts?.design.control === 'aa' ? targets.find((t) => targets.some((r) => t.name === twinOf(r.name))) : undefined;
  if (reserved) errors.push(`targets: "${reserved.name}" is the name of the A/A control's second process; rename that target, or set design.control to "none"`);
  const ref = opts?.design.reference ?? (typeof input.design?.reference === 'string' ? input.design.reference : undefined); // listed even when other design fields are invalid
  if (ref !== undefined && targets.length && !targets.some((t) => t.name === ref)) {
    errors.push(`design.reference: "${ref}" is not a target of this suite; expected one of: ${targets.map((t) => t.name).join(', ')}`);
  }
  const terms = (text: string, where: string) => {
    try {
      parseThresholds(text);
    } catch (err) {
      errors.push(`${where}: ${(err as Error).message}`);
    }
  };
  for (const [i, t] of (opts?.thresholds ?? []).entries()) terms(t, `thresholds[${i}]`);
  if (opts?.slo !== undefined) terms(opts.slo, 'slo');
  for (const [i, s] of scenarios.entries()) for (const [j, t] of (s.thresholds ?? []).entries()) terms(t, `scenarios[${i}].thresholds[${j}]`);
  if (opts?.overrides.openLoop && opts.overrides.rate === undefined) {
    const without = scenarios.filter((s) => s.load.rate === undefined && driverLoaded(s)).map((s) => s.name);
    if (without.length) errors.push(`overrides.openLoop: open-loop load needs a rate, which ${without.join(', ')} do not set; give overrides.rate`);
  }
  if (opts?.outDir !== undefined) {
    const bad = unusableDir(opts.outDir);
    if (bad) errors.push(`outDir: cannot write results to ${opts.outDir}: ${bad}`);
  }
  if (errors.length || !opts) throw new BenchsuiteConfigError(errors.join('\n'), errors);
  const o = opts.overrides;
  for (const s of scenarios) {
    if (o.duration !== undefined) s.load.duration = o.duration;
    if (o.connections !== undefined) s.load.connections = o.connections;
    if (o.requests !== undefined) s.load.requests = o.requests;
    // Settling applies between the steps of a stepped load; a fixed load's block warm-up covers it.
    if (o.warmup !== undefined && Array.isArray(s.load.connections) && s.load.connections.length > 1) s.load.warmup = o.warmup;
    if (o.rate !== undefined) s.load.rate = o.rate;
    if (o.openLoop !== undefined) s.load.openLoop = o.openLoop;
  }
  // Checked again after the overrides: `--requests 10 -c 50` cannot keep 50 connections busy.
  for (const s of scenarios) {
    const most = Math.max(...connectionSteps(s.load));
    if (s.load.requests !== undefined && s.load.requests < most && driverLoaded(s)) {
      errors.push(
        `${o.requests !== undefined ? 'overrides.requests' : `scenarios[${scenarios.indexOf(s)}].load.requests`}: ${s.load.requests} requests cannot keep ${most} connections busy (scenario ${s.name}); give at least ${most}`,
      );
    }
  }
  if (errors.length) throw new BenchsuiteConfigError(errors.join('\n'), errors);
  // Unless given, the warm-up's work follows how many scenarios' requests a fresh process warms on.
  if (input.design?.warmup?.served === undefined) {
    const mixed = opts.design.processes === 'shared' && opts.design.warmupRequests === 'all-scenarios' ? scenarios.filter(driverLoaded).length : 1;
    opts.design = { ...opts.design, warmup: { ...opts.design.warmup, served: warmupServed(mixed) } };
  }
  const twin = controlTarget(opts, scenarios, targets);
  const all = twin ? [...targets, twin] : targets;
  return { opts, scenarios, targets: [...all, ...replicaTargets(opts, scenarios, all)] };
}

/**
 * The second to k-th processes of every target (`design.replicas`; the twin's too, so the A/A
 * control is measured as every pair is): started, warmed and loaded like any target, their setup
 * the target's own (not run again). None in a capacity run, when no scenario is loaded by the
 * driver, or for a target that is a URL (one process, not started by the run).
 */
function replicaTargets(opts: ReturnType<typeof suiteOptionsSchema.parse>, scenarios: readonly Scenario[], targets: readonly Target[]): Target[] {
  const k = opts.design.replicas;
  if (k <= 1 || opts.slo !== undefined || !scenarios.some(driverLoaded)) return [];
  return targets.flatMap((t) =>
    t.kind !== 'process' ? [] : Array.from({ length: k - 1 }, (_, i) => ({ ...t, name: replicaName(t.name, i + 2), setup: undefined, metadata: { ...t.metadata, replicaOf: t.name } })),
  );
}

/**
 * The A/A control's target: the reference's second process, started, warmed and loaded like any
 * target of every block (its setup is the reference's, not run twice). None in a capacity run, with
 * `control: 'none'`, when no scenario is loaded by the driver, or when the reference is a URL (one
 * process: there is no second).
 */
function controlTarget(opts: ReturnType<typeof suiteOptionsSchema.parse>, scenarios: readonly Scenario[], targets: readonly Target[]): Target | undefined {
  if (opts.design.control !== 'aa' || opts.slo !== undefined || !scenarios.some(driverLoaded)) return undefined;
  const reference = targets.find((t) => t.name === resolveReference(opts.design, targets));
  if (reference?.kind !== 'process') return undefined;
  const name = twinOf(reference.name);
  if (targets.some((t) => t.name === name)) return undefined;
  return { ...reference, name, setup: undefined, metadata: { ...reference.metadata, control: `A/A: a second process of ${reference.name}` } };
}
