import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createJiti } from 'jiti';
import { BenchsuiteConfigError, driverNames, parseScenario, parseTarget, validateSuite, type BenchsuiteConfig, type ScenarioInput, type TargetInput } from '@benchsuite/sdk';
import { closest } from './_cli.js';
import { UsageError } from './_errors.js';

export interface SuiteChoice {
  scenarios: readonly ScenarioInput[];
  targets: readonly TargetInput[];
  /** Measure cost figures (startup, idle memory, artifact) by default. */
  costs: boolean;
}

// The built-in suites come from @benchsuite/servers, an optional peer dependency (it brings every
// framework server): a project that only benchmarks its own targets installs the CLI without it.
const servers = await import('@benchsuite/servers').catch((err: unknown) => {
  const e = err as { code?: string; message?: string };
  if (e.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes("'@benchsuite/servers'")) return undefined;
  throw err;
});

/** Why the built-in suites are not available here, or undefined when they are. */
const builtinSuitesMissing = servers
  ? undefined
  : 'the built-in suites (framework, gateway, python) come with @benchsuite/servers, which is not installed (npm install -D @benchsuite/servers, or its npm pack tarball)';

/** Suites shipped with benchsuite; `framework` is the default. Empty without @benchsuite/servers. */
export const builtinSuites: Record<string, SuiteChoice> = servers
  ? {
      framework: { scenarios: servers.contractAScenarios, targets: servers.contractATargets, costs: false },
      gateway: { scenarios: servers.gatewayScenarios, targets: servers.gatewayTargets, costs: true },
      python: { scenarios: servers.pythonScenarios, targets: servers.pythonTargets, costs: true },
    }
  : {};
export const DEFAULT_SUITE = 'framework';

const CONFIG_NAMES = ['benchsuite.config.ts', 'benchsuite.config.mts', 'benchsuite.config.js', 'benchsuite.config.mjs'];

/** Every key a config may have; `satisfies` makes the compiler fail when the SDK's type gains or loses one. */
const CONFIG_KEYS = {
  suite: true,
  suites: true,
  scenarios: true,
  targets: true,
  design: true,
  driver: true,
  seed: true,
  overrides: true,
  pinning: true,
  verify: true,
  profile: true,
  instructions: true,
  costs: true,
  thresholds: true,
  slo: true,
  runtimes: true,
} as const satisfies Record<keyof BenchsuiteConfig, true>;

/** Where a key that is not a config key probably belongs (old names, flag names). */
const MOVED: Record<string, string> = {
  trials: 'there are no trials any more; use design.rounds, design.blocks or design.precision',
  duration: 'did you mean overrides.duration?',
  warmup: 'did you mean overrides.warmup (or design.warmup)?',
  connections: 'did you mean overrides.connections?',
  precision: 'did you mean design.precision?',
  budget: 'did you mean design.budgetSec?',
  rounds: 'did you mean design.rounds?',
  blocks: 'did you mean design.blocks?',
  reference: 'did you mean design.reference?',
};

/** A config file's text with a caret under `line:column` (1-based line, 0-based column as parsers give it). */
function codeFrame(text: string, line: number, column: number): string {
  const lines = text.split('\n');
  const from = Math.max(1, line - 2);
  const to = Math.min(lines.length, line + 1);
  const w = String(to).length;
  const out: string[] = [];
  for (let n = from; n <= to; n++) {
    out.push(`${n === line ? '>' : ' '} ${String(n).padStart(w)} | ${lines[n - 1] ?? ''}`);
    if (n === line) out.push(`  ${' '.repeat(w)} | ${' '.repeat(Math.max(0, column))}^`);
  }
  return out.join('\n');
}

/** Turn a loader error into one message with the file, line and column (and a code frame) when known. */
function loadError(file: string, err: unknown): UsageError {
  const e = err as Error & { code?: string };
  const message = String(e?.message ?? err);
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // jiti reports syntax errors as "ParseError: <what>\n <file>:<line>:<column>" (0-based column);
  // runtime errors carry the position in their stack.
  const at = new RegExp(`${escaped}:(\\d+):(\\d+)`).exec(message) ?? new RegExp(`${escaped}:(\\d+):(\\d+)`).exec(String(e?.stack ?? ''));
  const first = message
    .split('\n')[0]!
    .replace(/^(\w*Error): \1: /, '$1: ')
    .trim();
  if (!at) return new UsageError(`${file}: could not load the config: ${first}`);
  const line = Number(at[1]);
  const syntax = /ParseError|SyntaxError/.test(message) || e?.name === 'SyntaxError';
  // Parse errors give a 0-based column, stack frames a 1-based one.
  const column = syntax ? Number(at[2]) : Math.max(0, Number(at[2]) - 1);
  let frame = '';
  try {
    frame = `\n${codeFrame(readFileSync(file, 'utf8'), line, column)}`;
  } catch {
    // The file vanished meanwhile: the location alone is still worth printing.
  }
  return new UsageError(`${file}:${line}:${column + 1}: ${syntax ? 'syntax error: ' : ''}${first.replace(/^ParseError: /, '')}${frame}`);
}

/** Load `benchsuite.config.*` (TypeScript through jiti) from `--config` or the working directory; not validated yet. */
export async function loadConfig(path: string | undefined, cwd = process.cwd()): Promise<{ raw: unknown; file: string } | undefined> {
  const file = path ? resolve(cwd, path) : CONFIG_NAMES.map((n) => resolve(cwd, n)).find((f) => existsSync(f));
  if (!file) return undefined;
  if (!existsSync(file)) throw new UsageError(`--config: ${file} does not exist`);
  try {
    const jiti = createJiti(import.meta.url, { moduleCache: false });
    return { raw: await jiti.import(file, { default: true }), file };
  } catch (err) {
    throw loadError(file, err);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const issuesOf = (err: unknown): string[] => {
  if (err instanceof BenchsuiteConfigError) return err.issues;
  throw err;
};

/** Check a suite's `scenarios` and `targets` with the SDK's own parsers, naming every bad field. */
function suiteIssues(suite: Record<string, unknown>, at: string): string[] {
  const issues: string[] = [];
  const prefix = at ? `${at}.` : '';
  for (const [key, what, parse] of [
    ['scenarios', 'scenario', parseScenario],
    ['targets', 'target', parseTarget],
  ] as const) {
    const list = suite[key];
    if (list === undefined) issues.push(`${prefix}${key}: missing; a suite needs at least one ${what}`);
    else if (!Array.isArray(list)) issues.push(`${prefix}${key}: expected an array of ${what}s, got ${typeof list}`);
    else if (list.length === 0) issues.push(`${prefix}${key}: expected at least one ${what}, got none`);
    else {
      const names = new Map<string, number>();
      list.forEach((item, i) => {
        try {
          const name = parse(item, `${prefix}${key}[${i}]`).name;
          if (names.has(name)) issues.push(`${prefix}${key}[${i}].name: duplicate ${what} name "${name}" (also ${prefix}${key}[${names.get(name)}])`);
          names.set(name, i);
        } catch (err) {
          issues.push(...issuesOf(err));
        }
      });
    }
  }
  return issues;
}

/**
 * Validate a whole config before anything is printed or started: unknown keys, wrong types and
 * missing parts are all listed, each naming its field. Throws a `UsageError` titled by the file.
 */
export function validateConfig(raw: unknown, file: string): BenchsuiteConfig {
  const issues: string[] = [];
  if (!isObject(raw)) throw new UsageError(`${file}: expected \`export default defineConfig({ … })\`, got ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw}`);
  const keys = Object.keys(CONFIG_KEYS);
  for (const key of Object.keys(raw)) {
    if (key in CONFIG_KEYS) continue;
    const near = closest(key, keys);
    issues.push(`${key}: unknown key; ${MOVED[key] ?? (near ? `did you mean ${near}?` : `expected one of: ${keys.join(', ')}`)}`);
  }
  if (raw.suites !== undefined) {
    if (!isObject(raw.suites) || Object.keys(raw.suites).length === 0) issues.push('suites: expected an object of named suites, e.g. { mine: { scenarios: […], targets: […] } }');
    else {
      for (const [name, suite] of Object.entries(raw.suites)) {
        if (!isObject(suite)) {
          issues.push(`suites.${name}: expected { scenarios: […], targets: […] }`);
          continue;
        }
        for (const k of Object.keys(suite)) if (k !== 'scenarios' && k !== 'targets') issues.push(`suites.${name}.${k}: unknown key; a suite has only scenarios and targets`);
        issues.push(...suiteIssues(suite, `suites.${name}`));
      }
    }
  }
  if (raw.scenarios !== undefined || raw.targets !== undefined) issues.push(...suiteIssues(raw, ''));
  // The run options (design, driver, seed, overrides, pinning, verify, costs) are checked by the
  // SDK's own schema; stand-in scenario/target lists keep its checks to the options alone.
  const options = Object.fromEntries(Object.entries(raw).filter(([k]) => k in CONFIG_KEYS && k !== 'suites' && k !== 'scenarios' && k !== 'targets'));
  try {
    validateSuite({ ...options, scenarios: [{}], targets: [{}] } as never);
  } catch (err) {
    issues.push(...issuesOf(err).filter((i) => !/^(scenarios|targets)\b/.test(i)));
  }
  if (typeof raw.driver === 'string' && !(driverNames as readonly string[]).includes(raw.driver)) {
    issues.push(`driver: unknown "${raw.driver}"; expected one of: ${driverNames.join(', ')} (or a driver object from defineDriver)`);
  }
  if (issues.length) throw new UsageError(issues, `${file} has ${issues.length} problem${issues.length > 1 ? 's' : ''}`);
  return raw as BenchsuiteConfig;
}

/** All suites available: built-in ones plus the config's (plain scenarios/targets form one suite, named by `suite` or `config`). */
export function availableSuites(config: BenchsuiteConfig | undefined): { suites: Record<string, SuiteChoice>; defaultSuite: string } {
  const suites: Record<string, SuiteChoice> = { ...builtinSuites };
  let defaultSuite = DEFAULT_SUITE;
  const costs = config?.costs !== undefined ? Boolean(config.costs) : undefined;
  if (config?.suites) {
    for (const [name, s] of Object.entries(config.suites)) suites[name] = { ...s, costs: costs ?? false };
    defaultSuite = Object.keys(config.suites)[0] ?? defaultSuite;
  }
  if (config?.scenarios && config.targets) {
    defaultSuite = config.suite ?? 'config';
    suites[defaultSuite] = { scenarios: config.scenarios, targets: config.targets, costs: costs ?? false };
  }
  if (!suites[defaultSuite] && builtinSuitesMissing) throw new UsageError(`no suite here: ${builtinSuitesMissing}, and no benchsuite.config.ts defines one`);
  return { suites, defaultSuite };
}

/** Keep the named items; an unknown name is an issue listing the valid ones. */
export function pick<T extends { name: string }>(items: readonly T[], wanted: readonly string[] | undefined, flag: string, issues: string[]): T[] {
  if (!wanted?.length) return [...items];
  const names = items.map((i) => i.name);
  for (const w of wanted) {
    if (names.includes(w)) continue;
    const near = closest(w, names);
    issues.push(`${flag}: unknown "${w}"${near ? `; did you mean "${near}"?` : ''}; expected one of: ${names.join(', ')}`);
  }
  return items.filter((i) => wanted.includes(i.name));
}
