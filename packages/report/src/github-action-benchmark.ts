import type { BenchResult, SampleStats } from '@benchsuite/sdk';
import { ciHalf } from './format.js';

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

export interface GithubActionBenchmarkOptions {
  /**
   * `rps` (default): mean requests per second, for `tool: customBiggerIsBetter`.
   * `p99`: mean per-trial p99 latency in ms, for `tool: customSmallerIsBetter`.
   */
  metric?: 'rps' | 'p99';
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * The result as github-action-benchmark custom-tool entries, one per measured (scenario, target)
 * and, for stepped loads, one per connection step. Names are `scenario / target [@ N connections]`
 * so history lines up across runs. The 95% CI half-width goes in `range`.
 * @example writeFileSync('bench.json', JSON.stringify(toGithubActionBenchmark(result)))
 */
export function toGithubActionBenchmark(result: BenchResult, options: GithubActionBenchmarkOptions = {}): GithubActionBenchmarkEntry[] {
  const metric = options.metric ?? 'rps';
  const entry = (name: string, rps: SampleStats, p99: SampleStats, extra: string[]): GithubActionBenchmarkEntry => {
    const s = metric === 'rps' ? rps : p99;
    const scale = metric === 'rps' ? 1 : 1 / 1000;
    const digits = metric === 'rps' ? 1 : 3;
    const half = ciHalf(s.ci95);
    return {
      name,
      unit: metric === 'rps' ? 'req/s' : 'ms',
      value: round(s.mean * scale, digits),
      ...(half == null ? {} : { range: `± ${round(half * scale, digits)}` }),
      extra: [`trials: ${s.n}`, ...(s.cov == null ? [] : [`CoV: ${(s.cov * 100).toFixed(1)}%`]), ...extra].join('\n'),
    };
  };
  const out: GithubActionBenchmarkEntry[] = [];
  for (const p of result.summaries) {
    if (p.okTrials === 0) continue;
    const extra = [
      `verdict: ${p.verdict}`,
      metric === 'rps' ? `p99: ${(p.latency.p99 / 1000).toFixed(3)} ms` : `RPS: ${Math.round(p.rps.mean)}`,
      ...(p.clientBoundTrials ? [`client-bound trials: ${p.clientBoundTrials} (RPS is the load generator's ceiling)`] : []),
    ];
    out.push(entry(`${p.scenario} / ${p.target}`, p.rps, p.p99, extra));
    if (p.steps.length > 1) {
      for (const st of p.steps) out.push(entry(`${p.scenario} / ${p.target} @ ${st.connections} connections`, st.rps, st.p99, []));
    }
  }
  return out;
}
