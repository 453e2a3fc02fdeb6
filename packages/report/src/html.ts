import { createHash } from 'node:crypto';
import { decodeHistogram, type BenchResult, type PairSummary } from '@benchsuite/sdk';
import {
  DASH, ciHalf, escapeHtml as esc, fmtBytes, fmtDate, fmtDuration, fmtInt, fmtMs, fmtPct, fmtRps, fmtSeconds, valueText,
} from './format.js';
import {
  CLIENT_BOUND_NOTE, MISSING_LABEL, OVERALL_MEANING, buildModel, failureText, hostNoiseText, loadText, pinningText,
  type ReportModel, type ReportOptions, type ScenarioView,
} from './model.js';
import { PALETTE, SVG_DEFS, barChart, lineChart, type LineSeries } from './svg.js';

/** Table cell: text is escaped here; `v` is the numeric sort key (absent = sorts last). */
interface Cell { html: string; v?: number | null; num?: boolean; cls?: string }
const cell = (text: string, v?: number | null, num = v !== undefined): Cell => ({ html: esc(text), v, num });
const raw = (html: string, v?: number | null, num = false): Cell => ({ html, v, num });

function tableHtml(head: { label: string; num?: boolean; title?: string }[], rows: Cell[][], extraBody = '', caption?: string): string {
  const th = head.map((h) => `<th scope="col"${h.num ? ' class="num"' : ''}${h.title ? ` title="${esc(h.title)}"` : ''}>${esc(h.label)}</th>`).join('');
  const tr = rows.map((r) => `<tr>${r.map((c) => {
    const cls = [c.num ? 'num' : '', c.cls ?? ''].filter(Boolean).join(' ');
    const v = c.v != null && Number.isFinite(c.v) ? ` data-v="${c.v}"` : '';
    return `<td${cls ? ` class="${cls}"` : ''}${v}>${c.html}</td>`;
  }).join('')}</tr>`).join('\n');
  return `<div class="table-wrap"><table class="sortable">${caption ? `<caption>${esc(caption)}</caption>` : ''}<thead><tr>${th}</tr></thead><tbody>${tr}</tbody>${extraBody}</table></div>`;
}

const badge = (v: string) => `<span class="badge v-${esc(v)}">${esc(v)}</span>`;
const slug = (s: string, i: number) => `s${i + 1}-${s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40)}`;
const details = (summary: string, text: string) => `<details><summary>${esc(summary)}</summary><pre>${esc(text)}</pre></details>`;

function colorOf(result: BenchResult): (target: string) => string {
  const names = result.targets.map((t) => t.name);
  for (const s of result.summaries) if (!names.includes(s.target)) names.push(s.target);
  return (t) => PALETTE[Math.max(0, names.indexOf(t)) % PALETTE.length]!;
}

function headerHtml(m: ReportModel): string {
  const r = m.result;
  const env = r.environment;
  const v = r.verdict;
  const items: [string, string][] = [
    ['Date', `${esc(fmtDate(r.startedAt))} → ${esc(fmtDate(r.finishedAt))}`],
    ['Wall time', esc(fmtDuration(m.wallSec))],
    ['Suite', `${esc(r.suite)} <span class="muted">(seed ${r.seed})</span>`],
    ['Trials', `${r.trialsPerPair} per (scenario, target) pair, interleaved`],
    ['Durations', `<ul class="plain">${m.scenarios.map((s) => `<li><b>${esc(s.info.name)}</b>: ${esc(loadText(s.info))}</li>`).join('')}</ul>`],
    ['Driver', `${esc(env.driver.name)} ${esc(env.driver.version)}${env.driver.flags.length ? ` <code>${esc(env.driver.flags.join(' '))}</code>` : ' <span class="muted">(no extra flags)</span>'}${env.driver.ceilingNote ? `<br><span class="muted">${esc(env.driver.ceilingNote)}</span>` : ''}`],
    ['Pinning', esc(pinningText(env.pinning))],
    ['Pair verdicts', (Object.entries(v.counts) as [string, number][]).filter(([, k]) => k > 0).map(([k, c]) => `${c} ${badge(k)}`).join(' ') || DASH],
    ['Overhead', v.overhead == null ? DASH : `${v.overhead.toFixed(2)}× <span class="muted">(wall time ÷ time under load)</span>`],
    ['Host noise', esc(hostNoiseText(r) ?? 'not recorded')],
    ['Runner peak RSS', r.runner ? `${(r.runner.peakRssBytes / 1048576).toFixed(0)} MB` : DASH],
    ['Reference', m.reference ? `${esc(m.reference)} <span class="muted">(= 100%)</span>` : DASH],
  ];
  return `<header class="card">
<h1>${esc(m.title)}</h1>
${r.interrupted ? '<p class="alert">Interrupted: the run was stopped early; trials that did not run are absent.</p>' : ''}
<p class="verdict">${badge(v.overall)} <span>${esc(OVERALL_MEANING[v.overall])}. <b>${m.noisyCount}</b> of ${m.pairCount} pairs noisy, <b>${m.unreliableCount}</b> unreliable${m.noisy.length ? ' — see <a href="#noise">Noise</a>' : ''}.</span></p>
<dl class="meta">${items.map(([k, h]) => `<dt>${k}</dt><dd>${h}</dd>`).join('')}</dl>
</header>`;
}

function navHtml(m: ReportModel): string {
  const links = [
    ['rankings', 'Rankings'],
    ...m.scenarios.map((s, i) => [slug(s.info.name, i), s.info.name] as [string, string]),
    ['noise', 'Noise'],
    ...(m.targetsWithCosts.length ? [['costs', 'Costs'] as [string, string]] : []),
    ['environment', 'Environment'],
  ];
  return `<nav aria-label="Sections">${links.map(([id, label]) => `<a href="#${esc(id!)}">${esc(label!)}</a>`).join('')}</nav>`;
}

function rankingsHtml(m: ReportModel): string {
  const ref = m.reference ?? 'reference';
  const cards = m.scenarios.map((s, i) => {
    const rows = s.places.flatMap((p) => p.entries.map((e): Cell[] => [
      raw(`${p.tie ? `<span class="tie" title="not significantly different">${p.place} =</span>` : String(p.place)}`, p.place, true),
      raw(`<span class="dot" style="background:${colorOf(m.result)(e.target)}"></span>${esc(e.target)}`),
      cell(fmtRps(e.meanRps), e.meanRps),
      raw(e.ofReference == null ? DASH : `<span class="pctbar"><span style="width:${Math.min(100, e.ofReference * 100 / Math.max(1, ...s.places.flatMap((q) => q.entries.map((x) => x.ofReference ?? 0))))}%"></span></span>${esc(fmtPct(e.ofReference))}`, e.ofReference, true),
    ]));
    const notRanked = s.missing.length
      ? `<p class="muted small">Not ranked: ${s.missing.map((x) => `<b>${esc(x.target)}</b> (${esc(MISSING_LABEL[x.kind])}: ${esc(x.reason)})`).join('; ')}.</p>` : '';
    return `<div class="rank-card"><h3><a href="#${slug(s.info.name, i)}">${esc(s.info.name)}</a></h3>${
      s.places.length ? tableHtml([{ label: 'Place', num: true }, { label: 'Target' }, { label: 'Mean RPS', num: true }, { label: `% of ${ref}`, num: true }], rows) : '<p>No target was measured.</p>'
    }${notRanked}</div>`;
  }).join('\n');
  const method = m.scenarios.find((s) => s.rankingMethod)?.rankingMethod;
  return `<section id="rankings"><h2>Rankings</h2>
<p class="muted">Places by mean RPS. Targets that are not significantly different share a place (shown as <span class="tie">n =</span>).${method ? ` Method: ${esc(method)}.` : ''}</p>
<div class="rank-grid">${cards}</div></section>`;
}

const PERCENTILES = [50, 75, 90, 95, 99, 99.5, 99.9, 99.99];
const px = (p: number) => Math.log10(100 / (100 - p));

function latencySeries(rows: { target: string; summary: PairSummary }[], color: (t: string) => string): LineSeries[] {
  const out: LineSeries[] = [];
  for (const { target, summary } of rows) {
    let points: LineSeries['points'];
    try {
      const h = decodeHistogram(summary.histogram);
      if (h.totalCount === 0) continue;
      points = PERCENTILES.map((p) => ({ x: px(p), y: h.getValueAtPercentile(p) / 1000 }));
    } catch {
      // An undecodable histogram: fall back to the stored percentiles rather than drop the target.
      const l = summary.latency;
      points = [[50, l.p50], [90, l.p90], [99, l.p99], [99.9, l.p999]].map(([p, us]) => ({ x: px(p!), y: us! / 1000 }));
    }
    out.push({ name: target, color: color(target), points });
  }
  return out;
}

const msFmt = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3)) + ' ms';
/** Axis ticks: short, no trailing zeros (`0.5 ms`, `20 ms`). */
const msTick = (v: number) => `${Number(v.toPrecision(3))} ms`;
const unitTick = (unit: string) => (v: number) => `${Number(v.toPrecision(3))}${unit}`;
const compact = (v: number) => (v >= 1e6 ? `${(v / 1e6).toFixed(v >= 1e7 ? 0 : 1)}M` : v >= 1e3 ? `${(v / 1e3).toFixed(v >= 1e4 ? 0 : 1)}k` : v.toFixed(v < 10 && v % 1 ? 1 : 0));

function scenarioHtml(m: ReportModel, s: ScenarioView, index: number): string {
  const color = colorOf(m.result);
  const info = s.info;
  const parts: string[] = [];
  parts.push(`<section id="${slug(info.name, index)}"><h2>Scenario: ${esc(info.name)}</h2>`);
  if (info.description) parts.push(`<p>${esc(info.description)}</p>`);
  const reqs = info.requests.map((q) => `<code>${esc(q.method)} ${esc(q.path)}</code>`).join(', ');
  parts.push(`<p class="muted">${reqs ? `Requests: ${reqs}. ` : ''}Expected status: ${esc(info.expect.status.join(', ') || DASH)}. Load: ${esc(loadText(info))}.</p>`);

  const refRow = s.rows.find((r) => r.target === m.reference);
  if (s.rows.length) {
    const charts: string[] = [];
    charts.push(barChart({
      title: 'Requests per second (mean, 95% CI)',
      axisLabel: 'requests / s',
      format: (v) => fmtRps(v),
      tickFormat: compact,
      rows: s.rows.map((r) => ({
        label: r.target, value: r.summary.rps.mean, lo: r.summary.rps.ci95?.[0], hi: r.summary.rps.ci95?.[1], color: color(r.target),
        hatched: r.summary.clientBoundTrials > 0, ...(r.summary.clientBoundTrials > 0 ? { note: '⚠' } : {}),
      })),
      ...(refRow && s.rows.length > 1 ? { marker: { value: refRow.summary.rps.mean, label: m.reference ?? '' } } : {}),
    }));
    const lat = latencySeries(s.rows, color);
    if (lat.length) {
      charts.push(lineChart({
        title: 'Latency by percentile (merged histogram, log scales)',
        series: lat,
        xTicks: [50, 90, 99, 99.9, 99.99].map((p) => ({ x: px(p), label: `p${p}` })),
        xLabel: 'percentile', yLabel: 'latency (ms)', yLog: true, yFormat: msFmt, yTickFormat: msTick,
      }));
    }
    parts.push(`<div class="charts two">${charts.join('')}</div>`);

    const head = [
      { label: 'Target' }, { label: 'RPS', num: true, title: 'mean ± 95% CI' }, { label: 'SD', num: true }, { label: 'CoV', num: true },
      { label: 'p50', num: true }, { label: 'p90', num: true }, { label: 'p99', num: true }, { label: 'p99.9', num: true },
      { label: 'Errors', num: true, title: 'socket errors and timeouts' }, { label: 'Non-2xx', num: true },
      { label: 'Server CPU', num: true, title: 'CPU seconds of the server process tree per trial' }, { label: 'RPS / CPU-s', num: true },
      { label: 'Peak RSS', num: true }, { label: 'Verdict' },
    ];
    const rows = s.rows.map(({ target, summary: p, failures }): Cell[] => {
      const half = ciHalf(p.rps.ci95);
      const marks = [
        p.clientBoundTrials > 0 ? `<span class="flag warn" title="${esc(CLIENT_BOUND_NOTE)}">client-bound ${p.clientBoundTrials}/${p.okTrials}</span>` : '',
        failures.length ? `<span class="flag bad">${failures.length}/${p.trials} trials failed</span>` : '',
      ].join('');
      return [
        raw(`<span class="dot" style="background:${color(target)}"></span><span class="tname">${esc(target)}</span>${marks}`),
        raw(`${esc(fmtRps(p.rps.mean))}${half == null ? '' : ` <span class="muted">± ${esc(fmtRps(half))}</span>`}`, p.rps.mean, true),
        cell(fmtRps(p.rps.sd), p.rps.sd), cell(fmtPct(p.rps.cov), p.rps.cov),
        cell(fmtMs(p.latency.p50), p.latency.p50), cell(fmtMs(p.latency.p90), p.latency.p90),
        cell(fmtMs(p.latency.p99), p.latency.p99), cell(fmtMs(p.latency.p999), p.latency.p999),
        cell(fmtInt(p.errors + p.timeouts), p.errors + p.timeouts), cell(fmtInt(p.non2xx), p.non2xx),
        cell(fmtSeconds(p.serverCpuSeconds.n ? p.serverCpuSeconds.mean : null), p.serverCpuSeconds.n ? p.serverCpuSeconds.mean : null),
        cell(fmtRps(p.rpsPerCpuSecond.n ? p.rpsPerCpuSecond.mean : null), p.rpsPerCpuSecond.n ? p.rpsPerCpuSecond.mean : null),
        cell(fmtBytes(p.peakRssBytes), p.peakRssBytes),
        raw(badge(p.verdict)),
      ];
    });
    const missingBody = s.missing.length
      ? `<tbody class="missing">${s.missing.map((x) => `<tr><td>${esc(x.target)}</td><td colspan="${head.length - 1}"><span class="flag ${x.kind === 'skipped' || x.kind === 'not-run' ? 'skip' : 'bad'}">${esc(MISSING_LABEL[x.kind])}</span> ${esc(x.reason)}${x.detail ? details(x.kind === 'verify-failed' ? 'verify diff' : 'last output', x.detail) : ''}</td></tr>`).join('')}</tbody>`
      : '';
    parts.push(tableHtml(head, rows, missingBody));
    parts.push('<p class="muted small">Latency percentiles come from the histogram merged over trials (never averages of percentiles). Click a column header to sort.</p>');
  } else {
    parts.push('<p>No target was measured in this scenario.</p>');
    if (s.missing.length) {
      parts.push(`<ul>${s.missing.map((x) => `<li><b>${esc(x.target)}</b> — ${esc(MISSING_LABEL[x.kind])}: ${esc(x.reason)}${x.detail ? details('detail', x.detail) : ''}</li>`).join('')}</ul>`);
    }
  }

  const clientBound = s.rows.filter((r) => r.summary.clientBoundTrials > 0);
  if (clientBound.length) {
    parts.push(`<p class="note warn"><b>Client-bound.</b> ${esc(CLIENT_BOUND_NOTE)} Affected: ${clientBound.map((r) => `${esc(r.target)} (${r.summary.clientBoundTrials} of ${r.summary.okTrials} trials)`).join(', ')}.</p>`);
  }
  const failures = s.rows.flatMap((r) => r.failures.map((f) => ({ target: r.target, f })));
  if (failures.length) {
    parts.push(`<div class="note bad"><b>Failed trials.</b><ul>${failures.map(({ target, f }) => `<li>${esc(target)}, trial ${f.trial}: ${esc(failureText(f.failure))}${f.failure.stderrTail ? details('last output', f.failure.stderrTail) : ''}</li>`).join('')}</ul></div>`);
  }

  if (s.stepped && s.rows.length) {
    parts.push(`<h3>Per step</h3>`);
    const series: LineSeries[] = s.rows.map(({ target, summary }) => ({
      name: target, color: color(target),
      points: summary.steps.map((st) => ({ x: Math.log2(st.connections), y: st.rps.mean, lo: st.rps.ci95?.[0] ?? null, hi: st.rps.ci95?.[1] ?? null })),
    }));
    const conns = [...new Set(s.rows.flatMap((r) => r.summary.steps.map((st) => st.connections)))].sort((a, b) => a - b);
    const p99Series: LineSeries[] = s.rows.map(({ target, summary }) => ({
      name: target, color: color(target), points: summary.steps.map((st) => ({ x: Math.log2(st.connections), y: st.latency.p99 / 1000 })),
    }));
    parts.push(`<div class="charts two">${lineChart({
      title: 'RPS by connections (mean, 95% CI)', series, xTicks: conns.map((c) => ({ x: Math.log2(c), label: String(c) })),
      xLabel: 'connections', yLabel: 'requests / s', yFormat: compact,
    })}${lineChart({
      title: 'p99 latency by connections (log scale)', series: p99Series, xTicks: conns.map((c) => ({ x: Math.log2(c), label: String(c) })),
      xLabel: 'connections', yLabel: 'p99 (ms)', yLog: true, yFormat: msFmt, yTickFormat: msTick,
    })}</div>`);
    parts.push(tableHtml(
      [{ label: 'Target' }, { label: 'Connections', num: true }, { label: 'RPS', num: true, title: 'mean ± 95% CI' }, { label: 'CoV', num: true },
        { label: 'p50', num: true }, { label: 'p90', num: true }, { label: 'p99', num: true }, { label: 'p99.9', num: true }, { label: 'Client-bound trials', num: true }],
      s.rows.flatMap(({ target, summary }) => summary.steps.map((st): Cell[] => {
        const half = ciHalf(st.rps.ci95);
        return [
          raw(`<span class="dot" style="background:${color(target)}"></span>${esc(target)}`), cell(String(st.connections), st.connections),
          raw(`${esc(fmtRps(st.rps.mean))}${half == null ? '' : ` <span class="muted">± ${esc(fmtRps(half))}</span>`}`, st.rps.mean, true),
          cell(fmtPct(st.rps.cov), st.rps.cov),
          cell(fmtMs(st.latency.p50), st.latency.p50), cell(fmtMs(st.latency.p90), st.latency.p90),
          cell(fmtMs(st.latency.p99), st.latency.p99), cell(fmtMs(st.latency.p999), st.latency.p999),
          raw(st.clientBoundTrials ? `<span class="flag warn">${st.clientBoundTrials}</span>` : '0', st.clientBoundTrials, true),
        ];
      })),
    ));
  }

  if (s.rows.length) {
    const bars = (title: string, axisLabel: string, f: (p: PairSummary) => number | null, format: (v: number) => string, tickFormat: (v: number) => string, ci?: (p: PairSummary) => [number, number] | null) =>
      barChart({
        title, axisLabel, format, tickFormat, width: 380,
        rows: s.rows.map((r) => {
          const c = ci?.(r.summary) ?? null;
          return { label: r.target, value: f(r.summary), color: color(r.target), lo: c?.[0] ?? null, hi: c?.[1] ?? null };
        }),
      });
    parts.push(`<h3>CPU and memory</h3><div class="charts three">${[
      bars('Server CPU per trial', 'CPU seconds', (p) => (p.serverCpuSeconds.n ? p.serverCpuSeconds.mean : null), (v) => `${v.toFixed(1)} s`, unitTick(' s'), (p) => p.serverCpuSeconds.ci95),
      bars('RPS per CPU-second', 'requests / CPU-s', (p) => (p.rpsPerCpuSecond.n ? p.rpsPerCpuSecond.mean : null), compact, compact, (p) => p.rpsPerCpuSecond.ci95),
      bars('Peak RSS under load', 'MiB', (p) => p.peakRssBytes / 2 ** 20, (v) => `${v.toFixed(v >= 100 ? 0 : 1)} MiB`, unitTick('')),
    ].join('')}</div>`);
  }
  parts.push('</section>');
  return parts.join('\n');
}

function noiseHtml(m: ReportModel): string {
  if (!m.noisy.length) return '<section id="noise"><h2>Noise</h2><p>No pair is noisy or unreliable.</p></section>';
  return `<section id="noise"><h2>Noise</h2>
<p class="muted">Pairs whose trial-to-trial variation (CoV) of RPS or of p99 exceeds 5%. Differences involving them are uncertain; rerun with more trials or a quieter machine.</p>
${tableHtml(
    [{ label: 'Scenario' }, { label: 'Target' }, { label: 'Verdict' }, { label: 'Ok trials', num: true }, { label: 'CoV of RPS', num: true }, { label: 'CoV of p99', num: true }],
    m.noisy.map((x) => [cell(x.scenario), cell(x.target), raw(badge(x.verdict)), cell(String(x.okTrials), x.okTrials), cell(fmtPct(x.covRps), x.covRps), cell(fmtPct(x.covP99), x.covP99)]),
  )}</section>`;
}

function costsHtml(m: ReportModel): string {
  if (!m.targetsWithCosts.length) return '';
  const rows = m.targetsWithCosts.map((t): Cell[] => {
    const c = t.costs!;
    return [
      cell(t.name),
      raw(`${esc(`${c.startupMs.median.toFixed(1)} ms`)} <span class="muted" title="${esc(c.startupMs.method)}">(n=${c.startupMs.samples.length})</span>`, c.startupMs.median, true),
      cell(fmtBytes(c.idleRssBytes), c.idleRssBytes), cell(fmtBytes(c.idlePssBytes), c.idlePssBytes), cell(String(c.processCount), c.processCount),
      cell(fmtBytes(c.peakRssBytes), c.peakRssBytes),
      raw(c.artifact ? `${esc(fmtBytes(c.artifact.bytes))}` : DASH, c.artifact?.bytes ?? null, true),
    ];
  });
  const methods = m.targetsWithCosts.flatMap((t) => [
    `<li><b>${esc(t.name)}</b> startup: ${esc(t.costs!.startupMs.method)}${t.costs!.artifact ? `; artifact: ${esc(t.costs!.artifact.method)}` : ''}</li>`,
  ]);
  return `<section id="costs"><h2>Costs</h2>
${tableHtml([{ label: 'Target' }, { label: 'Startup (median)', num: true }, { label: 'Idle RSS', num: true }, { label: 'Idle PSS', num: true }, { label: 'Processes', num: true }, { label: 'Peak RSS under load', num: true }, { label: 'Artifact size', num: true }], rows)}
<ul class="muted small">${methods.join('')}</ul></section>`;
}

function environmentHtml(m: ReportModel): string {
  const r = m.result;
  const e = r.environment;
  const machine: [string, string][] = [
    ['OS', `${e.os} (kernel ${e.kernel}, ${e.arch})`],
    ['CPU', `${e.cpuModel}, ${e.cores} cores`],
    ['Memory', fmtBytes(e.memoryBytes)],
    ...(e.hostname ? [['Host', e.hostname] as [string, string]] : []),
    ['Load average at start', e.loadavgAtStart.map((x) => x.toFixed(2)).join(' / ') || DASH],
    ['Node', e.node],
    ['Python', e.python ?? 'not found'],
    ['benchsuite', `${e.benchsuite}${e.git ? ` @ ${e.git.commit.slice(0, 12)}${e.git.dirty ? ' (dirty)' : ''}` : ''}`],
    ['Server environment', `unset: ${e.serverEnv.unset.join(', ') || 'none'}; set: ${Object.entries(e.serverEnv.set).map(([k, v]) => `${k}=${v}`).join(', ') || 'none'}`],
  ];
  const ts = r.targets;
  const row = (label: string, f: (t: BenchResult['targets'][number]) => string, cls = '') =>
    `<tr${cls ? ` class="${cls}"` : ''}><th scope="row">${esc(label)}</th>${ts.map((t) => `<td>${f(t)}</td>`).join('')}</tr>`;
  const targets = `<div class="table-wrap"><table class="side"><thead><tr><th></th>${ts.map((t) => `<th scope="col"><span class="dot" style="background:${colorOf(r)(t.name)}"></span>${esc(t.name)}</th>`).join('')}</tr></thead><tbody>
${row('Status', (t) => (t.status === 'ok' ? 'ok' : `<span class="flag ${t.status === 'skipped' ? 'skip' : 'bad'}">${esc(t.status)}</span> ${esc(t.reason ?? 'no reason given')}`))}
${row('Version', (t) => esc(t.version ?? DASH))}
${row('Language', (t) => esc(t.language ?? DASH))}
${row('Framework', (t) => esc(t.framework ?? DASH))}
${row('Kind', (t) => esc(t.kind))}
${row('Command / URL', (t) => (t.command ? `<code>${esc(t.command.join(' '))}</code>` : esc(t.url ?? DASH)))}
${m.metadataKeys.map((k) => row(k, (t) => (k in t.metadata ? esc(valueText(t.metadata[k])) : `<span class="muted">${DASH}</span>`), 'meta')).join('\n')}
</tbody></table></div>`;
  return `<section id="environment"><h2>Environment</h2>
<div class="env-grid"><div><h3>Machine and runtimes</h3><table class="kv"><tbody>${machine.map(([k, v]) => `<tr><th scope="row">${esc(k)}</th><td>${esc(v)}</td></tr>`).join('')}</tbody></table></div></div>
<h3>Targets, versions and fairness manifest</h3>${targets}</section>`;
}

const CSS = `
:root{--fg:#1f2937;--muted:#6b7280;--border:#e5e7eb;--bg:#f4f5f7;--card:#fff;--accent:#2563eb}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1280px;margin:0 auto;padding:20px 24px 48px}
h1{font-size:24px;margin:0 0 8px}h2{font-size:19px;margin:0 0 10px}h3{font-size:15px;margin:18px 0 8px}
a{color:var(--accent)}code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f1f5f9;padding:1px 4px;border-radius:4px}
.card,section{background:var(--card);border:1px solid var(--border);border-radius:12px;padding:20px 24px;margin:16px 0;box-shadow:0 1px 2px rgba(0,0,0,.03)}
.muted{color:var(--muted)}.small{font-size:12.5px}
.verdict{font-size:15px;display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}
.alert{background:#fef2f2;border:1px solid #fecaca;border-radius:8px;padding:8px 12px;color:#991b1b}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:4px 18px;margin:14px 0 0}
dl.meta dt{color:var(--muted);font-weight:500}dl.meta dd{margin:0}
ul.plain{list-style:none;margin:0;padding:0}
nav{position:sticky;top:0;z-index:2;display:flex;flex-wrap:wrap;gap:4px;padding:8px 0;background:var(--bg)}
nav a{padding:4px 10px;border-radius:999px;background:#e8edf5;text-decoration:none;color:#1e3a8a;font-size:13px}
nav a:hover{background:#dbe4f3}
.badge{display:inline-block;padding:1px 9px;border-radius:999px;font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.03em}
.v-excellent,.v-clean{background:#dcfce7;color:#166534}.v-acceptable{background:#e0f2fe;color:#075985}
.v-noisy{background:#fef3c7;color:#92400e}.v-unreliable{background:#fee2e2;color:#991b1b}.v-insufficient{background:#e5e7eb;color:#374151}
td .badge{font-size:10.5px;padding:1px 6px;letter-spacing:0}
.flag{display:inline-block;white-space:nowrap;margin-left:6px;padding:0 6px;border-radius:4px;font-size:11.5px;font-weight:600}
.flag.warn{background:#fef3c7;color:#92400e}.flag.bad{background:#fee2e2;color:#991b1b}.flag.skip{background:#e5e7eb;color:#374151}
.note{border-radius:8px;padding:8px 12px;margin:10px 0}.note.warn{background:#fffbeb;border:1px solid #fde68a}.note.bad{background:#fef2f2;border:1px solid #fecaca}
.note ul{margin:4px 0 0;padding-left:18px}
.dot{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:7px;vertical-align:0}
.table-wrap{overflow-x:auto;margin:8px 0}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums;font-size:13px}
th,td{padding:5px 8px;border-bottom:1px solid var(--border);text-align:left;vertical-align:top}
thead th{font-size:11px;text-transform:uppercase;letter-spacing:.02em;color:var(--muted);border-bottom:2px solid var(--border);white-space:nowrap}
td{white-space:nowrap}td:first-child{white-space:normal;min-width:110px}td.num,th.num{text-align:right}
tbody tr:hover{background:#f8fafc}
tbody.missing td{color:#4b5563;background:#fafafa;white-space:normal}
table.kv th,table.side th[scope=row]{color:var(--muted);font-weight:500;white-space:nowrap;width:1%}
table.side td{white-space:normal}table.side tr.meta th{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
details{margin-top:4px}summary{cursor:pointer;color:var(--accent);font-size:12.5px}
pre{background:#0f172a;color:#e2e8f0;padding:10px 12px;border-radius:8px;overflow-x:auto;font:12px/1.45 ui-monospace,Menlo,Consolas,monospace;white-space:pre}
.charts{display:grid;gap:18px;margin:10px 0 14px}.charts.two{grid-template-columns:repeat(auto-fit,minmax(460px,1fr))}.charts.three{grid-template-columns:repeat(auto-fit,minmax(300px,1fr))}
svg.chart{width:100%;height:auto;overflow:visible}
svg.chart text{font-size:12.5px;fill:#374151;font-family:inherit}svg.chart .chart-title{font-size:13px;font-weight:600;fill:#111827}
svg.chart .tick,svg.chart .axis{fill:#6b7280;font-size:11px}svg.chart .note{fill:#b45309}
svg.chart .grid{stroke:#eef0f3}svg.chart .whisker{stroke:#111827;stroke-width:1.4;fill:none}svg.chart .marker{stroke:#6b7280;stroke-dasharray:4 3}
.rank-grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(340px,1fr));gap:16px}.rank-card thead th{white-space:normal}.rank-card td:first-child{min-width:0}
.rank-card{border:1px solid var(--border);border-radius:10px;padding:10px 14px}.rank-card h3{margin:4px 0}
.tie{color:#7c3aed;font-weight:600}
.pctbar{display:inline-block;width:40px;height:6px;background:#eef0f3;border-radius:3px;margin-right:8px;vertical-align:middle;overflow:hidden}
.pctbar span{display:block;height:100%;background:#93c5fd}
.js table.sortable thead th{cursor:pointer;user-select:none}
.js table.sortable thead th[aria-sort=ascending]::after{content:" ▲"}.js table.sortable thead th[aria-sort=descending]::after{content:" ▼"}
footer{color:var(--muted);font-size:12px;text-align:center;margin-top:24px}
@media print{nav{display:none}.card,section{box-shadow:none;break-inside:avoid-page}}
`;

/** Sorting is progressive enhancement: tables are complete without it. Missing cells sort last. */
const SCRIPT = `document.documentElement.classList.add('js');
for (const t of document.querySelectorAll('table.sortable')) {
  const ths = Array.from(t.tHead.rows[0].cells);
  ths.forEach((th, i) => {
    th.tabIndex = 0;
    const go = () => {
      const dir = th.getAttribute('aria-sort') === 'descending' ? 'ascending' : 'descending';
      for (const h of ths) h.removeAttribute('aria-sort');
      th.setAttribute('aria-sort', dir);
      const body = t.tBodies[0];
      const key = (r) => { const c = r.cells[i]; if (!c) return null; if (c.dataset.v !== undefined) return Number(c.dataset.v); const s = c.textContent.trim(); return s === '\\u2014' ? null : s.toLowerCase(); };
      const rows = Array.from(body.rows).map((r) => [key(r), r]);
      rows.sort((a, b) => {
        if (a[0] === null || b[0] === null) return a[0] === null ? (b[0] === null ? 0 : 1) : -1;
        const c = typeof a[0] === 'number' && typeof b[0] === 'number' ? a[0] - b[0] : String(a[0]).localeCompare(String(b[0]));
        return dir === 'ascending' ? c : -c;
      });
      for (const [, r] of rows) body.appendChild(r);
    };
    th.addEventListener('click', go);
    th.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); go(); } });
  });
}`;

const SCRIPT_HASH = createHash('sha256').update(SCRIPT).digest('base64');

/**
 * The result as one self-contained HTML file: inline CSS, inline SVG charts drawn here (readable
 * without JavaScript), a small inline script for sortable tables, and a Content-Security-Policy
 * that forbids any network fetch and any script but that one. Every string from the result is
 * escaped. Pure.
 * @example writeFileSync('report.html', renderHtml(result))
 */
export function renderHtml(result: BenchResult, options: ReportOptions = {}): string {
  const m = buildModel(result, options);
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${SCRIPT_HASH}'; base-uri 'none'; form-action 'none'`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">
<meta name="generator" content="benchsuite ${esc(result.environment.benchsuite)}">
<title>${esc(m.title)}</title>
<style>${CSS}</style>
</head>
<body>
${SVG_DEFS}
<main>
${headerHtml(m)}
${navHtml(m)}
${rankingsHtml(m)}
${m.scenarios.map((s, i) => scenarioHtml(m, s, i)).join('\n')}
${noiseHtml(m)}
${costsHtml(m)}
${environmentHtml(m)}
<footer>Generated by benchsuite ${esc(result.environment.benchsuite)} from a result document (schema v${result.schemaVersion}). Latencies in ms with µs precision; RPS = requests per second.</footer>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
