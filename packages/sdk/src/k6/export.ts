import { DEFAULTS } from '../defaults.js';
import { connectionSteps, driverLoaded, scenarioRequests, type Scenario } from '../scenario.js';
import { k6Script, type ClosedLoad, type OpenLoad } from './script.js';

/**
 * `benchsuite export k6`: the suite's scenarios as k6 scripts and k6-operator `TestRun`
 * manifests, for runs that outgrow one load machine. Each runner prints its summary (histogram
 * quantiles and counters) on stdout as one `@@BS {…}` line; `benchsuite merge` combines the lines
 * of all runners into one result document.
 */
export interface K6ExportOptions {
  scenarios: readonly Scenario[];
  /** Target names, each with the URL the runners reach it at (a cluster Service, usually). */
  targets: ReadonlyArray<{ name: string; baseUrl: string }>;
  /** k6 runners (pods); the operator splits the load between them by execution segments. */
  parallelism: number;
  /** Seconds of load per (scenario, target) run. */
  durationSec: number;
  /** Open loop at this total rate instead of each scenario's connections (closed loop). */
  rate?: number | undefined;
  /** k6 runner image. */
  image: string;
}

export interface ExportedFile {
  /** Path relative to the export folder. */
  path: string;
  content: string;
}

/** Kubernetes names: lower-case alphanumerics and `-`, at most 63 characters. */
function k8sName(...parts: string[]): string {
  return parts
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 63)
    .replace(/-$/, '');
}

/** A minimal YAML emitter for manifests: maps, lists, scalars (double-quoted) and block strings. */
function toYaml(value: unknown, indent = 0): string {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    return value.map((v) => (typeof v === 'object' && v !== null ? `${pad}-\n${toYaml(v, indent + 2)}` : `${pad}- ${scalar(v)}`)).join('\n');
  }
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => {
        if (typeof v === 'string' && v.includes('\n')) {
          return `${pad}${k}: |\n${v
            .replace(/\n$/, '')
            .split('\n')
            .map((l) => (l ? `${pad}  ${l}` : ''))
            .join('\n')}`;
        }
        if (typeof v === 'object' && v !== null)
          return Object.keys(v).length || (Array.isArray(v) && v.length) ? `${pad}${k}:\n${toYaml(v, indent + 2)}` : `${pad}${k}: ${Array.isArray(v) ? '[]' : '{}'}`;
        return `${pad}${k}: ${scalar(v)}`;
      })
      .join('\n');
  }
  return `${pad}${scalar(value)}`;
}
const scalar = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v));

/** The ConfigMap holding a script and the `TestRun` that runs it on `parallelism` runners. */
function testRunManifest(name: string, script: string, baseUrl: string, o: Pick<K6ExportOptions, 'parallelism' | 'image'>): string {
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { 'test.js': script } };
  const testRun = {
    apiVersion: 'k6.io/v1alpha1',
    kind: 'TestRun',
    metadata: { name },
    spec: {
      parallelism: o.parallelism,
      script: { configMap: { name, file: 'test.js' } },
      // Each runner prints its summary line on stdout; `kubectl logs` brings it back for merge.
      arguments: '--quiet --no-color',
      separate: false,
      runner: {
        image: o.image,
        env: [
          { name: 'BASE_URL', value: baseUrl },
          { name: 'K6_NO_USAGE_REPORT', value: 'true' },
        ],
      },
    },
  };
  return `${toYaml(configMap)}\n---\n${toYaml(testRun)}\n`;
}

function load(s: Scenario, o: K6ExportOptions): ClosedLoad | OpenLoad {
  const rate = o.rate ?? (s.load.openLoop ? s.load.rate : undefined);
  if (rate) {
    const maxInFlight = Math.max(...connectionSteps(s.load), Math.min(DEFAULTS.openLoop.maxInFlight, Math.ceil(rate * DEFAULTS.openLoop.inFlightSec)));
    return { kind: 'open', rate, preAllocated: Math.max(...connectionSteps(s.load)), maxInFlight };
  }
  return { kind: 'closed', connections: connectionSteps(s.load) };
}

/** Every file of an export: per (scenario, target) a script and a manifest, plus a README. */
export function exportK6(o: K6ExportOptions): ExportedFile[] {
  const files: ExportedFile[] = [];
  const rows: string[] = [];
  for (const s of o.scenarios.filter(driverLoaded)) {
    for (const t of o.targets) {
      const name = k8sName('bs', s.name, t.name);
      const script = k6Script({
        requests: scenarioRequests(s),
        expectStatus: Array.isArray(s.expect.status) ? s.expect.status : [s.expect.status],
        load: load(s, o),
        durationSec: o.durationSec,
        timeoutSec: s.load.timeout,
        tags: { bs_scenario: s.name, bs_target: t.name },
      });
      files.push({ path: `${name}/test.js`, content: script });
      files.push({ path: `${name}/testrun.yaml`, content: testRunManifest(name, script, t.baseUrl, o) });
      rows.push(`| \`${name}\` | ${s.name} | ${t.name} | ${t.baseUrl} |`);
    }
  }
  files.push({ path: 'README.md', content: exportReadme(o, rows) });
  return files;
}

function exportReadme(o: K6ExportOptions, rows: string[]): string {
  return `# benchsuite on the k6-operator

Generated by \`benchsuite export k6\`: one folder per (scenario, target), each with the k6 script
(\`test.js\`) and a \`testrun.yaml\` holding a ConfigMap with that script and a k6-operator
\`TestRun\` (\`k6.io/v1alpha1\`) that runs it on **${o.parallelism} runners**. The operator gives every
runner an equal execution segment, so the runners together send the load the script describes
(${o.rate ? `open loop at ${o.rate} req/s in total` : "each scenario's connections, in total"}, for ${o.durationSec} s).

| TestRun | scenario | target | BASE_URL |
|---|---|---|---|
${rows.join('\n')}

## Running it

1. Install the k6-operator in the cluster (see its documentation) and check that every
   \`BASE_URL\` above is the address the runner pods reach the server at (a Service name, usually;
   edit \`testrun.yaml\` or re-export with \`--base-url TARGET=URL\`).
2. For each folder: \`kubectl apply -f <folder>/testrun.yaml\`, then wait until the TestRun's
   \`status.stage\` is \`finished\` (\`kubectl get testrun <name> -o jsonpath='{.status.stage}'\`).
3. Bring the runners' outputs back: each runner prints one line starting with \`@@BS \` (its
   histogram quantiles and counters, its execution segment and host, the script's schedule) when
   it ends. Bring every runner's, each once: merge refuses a segment given twice or one missing.
   \`\`\`sh
   for p in $(kubectl get pods -l k6_cr=<name>,runner=true -o name); do kubectl logs "$p"; done > <name>.log
   \`\`\`
4. Merge every runner of every run into one result:
   \`\`\`sh
   benchsuite merge *.log -o merged/            # results.json + report.md + report.html
   benchsuite merge *.log --threshold "p99<50ms,errors<0.1%"   # exits ${DEFAULTS.thresholdExitCode} when one fails
   \`\`\`
   The merged request count is the sum of the runners' counts and the merged percentiles are those
   of the runners' histograms combined (never an average of percentiles). An open loop's offered
   rate is the script's, so a shortfall (sends scheduled but not made) shows in the merged result. \`benchsuite report\`,
   \`benchsuite compare\` and \`--threshold\` accept the merged result like any other.

The same script runs on one machine: \`BASE_URL=http://127.0.0.1:8080 k6 run test.js\`; with
\`--execution-segment 0:1/2\` and \`1/2:1\` on two machines it splits the load as the operator does.
`;
}
