import type { BenchResult } from '@benchsuite/sdk';
import { STEAL_NOTE } from './_progress.js';

const ms = (us: number) => (us / 1000).toFixed(3);
const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')).join('\n');
}

/** The readable end-of-run summary (stderr): per scenario a table with ranks, noise and warnings in words. */
export function summaryText(r: BenchResult): string {
  const out: string[] = [];
  for (const s of r.scenarios) {
    const sums = r.summaries.filter((x) => x.scenario === s.name);
    const failedVerify = r.verify.filter((v) => v.scenario === s.name && !v.ok);
    if (!sums.length && !failedVerify.length) continue;
    const ranking = r.rankings.find((x) => x.scenario === s.name);
    const place = (t: string) => ranking?.places.find((p) => p.targets.includes(t));
    const rows = [['target', 'place', 'req/s', '±95% CI', 'CoV', 'p50 ms', 'p99 ms', 'errors', 'verdict']];
    const sorted = [...sums].sort((a, b) => b.rps.mean - a.rps.mean);
    for (const x of sorted) {
      const p = place(x.target);
      const tie = p && p.targets.length > 1 ? '=' : '';
      const half = x.rps.ci95 ? (x.rps.ci95[1] - x.rps.ci95[0]) / 2 : null;
      rows.push([
        x.target + (x.clientBoundTrials ? ' *' : ''),
        p ? `${tie}${p.place}` : '–',
        Math.round(x.rps.mean).toLocaleString('en-US'),
        half === null ? '–' : `±${Math.round(half).toLocaleString('en-US')}`,
        pct(x.rps.cov),
        ms(x.latency.p50),
        ms(x.latency.p99),
        String(x.errors + x.timeouts + x.unexpected),
        x.verdict + (x.failedTrials ? ` (${x.failedTrials} failed)` : ''),
      ]);
    }
    out.push(`\n${s.name}${s.load.connections.length > 1 ? ` (connections ${s.load.connections.join('→')})` : ` (${s.load.connections[0]} connections)`}`);
    out.push(table(rows));
    for (const v of failedVerify) out.push(`  ${v.target}: not benchmarked, failed verify: ${v.reason}`);
    if (sorted.some((x) => x.clientBoundTrials)) out.push("  * client-bound: the load generator's core was saturated, so that req/s is the loader's ceiling, not the server's.");
  }
  for (const t of r.targets.filter((t) => t.status !== 'ok')) out.push(`\n${t.name}: ${t.status} — ${t.reason}`);
  const costed = r.targets.filter((t) => t.costs);
  if (costed.length) {
    const rows = [['target', 'startup ms', 'idle RSS MB', 'idle PSS MB', 'processes', 'peak RSS MB', 'artifact MB']];
    const mb = (b: number | null | undefined) => (b === null || b === undefined ? '–' : (b / 1048576).toFixed(1));
    for (const t of costed) {
      const c = t.costs!;
      rows.push([t.name, c.startupMs.median.toFixed(0), mb(c.idleRssBytes), mb(c.idlePssBytes), String(c.processCount), mb(c.peakRssBytes), mb(c.artifact?.bytes)]);
    }
    out.push('\ncosts');
    out.push(table(rows));
  }
  const ok = r.trials.filter((t) => t.status === 'ok');
  const steal = ok.length ? ok.reduce((a, t) => a + (t.resources.cpuSteal ?? 0), 0) / ok.length : 0;
  const stolen = ok.filter((t) => (t.resources.cpuSteal ?? 0) > STEAL_NOTE).length;
  if (stolen) out.push(`\nhost noise: the hypervisor took ${(steal * 100).toFixed(1)}% of the measured cores' time on average (CPU steal), over ${(STEAL_NOTE * 100).toFixed(0)}% in ${stolen} of ${ok.length} trials; expect wide intervals and rerun on a quieter host before trusting small differences.`);
  const failed = r.trials.filter((t) => t.status === 'failed').length;
  const counts = Object.entries(r.verdict.counts).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ');
  out.push(
    `\noverall: ${r.verdict.overall} (${counts || 'no pairs'}); ${r.trials.length - failed}/${r.trials.length} trials ok; driver ${r.environment.driver.name} ${r.environment.driver.version}; ` +
      (r.environment.pinning.enabled ? `server on cpu ${r.environment.pinning.serverCpus.join(',')}, loader on cpu ${r.environment.pinning.loaderCpus.join(',')}` : `not pinned (${r.environment.pinning.reason})`) +
      (r.verdict.overhead ? `; overhead ${r.verdict.overhead.toFixed(2)}× the load windows` : '') +
      (r.runner ? `; runner peak RSS ${(r.runner.peakRssBytes / 1048576).toFixed(0)} MB` : '') +
      (r.interrupted ? '; INTERRUPTED: partial results' : ''),
  );
  return out.join('\n');
}
