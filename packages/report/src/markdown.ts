import type { BenchResult } from '@benchsuite/sdk';
import {
  DASH, ciHalf, escapeHtml, escapeMarkdown as md, fmtBytes, fmtDate, fmtDuration, fmtInt, fmtMs, fmtPct, fmtRps, fmtSeconds, valueText,
} from './format.js';
import {
  CLIENT_BOUND_NOTE, MISSING_LABEL, OVERALL_MEANING, buildModel, failureText, hostNoiseText, loadText, pinningText,
  type ReportModel, type ReportOptions, type ScenarioView,
} from './model.js';

const table = (head: string[], align: ('l' | 'r')[], rows: string[][]): string[] => [
  `| ${head.join(' | ')} |`,
  `|${align.map((a) => (a === 'r' ? '---:' : '---')).join('|')}|`,
  ...rows.map((r) => `| ${r.join(' | ')} |`),
];

/** Multi-line text (a diff, a stderr tail) in a collapsed block; `<pre>` so entities decode and nothing renders. */
const detailsBlock = (summary: string, text: string): string[] => [
  '<details><summary>' + escapeHtml(summary) + '</summary>',
  '',
  `<pre>${escapeHtml(text)}</pre>`,
  '',
  '</details>',
];

function header(m: ReportModel): string[] {
  const r = m.result;
  const env = r.environment;
  const v = r.verdict;
  const out = [`# ${md(m.title)}`, ''];
  if (r.interrupted) out.push('> **Interrupted:** the run was stopped early; trials that did not run are absent.', '');
  out.push(
    `**Verdict: ${v.overall}** — ${OVERALL_MEANING[v.overall]}. ` +
      `${m.noisyCount} of ${m.pairCount} pairs noisy, ${m.unreliableCount} unreliable` +
      (m.noisy.length ? ' (see [Noise](#noise)).' : '.'),
    '',
  );
  const durations = m.scenarios.map((s) => `${md(s.info.name)}: ${loadText(s.info)}`).join('<br>');
  const flags = env.driver.flags.length ? ` with ${md(env.driver.flags.join(' '))}` : ' (no extra flags)';
  out.push(
    ...table(['Run', ''], ['l', 'l'], [
      ['Date', `${fmtDate(r.startedAt)} → ${fmtDate(r.finishedAt)} (${fmtDuration(m.wallSec)})`],
      ['Suite', `${md(r.suite)} (seed ${r.seed})`],
      ['Trials', `${r.trialsPerPair} per (scenario, target) pair, interleaved in seeded order`],
      ['Durations', durations || DASH],
      ['Driver', `${md(env.driver.name)} ${md(env.driver.version)}${flags}${env.driver.ceilingNote ? `<br>${md(env.driver.ceilingNote)}` : ''}`],
      ['Pinning', md(pinningText(env.pinning))],
      ['Pair verdicts', (Object.entries(v.counts) as [string, number][]).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ') || DASH],
      ['Overhead', v.overhead == null ? DASH : `${v.overhead.toFixed(2)}× (wall time ÷ time under load)`],
      ['Host noise', md(hostNoiseText(r) ?? 'not recorded')],
      ['Runner peak RSS', r.runner ? `${(r.runner.peakRssBytes / 1048576).toFixed(0)} MB` : DASH],
      ['Reference', m.reference ? `${md(m.reference)} (= 100%)` : DASH],
    ]),
    '',
  );
  return out;
}

function rankings(m: ReportModel): string[] {
  const out = ['## Rankings', ''];
  out.push(`Places by mean RPS; targets not significantly different share a place (ties). "% of ${md(m.reference ?? 'reference')}" compares mean RPS.`, '');
  for (const s of m.scenarios) {
    out.push(`### ${md(s.info.name)}`, '');
    if (s.places.length === 0) out.push('No ranking (no target was measured).', '');
    else {
      out.push(...table(['Place', 'Target', 'Mean RPS', `% of ${md(m.reference ?? 'reference')}`], ['l', 'l', 'r', 'r'],
        s.places.flatMap((p) => p.entries.map((e) => [
          p.tie ? `${p.place} (tie)` : String(p.place), md(e.target), fmtRps(e.meanRps), fmtPct(e.ofReference),
        ]))), '');
      if (s.rankingMethod) out.push(`<sub>Method: ${md(s.rankingMethod)}</sub>`, '');
    }
    if (s.missing.length) out.push(`Not ranked: ${s.missing.map((x) => `${md(x.target)} (${MISSING_LABEL[x.kind]}: ${md(x.reason)})`).join('; ')}.`, '');
  }
  return out;
}

function scenarioSection(m: ReportModel, s: ScenarioView): string[] {
  const info = s.info;
  const out = [`## Scenario: ${md(info.name)}`, ''];
  if (info.description) out.push(md(info.description), '');
  const reqs = info.requests.map((q) => `${md(q.method)} ${md(q.path)}`).join(', ');
  out.push(`${reqs ? `Requests: ${reqs}. ` : ''}Expected status: ${info.expect.status.join(', ') || DASH}. Load: ${loadText(info)}.`, '');
  if (s.rows.length) {
    out.push(...table(
      ['Target', 'RPS (mean ± 95% CI)', 'SD', 'CoV', 'p50', 'p90', 'p99', 'p99.9', 'Errors', 'Non-2xx', 'Server CPU', 'RPS / CPU-s', 'Peak RSS', 'Verdict'],
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
      s.rows.map(({ target, summary: p, failures }) => {
        const half = ciHalf(p.rps.ci95);
        const marks = [
          p.clientBoundTrials > 0 ? `⚠ client-bound (${p.clientBoundTrials}/${p.okTrials})` : '',
          failures.length ? `⚠ ${failures.length}/${p.trials} trials failed` : '',
        ].filter(Boolean);
        return [
          `${md(target)}${marks.length ? ` ${marks.join(' ')}` : ''}`,
          `${fmtRps(p.rps.mean)}${half == null ? '' : ` ± ${fmtRps(half)}`}`,
          fmtRps(p.rps.sd),
          fmtPct(p.rps.cov),
          fmtMs(p.latency.p50), fmtMs(p.latency.p90), fmtMs(p.latency.p99), fmtMs(p.latency.p999),
          fmtInt(p.errors + p.timeouts), fmtInt(p.non2xx),
          fmtSeconds(p.serverCpuSeconds.n ? p.serverCpuSeconds.mean : null),
          fmtRps(p.rpsPerCpuSecond.n ? p.rpsPerCpuSecond.mean : null),
          fmtBytes(p.peakRssBytes),
          p.verdict,
        ];
      }),
    ), '');
    out.push('<sub>Latency percentiles from the histogram merged over trials. Errors include timeouts. Server CPU: CPU seconds of the server process tree per trial.</sub>', '');
  } else out.push('No target was measured in this scenario.', '');

  const clientBound = s.rows.filter((r) => r.summary.clientBoundTrials > 0);
  if (clientBound.length) {
    out.push(`⚠ **Client-bound:** ${CLIENT_BOUND_NOTE} Affected: ${clientBound.map((r) => `${md(r.target)} (${r.summary.clientBoundTrials} of ${r.summary.okTrials} trials)`).join(', ')}.`, '');
  }

  if (s.stepped && s.rows.length) {
    out.push(`### ${md(info.name)}: per step`, '');
    out.push(...table(
      ['Target', 'Connections', 'RPS (mean ± 95% CI)', 'CoV', 'p50', 'p90', 'p99', 'p99.9', 'Client-bound trials'],
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
      s.rows.flatMap(({ target, summary }) => summary.steps.map((st) => {
        const half = ciHalf(st.rps.ci95);
        return [
          md(target), String(st.connections), `${fmtRps(st.rps.mean)}${half == null ? '' : ` ± ${fmtRps(half)}`}`, fmtPct(st.rps.cov),
          fmtMs(st.latency.p50), fmtMs(st.latency.p90), fmtMs(st.latency.p99), fmtMs(st.latency.p999),
          st.clientBoundTrials ? `⚠ ${st.clientBoundTrials}` : '0',
        ];
      })),
    ), '');
  }

  for (const r of s.rows) {
    for (const f of r.failures) {
      out.push(`- ⚠ **${md(r.target)}**, trial ${f.trial} failed — ${md(failureText(f.failure))}`);
      if (f.failure.stderrTail) out.push('', ...detailsBlock(`last output of ${r.target}`, f.failure.stderrTail), '');
    }
  }
  if (s.rows.some((r) => r.failures.length)) out.push('');

  if (s.missing.length) {
    out.push('**Not measured in this scenario:**', '');
    for (const x of s.missing) {
      out.push(`- **${md(x.target)}** — ${MISSING_LABEL[x.kind]}: ${md(x.reason)}`);
      if (x.detail) out.push('', ...detailsBlock(x.kind === 'verify-failed' ? 'verify diff' : 'last output', x.detail), '');
    }
    out.push('');
  }
  return out;
}

function noise(m: ReportModel): string[] {
  const out = ['## Noise', ''];
  if (!m.noisy.length) return [...out, 'No pair is noisy or unreliable.', ''];
  out.push('Pairs whose trial-to-trial variation (CoV) of RPS or p99 exceeds 5%: differences involving them are uncertain.', '');
  out.push(...table(['Scenario', 'Target', 'Verdict', 'Ok trials', 'CoV of RPS', 'CoV of p99'], ['l', 'l', 'l', 'r', 'r', 'r'],
    m.noisy.map((n) => [md(n.scenario), md(n.target), n.verdict, String(n.okTrials), fmtPct(n.covRps), fmtPct(n.covP99)])), '');
  return out;
}

function costs(m: ReportModel): string[] {
  if (!m.targetsWithCosts.length) return [];
  const out = ['## Costs', ''];
  out.push(...table(['Target', 'Startup (median)', 'Idle RSS', 'Idle PSS', 'Processes', 'Peak RSS under load', 'Artifact size'], ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
    m.targetsWithCosts.map((t) => {
      const c = t.costs!;
      return [
        md(t.name), `${c.startupMs.median.toFixed(1)} ms (n=${c.startupMs.samples.length})`, fmtBytes(c.idleRssBytes), fmtBytes(c.idlePssBytes),
        String(c.processCount), fmtBytes(c.peakRssBytes), c.artifact ? fmtBytes(c.artifact.bytes) : DASH,
      ];
    })), '');
  const methods = m.targetsWithCosts.flatMap((t) => [
    `${md(t.name)} startup: ${md(t.costs!.startupMs.method)}`,
    ...(t.costs!.artifact ? [`${md(t.name)} artifact: ${md(t.costs!.artifact.method)}`] : []),
  ]);
  out.push(`<sub>Methods — ${methods.join('; ')}.</sub>`, '');
  return out;
}

function environment(m: ReportModel): string[] {
  const r: BenchResult = m.result;
  const e = r.environment;
  const out = ['## Environment', ''];
  out.push(...table(['Machine', ''], ['l', 'l'], [
    ['OS', `${md(e.os)} (kernel ${md(e.kernel)}, ${md(e.arch)})`],
    ['CPU', `${md(e.cpuModel)}, ${e.cores} cores`],
    ['Memory', fmtBytes(e.memoryBytes)],
    ...(e.hostname ? [['Host', md(e.hostname)]] : []),
    ['Load average at start', e.loadavgAtStart.map((x) => x.toFixed(2)).join(' / ') || DASH],
    ['Runtimes', `Node ${md(e.node)}, Python ${e.python ? md(e.python) : 'not found'}`],
    ['benchsuite', `${md(e.benchsuite)}${e.git ? ` @ ${md(e.git.commit.slice(0, 12))}${e.git.dirty ? ' (dirty)' : ''}` : ''}`],
    ['Server environment', `unset: ${e.serverEnv.unset.map(md).join(', ') || 'none'}; set: ${Object.entries(e.serverEnv.set).map(([k, v]) => `${md(k)}=${md(v)}`).join(', ') || 'none'}`],
  ]), '');

  out.push('### Targets', '');
  const ts = r.targets;
  const row = (label: string, f: (t: BenchResult['targets'][number]) => string) => [label, ...ts.map(f)];
  out.push(...table(['', ...ts.map((t) => md(t.name))], ['l', ...ts.map(() => 'l' as const)], [
    row('Status', (t) => (t.status === 'ok' ? 'ok' : `${t.status}: ${md(t.reason ?? 'no reason given')}`)),
    row('Version', (t) => md(t.version ?? DASH)),
    row('Language', (t) => md(t.language ?? DASH)),
    row('Framework', (t) => md(t.framework ?? DASH)),
    row('Kind', (t) => t.kind),
    row('Command / URL', (t) => md(t.command ? t.command.join(' ') : t.url ?? DASH)),
    ...m.metadataKeys.map((k) => row(md(k), (t) => (k in t.metadata ? md(valueText(t.metadata[k])) : DASH))),
  ]), '');
  return out;
}

/**
 * The result as GitHub-flavoured Markdown: header and verdict, rankings, one table per scenario
 * (with a row per step for stepped loads), noise, costs and environment. Every string taken from
 * the result is escaped. Pure.
 * @example writeFileSync('report.md', renderMarkdown(result, { reference: 'node-http' }))
 */
export function renderMarkdown(result: BenchResult, options: ReportOptions = {}): string {
  const m = buildModel(result, options);
  const lines = [
    ...header(m),
    ...rankings(m),
    ...m.scenarios.flatMap((s) => scenarioSection(m, s)),
    ...noise(m),
    ...costs(m),
    ...environment(m),
  ];
  return lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}
