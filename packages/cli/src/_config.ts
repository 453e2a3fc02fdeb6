import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createJiti } from 'jiti';
import type { BenchsuiteConfig, ScenarioInput, TargetInput } from '@benchsuite/sdk';
import { contractAScenarios, contractATargets, gatewayScenarios, gatewayTargets } from '@benchsuite/servers';
import { UsageError } from './_errors.js';

export interface SuiteChoice {
  scenarios: readonly ScenarioInput[];
  targets: readonly TargetInput[];
  /** Measure cost figures (startup, idle memory, artifact) by default. */
  costs: boolean;
}

/** Suites shipped with benchsuite; `framework` is the default. */
export const builtinSuites: Record<string, SuiteChoice> = {
  framework: { scenarios: contractAScenarios, targets: contractATargets, costs: false },
  gateway: { scenarios: gatewayScenarios, targets: gatewayTargets, costs: true },
};

export const CONFIG_NAMES = ['benchsuite.config.ts', 'benchsuite.config.mts', 'benchsuite.config.js', 'benchsuite.config.mjs'];

/** Load `benchsuite.config.*` (TypeScript through jiti) from `--config` or the working directory. */
export async function loadConfig(path: string | undefined, cwd = process.cwd()): Promise<{ config: BenchsuiteConfig; file: string } | undefined> {
  const file = path ? resolve(cwd, path) : CONFIG_NAMES.map((n) => resolve(cwd, n)).find((f) => existsSync(f));
  if (!file) return undefined;
  if (!existsSync(file)) throw new UsageError(`--config: ${file} does not exist`);
  let mod: unknown;
  try {
    const jiti = createJiti(import.meta.url, { moduleCache: false });
    mod = await jiti.import(file, { default: true });
  } catch (err) {
    throw new UsageError(`could not load ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!mod || typeof mod !== 'object') throw new UsageError(`${file}: expected \`export default defineConfig({ … })\``);
  return { config: mod as BenchsuiteConfig, file };
}

/** All suites available: built-in ones plus the config's (a config with plain scenarios/targets forms suite `config`). */
export function availableSuites(config: BenchsuiteConfig | undefined): { suites: Record<string, SuiteChoice>; defaultSuite: string } {
  const suites: Record<string, SuiteChoice> = { ...builtinSuites };
  let defaultSuite = 'framework';
  if (config?.suites) {
    for (const [name, s] of Object.entries(config.suites)) suites[name] = { ...s, costs: Boolean(config.costs) };
    defaultSuite = Object.keys(config.suites)[0] ?? defaultSuite;
  }
  if (config?.scenarios || config?.targets) {
    if (!config.scenarios?.length || !config.targets?.length) throw new UsageError('config: give both `scenarios` and `targets` (or `suites`)');
    suites.config = { scenarios: config.scenarios, targets: config.targets, costs: Boolean(config.costs) };
    defaultSuite = 'config';
  }
  return { suites, defaultSuite };
}

/** Keep the named items (comma lists, repeatable flags); unknown names are a usage error listing the valid ones. */
export function pick<T extends { name: string }>(items: readonly T[], wanted: string[] | undefined, flag: string): T[] {
  if (!wanted?.length) return [...items];
  const names = new Set(items.map((i) => i.name));
  const bad = wanted.filter((w) => !names.has(w));
  if (bad.length) throw new UsageError(`${flag}: unknown ${bad.map((b) => `"${b}"`).join(', ')}; expected one of: ${[...names].join(', ')}`);
  return items.filter((i) => wanted.includes(i.name));
}
