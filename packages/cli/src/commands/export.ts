import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { DEFAULTS, exportK6, validateSuite } from '@benchsuite/sdk';
import { defineCommand } from '../_cli.js';
import { availableSuites, loadConfig, pick, validateConfig } from '../_config.js';
import { EXIT, UsageError } from '../_errors.js';
import { writeFileAtomic } from '../_io.js';
import { parseDuration, parseInteger, parseNames, ValueError } from '../_values.js';

const text = (raw: string) => {
  if (!raw.trim()) throw new ValueError('expected a value, got ""');
  return raw;
};
const baseUrl = (raw: string) => {
  const eq = raw.indexOf('=');
  const [name, url] = eq > 0 && !raw.slice(0, eq).includes(':') ? [raw.slice(0, eq), raw.slice(eq + 1)] : ['*', raw];
  try {
    new URL(url);
  } catch {
    throw new ValueError(`expected URL or TARGET=URL, got "${raw}"`);
  }
  return [[name, url.replace(/\/$/, '')] as const];
};

/** `benchsuite export k6`: k6 scripts and k6-operator TestRun manifests for a suite. */
export const exportCommand = defineCommand({
  name: 'export',
  summary: 'export a suite as k6 scripts and k6-operator TestRun manifests, for distributed runs',
  positionals: [{ name: 'format', help: 'what to export: k6', required: true }],
  flags: {
    suite: { type: 'value', short: 's', value: 'NAME', parse: text, help: 'suite to export', default: "framework, or the config's first suite" },
    scenario: { type: 'value', value: 'A,B', parse: parseNames, repeatable: true, help: 'only these scenarios' },
    target: { type: 'value', value: 'X,Y', parse: parseNames, repeatable: true, help: 'only these targets' },
    out: { type: 'value', short: 'o', value: 'DIR', parse: text, help: 'output folder', default: 'benchsuite-k6' },
    parallelism: { type: 'value', value: 'N', parse: (r: string) => parseInteger(r, { min: 1 }), help: 'k6 runners (pods) per TestRun; the operator splits the load between them', default: '2' },
    duration: { type: 'value', short: 'd', value: 'S', parse: (r: string) => parseDuration(r, { exclusive: true }), help: 'seconds of load per (scenario, target)', default: '60s' },
    rate: { type: 'value', value: 'N', parse: (r: string) => parseInteger(r, { min: 1 }), help: "open loop at N req/s in total instead of the scenarios' connections" },
    baseUrl: { type: 'value', value: 'URL|TARGET=URL', parse: baseUrl, repeatable: true, help: 'where the runners reach a target (all targets, or one)', default: 'http://<target>:8080' },
    image: { type: 'value', value: 'IMAGE', parse: text, help: 'k6 runner image', default: 'grafana/k6:1.8.1' },
    config: { type: 'value', value: 'FILE', parse: text, help: 'config file', default: './benchsuite.config.ts, .mts, .js or .mjs' },
  },
  examples: [
    ['benchsuite export k6 --scenario baseline --target node-http,fastify --parallelism 4 -o k6/', 'scripts and TestRuns for two targets on four runners each'],
    ['benchsuite export k6 --base-url node-http=http://node-http.bench.svc:8080 --rate 50000', 'open loop at 50k req/s in total'],
  ],
  exitCodes: [
    [EXIT.ok, 'written'],
    [EXIT.usage, 'bad usage or config (every problem is listed)'],
  ],
  async run({ flags, positionals }, io) {
    if (positionals[0] !== 'k6') throw new UsageError(`export: unknown format "${positionals[0]}"; expected: k6`);
    const loaded = await loadConfig(flags.config);
    const { suites, defaultSuite } = availableSuites(loaded ? validateConfig(loaded.raw, loaded.file) : undefined);
    const suiteName = flags.suite ?? defaultSuite;
    const suite = suites[suiteName];
    if (!suite) throw new UsageError(`--suite: unknown "${suiteName}"; expected one of: ${Object.keys(suites).join(', ')}`);
    const issues: string[] = [];
    const scenarios = pick(suite.scenarios, flags.scenario, '--scenario', issues);
    const targets = pick(suite.targets, flags.target, '--target', issues);
    const urls = new Map(flags.baseUrl ?? []);
    for (const name of urls.keys()) if (name !== '*' && !targets.some((t) => t.name === name)) issues.push(`--base-url: "${name}" is not a selected target`);
    if (issues.length) throw new UsageError(issues);
    const checked = validateSuite({ scenarios, targets });
    const files = exportK6({
      scenarios: checked.scenarios,
      targets: checked.targets.map((t) => ({ name: t.name, baseUrl: urls.get(t.name) ?? urls.get('*') ?? `http://${t.name}:8080` })),
      parallelism: flags.parallelism ?? 2,
      durationSec: flags.duration ?? 60,
      rate: flags.rate,
      image: flags.image ?? 'grafana/k6:1.8.1',
    });
    const dir = resolve(flags.out ?? 'benchsuite-k6');
    for (const f of files) {
      const path = join(dir, f.path);
      await mkdir(dirname(path), { recursive: true });
      await writeFileAtomic(path, f.content);
    }
    const runs = files.filter((f) => f.path.endsWith('testrun.yaml')).length;
    io.stderr(
      `exported ${runs} TestRun${runs === 1 ? '' : 's'} (${flags.parallelism ?? 2} runners each) to ${dir}; see ${join(dir, 'README.md')}. A failed --threshold on merge exits ${DEFAULTS.thresholdExitCode}.\n`,
    );
    return EXIT.ok;
  },
});
