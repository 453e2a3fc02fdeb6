import type { BenchResult, Estimate, PairSummary } from '@benchsuite/sdk';
import { fmtEstimate, fmtHalfWidth, fmtPct, fmtRatio } from './units.js';
import { withReference } from './reference.js';

/**
 * One entry of benchmark-action/github-action-benchmark's custom tools
 * (`customBiggerIsBetter` / `customSmallerIsBetter`): the file is a JSON array of these.
 */
export interface GithubActionBenchmarkEntry {
  name: string;
  unit: string;
  value: number;
  /** Free text shown beside the value, e.g. `± 1234`. */
  range?: string;
  /** Free text shown in the tooltip; newlines allowed. */
  extra?: string;
}

/**
 * - `rps` (default): median req/s, `customBiggerIsBetter`;
 * - `relative`: throughput ÷ the reference, measured side by side (the figure that reproduces across
 *   runs), `customBiggerIsBetter`; the reference itself has no entry;
 * - `cpu`: server CPU µs per request, `customSmallerIsBetter`;
 * - `p99`: p99 latency of the merged histogram in ms, `customSmallerIsBetter`.
 */
export type GithubActionBenchmarkMetric = 'rps' | 'relative' | 'cpu' | 'p99';

export interface GithubActionBenchmarkOptions {
  metric?: GithubActionBenchmarkMetric;
  /** Re-estimate relative figures against this target (see `withReference`). */
  reference?: string;
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

function fromEstimate(name: string, unit: string, e: Estimate, digits: number, extra: string[]): GithubActionBenchmarkEntry {
  const half = e.ci95 ? (e.ci95[1] - e.ci95[0]) / 2 : null;
  return {
    name,
    unit,
    value: round(e.point, digits),
    ...(half === null ? {} : { range: `± ${round(half, digits)}` }),
    extra: [`95% interval: ${e.ci95 ? `[${round(e.ci95[0], digits)}, ${round(e.ci95[1], digits)}]` : 'none'}; n = ${e.n}`, ...extra].join('\n'),
  };
}

function pairExtra(p: PairSummary): string[] {
  return [
    p.relativeRps ? `relative to ${p.reference}: ${fmtEstimate(p.relativeRps, fmtRatio)}` : `reference of the relative figures`,
    `precision ${fmtHalfWidth(p.precision.reached)} (target ${fmtHalfWidth(p.precision.target)}) ${p.precision.met ? 'met' : 'not met'}`,
    `noise: ${p.noise.label}, steal ${fmtPct(p.noise.meanSteal)}`,
    `blocks: ${p.blocks}; windows: ${p.windows.ok - p.windows.excludedSteal} used, ${p.windows.excludedSteal} left out for steal, ${p.windows.failed} failed`,
    `p99: ${(p.latency.p99 / 1000).toFixed(3)} ms`,
    ...(p.windows.clientBound ? [`client-bound windows: ${p.windows.clientBound} (req/s there is the load generator's ceiling)`] : []),
  ];
}

/**
 * The result as github-action-benchmark custom-tool entries, one per measured (scenario, target)
 * and, for stepped loads, one per connection step (`rps`, `relative`, `p99`). Names are
 * `scenario / target [@ N connections]` so history lines up across runs; the interval's
 * half-width goes in `range`.
 * @example writeFileSync('bench.json', JSON.stringify(toGithubActionBenchmark(result)))
 */
export function toGithubActionBenchmark(input: BenchResult, options: GithubActionBenchmarkOptions = {}): GithubActionBenchmarkEntry[] {
  const result = options.reference ? withReference(input, options.reference) : input;
  const metric = options.metric ?? 'rps';
  const ref = result.design.reference;
  const out: GithubActionBenchmarkEntry[] = [];
  for (const p of result.summaries) {
    if (p.windows.ok - p.windows.excludedSteal <= 0) continue;
    const name = `${p.scenario} / ${p.target}`;
    const stepName = (c: number) => `${name} @ ${c} connections`;
    const stepped = p.steps.length > 1;
    if (metric === 'rps') {
      out.push(fromEstimate(name, 'req/s', p.rps, 1, pairExtra(p)));
      if (stepped) for (const st of p.steps) out.push(fromEstimate(stepName(st.connections), 'req/s', st.rps, 1, []));
    } else if (metric === 'relative') {
      if (!p.relativeRps) continue;
      out.push(fromEstimate(name, `× ${ref}`, p.relativeRps, 4, pairExtra(p)));
      if (stepped) for (const st of p.steps) if (st.relativeRps) out.push(fromEstimate(stepName(st.connections), `× ${ref}`, st.relativeRps, 4, []));
    } else if (metric === 'cpu') {
      if (p.cpuPerRequestUs) out.push(fromEstimate(name, 'µs/req', p.cpuPerRequestUs, 2, pairExtra(p)));
    } else {
      out.push({ name, unit: 'ms', value: round(p.latency.p99 / 1000, 3), extra: [`merged histogram of ${p.latency.count} responses`, ...pairExtra(p)].join('\n') });
      if (stepped) for (const st of p.steps) out.push({ name: stepName(st.connections), unit: 'ms', value: round(st.latency.p99 / 1000, 3) });
    }
  }
  return out;
}
