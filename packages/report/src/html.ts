import { capacityCharts } from './load-tables.js';
import { runtimeCharts } from './runtime-table.js';
import { outline, scenarioId, type Section } from './outline.js';
import { historySectionHtml, renderHistoryPage, type HistoryControlRunView, type HistoryCoverageReportView, type HistoryRuleView, type HistorySeriesView } from './history.js';
import { createHash } from 'node:crypto';
import { decodeHistogram, disturbedWindows, median, thresholdsOf, type BenchResult, type OkWindow, type PairSummary } from '@benchsuite/sdk';
import type { Note } from './notes.js';
import { escapeHtml as esc } from './escape.js';
import { DASH, fmtRatio, fmtRps, fmtUs } from './units.js';
import { flameGraphSvg, packageBarsSvg } from './flame.js';
import {
  MISSING_LABEL,
  buildModel,
  failureText,
  loadText,
  namesItsSubject,
  noteSentence,
  profileFacts,
  sentence,
  stopNote,
  type Fact,
  type PairRow,
  type ProfileView,
  type ReportModel,
  type ReportOptions,
  type ScenarioView,
} from './model.js';
import { PALETTE, SVG_DEFS, barChart, lineChart, type LineSeries } from './svg.js';
import {
  costColumns,
  headlineColumns,
  machineFacts,
  packageTable,
  perProcessColumns,
  profileFunctionColumns,
  rankingColumns,
  stepColumns,
  sweepColumns,
  targetTable,
  topFunctionRows,
  type Table,
} from './tables.js';

const details = (summary: string, text: string) => `<details><summary>${esc(summary)}</summary><pre>${esc(text)}</pre></details>`;
const noteHtml = (n: Note) => esc(noteSentence(n));

function colorOf(result: BenchResult): (target: string) => string {
  const names = result.targets.map((t) => t.name);
  for (const s of result.summaries) if (!names.includes(s.target)) names.push(s.target);
  return (t) => PALETTE[Math.max(0, names.indexOf(t)) % PALETTE.length]!;
}

/**
 * A table from its column specification: text escaped, numeric `data-v` sort keys, a tone class on
 * cells that need attention, and a colour dot on target names. `extraBody` is trusted HTML.
 */
function htmlTable<Row>(t: Table<Row>, color: (target: string) => string, extraBody = ''): string {
  const th = t.columns.map((c) => `<th scope="col"${c.align === 'right' ? ' class="num"' : ''}${c.help ? ` title="${esc(c.help)}"` : ''}>${esc(c.label)}</th>`).join('');
  const tr = t.rows
    .map(
      (r) =>
        `<tr>${t.columns
          .map((c) => {
            const tone = c.tone?.(r);
            const cls = [c.align === 'right' ? 'num' : '', tone ? `tone-${tone}` : ''].filter(Boolean).join(' ');
            const v = c.sort?.(r);
            const text = c.text(r);
            const html = c.target ? `<span class="dot" style="background:${color(text)}"></span><span class="tname">${esc(text)}</span>` : esc(text);
            return `<td${cls ? ` class="${cls}"` : ''}${v != null && Number.isFinite(v) ? ` data-v="${v}"` : ''}>${html}</td>`;
          })
          .join('')}</tr>`,
    )
    .join('\n');
  return `<div class="table-wrap"><table class="sortable"><thead><tr>${th}</tr></thead><tbody>${tr}</tbody>${extraBody}</table></div>`;
}

const factHtml = (f: Fact) => (Array.isArray(f.text) ? `<ul class="plain">${f.text.map((t) => `<li>${esc(t)}</li>`).join('')}</ul>` : esc(f.text));

function headerHtml(m: ReportModel): string {
  return `<header class="card">
<h1>${esc(m.title)}</h1>
${m.verdict ? `<p class="lead verdict"><b>Verdict:</b> ${noteHtml(m.verdict)}</p>\n` : ''}${m.notes.map((n) => `<p class="alert">${noteHtml(n)}</p>`).join('\n')}
<p class="lead">${noteHtml(m.remarks[0]!)}</p>
<dl class="meta">${m.facts.map((f) => `<dt>${esc(f.label)}</dt><dd>${factHtml(f)}</dd>`).join('')}</dl>
</header>`;
}

/** A link to every section of the outline; a scenario's by its name. */
function navHtml(sections: Section[]): string {
  return `<nav aria-label="Sections">${sections.map((s) => `<a href="#${esc(s.id)}">${esc(s.kind === 'scenario' ? s.scenario.info.name : s.title)}</a>`).join('')}</nav>`;
}

function rankingsHtml(m: ReportModel): string {
  const color = colorOf(m.result);
  const cards = m.scenarios
    .map((s, i) => {
      const notRanked = s.missing.length
        ? `<p class="muted small">Not ranked: ${s.missing.map((x) => `<b>${esc(x.target)}</b> (${esc(MISSING_LABEL[x.kind])}: ${esc(x.reason)})`).join('; ')}.</p>`
        : '';
      return `<div class="rank-card"><h3><a href="#${scenarioId(s.info.name, i)}">${esc(s.info.name)}</a></h3>${
        s.places.length ? htmlTable({ columns: rankingColumns(m), rows: s.places }, color) : '<p>No target was measured.</p>'
      }${notRanked}</div>`;
    })
    .join('\n');
  const method = m.scenarios.find((s) => s.rankingMethod)?.rankingMethod;
  return `${method ? `<p class="muted">Method: ${esc(method)}.</p>` : ''}
<div class="rank-grid">${cards}</div>`;
}

function readingHtml(m: ReportModel): string {
  const cols = headlineColumns(m).filter((c) => c.help);
  return `<ul>
${m.remarks
  .slice(1)
  .map((n) => `<li>${noteHtml(n)}</li>`)
  .join('')}
${cols.map((c) => `<li><b>${esc(c.label)}</b>: ${esc(c.help!)}.</li>`).join('\n')}
</ul>`;
}

const PERCENTILES = [50, 75, 90, 95, 99, 99.5, 99.9, 99.99];
const px = (p: number) => Math.log10(100 / (100 - p));

function latencySeries(rows: PairRow[], color: (t: string) => string): LineSeries[] {
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
      points = [
        [50, l.p50],
        [90, l.p90],
        [99, l.p99],
        [99.9, l.p999],
      ].map(([p, us]) => ({ x: px(p!), y: us! / 1000 }));
    }
    out.push({ name: target, color: color(target), points });
  }
  return out;
}

const msFmt = (v: number) => `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3)} ms`;
/** Axis ticks: short, no trailing zeros (`0.5 ms`, `20 ms`). */
const msTick = (v: number) => `${Number(v.toPrecision(3))} ms`;
const plainTick = (v: number) => `${Number(v.toPrecision(3))}`;

function scenarioCharts(m: ReportModel, s: ScenarioView): string {
  const color = colorOf(m.result);
  const rel = (p: PairSummary, isRef: boolean) =>
    isRef ? { value: 1, lo: null, hi: null } : { value: p.relativeRps?.point ?? null, lo: p.relativeRps?.ci95?.[0] ?? null, hi: p.relativeRps?.ci95?.[1] ?? null };
  const charts = [
    barChart({
      title: `Throughput relative to ${m.reference} (median of per-round ratios, 95% interval)`,
      axisLabel: `req/s ÷ ${m.reference}'s, side by side`,
      format: fmtRatio,
      tickFormat: plainTick,
      rows: s.rows.map((r) => ({
        label: r.target,
        ...rel(r.summary, r.isReference),
        color: color(r.target),
        hatched: r.summary.windows.clientBound > 0,
        ...(r.summary.windows.clientBound > 0 ? { note: '⚠' } : {}),
      })),
      marker: { value: 1, label: m.reference },
    }),
    barChart({
      title: 'Server CPU per request (median, 95% interval)',
      axisLabel: 'µs of server CPU per response',
      format: (v) => `${fmtUs(v)} µs`,
      tickFormat: plainTick,
      rows: s.rows.map((r) => ({
        label: r.target,
        value: r.summary.cpuPerRequestUs?.point ?? null,
        lo: r.summary.cpuPerRequestUs?.ci95?.[0] ?? null,
        hi: r.summary.cpuPerRequestUs?.ci95?.[1] ?? null,
        color: color(r.target),
      })),
    }),
  ];
  const lat = latencySeries(s.rows, color);
  if (lat.length) {
    charts.push(
      lineChart({
        title: 'Latency by percentile (merged histogram, log scales)',
        series: lat,
        xTicks: [50, 90, 99, 99.9, 99.99].map((p) => ({ x: px(p), label: `p${p}` })),
        xLabel: 'percentile',
        yLabel: 'latency (ms)',
        yLog: true,
        yFormat: msFmt,
        yTickFormat: msTick,
      }),
    );
  }
  return `<div class="charts three">${charts.join('')}</div>`;
}

/**
 * Every measured window of the scenario, in the order measured: each target's req/s ÷ its median
 * in the same block, so the host's slow windows show as dips shared by every target of a round
 * (time-sliced) or scattered (one window after another); a ring marks a window the host disturbed
 * beyond steal (another process on the measured cores, the loader running slow). Drawn for results
 * that judged disturbances (`overall.disturbed`).
 */
function windowChart(m: ReportModel, s: ScenarioView): string {
  const r = m.result;
  const color = colorOf(r);
  const disturbed = disturbedWindows(r.windows, thresholdsOf(r.design));
  const ok = r.windows.filter((w): w is OkWindow => w.status === 'ok' && w.scenario === s.info.name);
  const rounds = [...new Set(ok.map((w) => `${w.block}/${w.round}`))];
  const x = (w: OkWindow) => rounds.indexOf(`${w.block}/${w.round}`) + 1;
  const series: LineSeries[] = s.rows.map((row) => {
    const mine = ok.filter((w) => w.target === row.target);
    const medians = new Map([...new Set(mine.map((w) => w.block))].map((b) => [b, median(mine.filter((w) => w.block === b).map((w) => w.rps))]));
    return {
      name: row.target,
      color: color(row.target),
      points: mine.map((w) => {
        const d = disturbed.get(w.index);
        const mark = d
          ? [d.other ? `another process used ${Math.round((w.resources.otherCpuShare ?? 0) * 100)}% of the measured cores` : '', d.slowLoader ? 'the loader ran slow' : ''].filter(Boolean).join('; ')
          : undefined;
        return { x: x(w), y: w.rps / (medians.get(w.block) || 1), ...(mark ? { mark: `disturbed: ${mark}` } : {}) };
      }),
    };
  });
  const blocks = [...new Set(ok.map((w) => w.block))];
  return `<div class="charts">${lineChart({
    title: `Every window: req/s ÷ the target's median in its block (rings: disturbed by the host beyond steal)`,
    series,
    xTicks: blocks.map((b) => ({ x: rounds.indexOf(rounds.find((k) => k.startsWith(`${b}/`))!) + 1, label: `block ${b}` })),
    xLabel: 'round',
    yLabel: "÷ the block's median",
    yFormat: fmtRatio,
    yTickFormat: plainTick,
    width: 960,
  })}</div>`;
}

function stepCharts(m: ReportModel, s: ScenarioView): string {
  const color = colorOf(m.result);
  const conns = [...new Set(s.steps.map((st) => st.step.connections))].sort((a, b) => a - b);
  const xTicks = conns.map((c) => ({ x: Math.log2(c), label: String(c) }));
  const rel: LineSeries[] = s.rows.map((r) => ({
    name: r.target,
    color: color(r.target),
    points: r.summary.steps.map((st) =>
      r.isReference
        ? { x: Math.log2(st.connections), y: 1 }
        : { x: Math.log2(st.connections), y: st.relativeRps?.point ?? Number.NaN, lo: st.relativeRps?.ci95?.[0] ?? null, hi: st.relativeRps?.ci95?.[1] ?? null },
    ),
  }));
  // Rings on the sweep's two points: the best clean point on the throughput curve, the knee on both.
  const markOf = (r: ScenarioView['rows'][number], connections: number, knee: boolean, best: boolean) =>
    [best && r.summary.sweep?.bestClean?.connections === connections ? 'best clean point' : '', knee && r.summary.sweep?.knee?.connections === connections ? 'knee' : ''].filter(Boolean).join(', ') ||
    undefined;
  const abs: LineSeries[] = s.rows.map((r) => ({
    name: r.target,
    color: color(r.target),
    points: r.summary.steps.map((st) => {
      const mark = markOf(r, st.connections, true, true);
      return { x: Math.log2(st.connections), y: st.rps.point, lo: st.rps.ci95?.[0] ?? null, hi: st.rps.ci95?.[1] ?? null, ...(mark ? { mark } : {}) };
    }),
  }));
  const p99: LineSeries[] = s.rows.map((r) => ({
    name: r.target,
    color: color(r.target),
    points: r.summary.steps.map((st) => {
      const mark = markOf(r, st.connections, true, false);
      return { x: Math.log2(st.connections), y: st.latency.p99 / 1000, ...(mark ? { mark } : {}) };
    }),
  }));
  return `<div class="charts three">${lineChart({
    title: 'req/s by connections (95% interval; rings: best clean, knee)',
    series: abs,
    xTicks,
    xLabel: 'connections',
    yLabel: 'req/s',
    yFormat: fmtRps,
    yTickFormat: plainTick,
  })}${lineChart({
    title: `Throughput relative to ${m.reference} by connections (95% interval)`,
    series: rel,
    xTicks,
    xLabel: 'connections',
    yLabel: `req/s ÷ ${m.reference}'s`,
    yFormat: fmtRatio,
    yTickFormat: plainTick,
  })}${lineChart({
    title: 'p99 latency by connections (log scale; ring: knee)',
    series: p99,
    xTicks,
    xLabel: 'connections',
    yLabel: 'p99 (ms)',
    yLog: true,
    yFormat: msFmt,
    yTickFormat: msTick,
  })}</div>`;
}

function scenarioHtml(m: ReportModel, s: ScenarioView): string {
  const color = colorOf(m.result);
  const info = s.info;
  const parts: string[] = [];
  if (info.description) parts.push(`<p>${esc(info.description)}</p>`);
  const reqs = info.requests.map((q) => `<code>${esc(q.method)} ${esc(q.path)}</code>`).join(', ');
  parts.push(`<p class="muted">${reqs ? `Requests: ${reqs}. ` : ''}Expected status: ${esc(info.expect.status.join(', ') || DASH)}. Load: ${esc(loadText(info))}.</p>`);
  if (s.stop) {
    parts.push(`<p>${noteHtml(stopNote(s.stop, m.result.design.precision))}</p>`);
  }
  const columns = headlineColumns(m);
  const missingBody = s.missing.length
    ? `<tbody class="missing">${s.missing.map((x) => `<tr><td></td><td>${esc(x.target)}</td><td colspan="${columns.length - 2}"><span class="flag ${x.kind === 'skipped' || x.kind === 'not-run' ? 'skip' : 'bad'}">${esc(MISSING_LABEL[x.kind])}</span> ${esc(x.reason)}${x.detail ? details(x.kind === 'verify-failed' ? 'verify diff' : 'last output', x.detail) : ''}</td></tr>`).join('')}</tbody>`
    : '';
  if (s.rows.length) {
    parts.push(scenarioCharts(m, s));
    if (m.result.overall.disturbed) parts.push(windowChart(m, s));
    parts.push(htmlTable({ columns, rows: s.rows }, color, missingBody));
    parts.push('<p class="muted small">Hover a column header for its meaning; click it to sort.</p>');
  } else {
    parts.push('<p>No target was measured in this scenario.</p>');
    if (s.missing.length)
      parts.push(`<ul>${s.missing.map((x) => `<li><b>${esc(x.target)}</b> — ${esc(MISSING_LABEL[x.kind])}: ${esc(x.reason)}${x.detail ? details('detail', x.detail) : ''}</li>`).join('')}</ul>`);
  }
  const notes = [...s.notes.map((n) => noteHtml(n)), ...s.rows.flatMap((r) => r.notes.map((n) => `${namesItsSubject(n) ? '' : `<b>${esc(r.target)}</b>: `}${noteHtml(n)}`))];
  if (notes.length) parts.push(`<div class="note warn"><ul>${notes.map((n) => `<li>${n}</li>`).join('')}</ul></div>`);
  const failures = s.rows.flatMap((r) => r.failures.map((f) => ({ target: r.target, f })));
  if (failures.length) {
    parts.push(
      `<div class="note bad"><b>Failures.</b><ul>${failures.map(({ target, f }) => `<li>${esc(target)}, ${esc(f.where)}: ${esc(failureText(f.failure))}${f.failure.stderrTail ? details('last output', f.failure.stderrTail) : ''}</li>`).join('')}</ul></div>`,
    );
  }
  if (s.steps.length) {
    parts.push('<h3>Per step</h3>', stepCharts(m, s), htmlTable({ columns: stepColumns(m), rows: s.steps }, color));
  }
  const swept = s.rows.filter((r) => r.summary.sweep);
  if (swept.length) parts.push('<h3>Sweep</h3>', htmlTable({ columns: sweepColumns(m), rows: swept }, color));
  const perProcess = s.rows.filter((r) => r.summary.perProcess);
  if (perProcess.length) parts.push('<h3>Per process and per core</h3>', htmlTable({ columns: perProcessColumns(), rows: perProcess }, color));
  if (s.profiles.length) parts.push(profilesHtml(m, s));
  return parts.join('\n');
}

/** One target's profile: what took it and its cost, the top functions, the flame graph (or why it is missing). */
function profileHtml(m: ReportModel, s: ScenarioView, v: ProfileView): string {
  const color = colorOf(m.result);
  const head = `<h4><span class="dot" style="background:${color(v.target)}"></span>${esc(v.target)}</h4>`;
  if (!v.summary) return `<div class="profile">${head}<p class="note warn">${noteHtml(v.note)}</p></div>`;
  const file = v.summary.stacksFile;
  const flame =
    v.stacks !== null
      ? `<div class="flame-wrap">${flameGraphSvg(v.stacks, { title: `${v.target} · ${s.info.name}: flame graph (hover a frame for its share)`, unit: v.summary.unit })}</div>`
      : `<p class="note muted">${noteHtml({ kind: 'profile-no-stacks', file })}</p>`;
  return `<div class="profile">${head}
<p class="muted small">${esc(sentence(profileFacts(v.summary)))} ${noteHtml(v.note)}</p>
${htmlTable({ columns: profileFunctionColumns(), rows: topFunctionRows(v.summary) }, color)}
${flame}</div>`;
}

/** A scenario's profiles: time by package as bars and a table (targets side by side), then each target. */
function profilesHtml(m: ReportModel, s: ScenarioView): string {
  const color = colorOf(m.result);
  const parts = ['<h3>Profiles</h3>'];
  const pkg = packageTable(s.profiles);
  if (pkg.rows.length) {
    const rows = s.profiles.flatMap((v) => (v.summary ? [{ label: v.target, groups: v.summary.byPackage }] : []));
    parts.push(`<div class="flame-wrap">${packageBarsSvg(rows, { title: `Time by package (self share of busy CPU time), ${s.info.name}` })}</div>`);
    parts.push(htmlTable(pkg, color));
  }
  parts.push(...s.profiles.map((v) => profileHtml(m, s, v)));
  return parts.join('\n');
}

/** Thresholds, open-loop figures and capacity searches (with their rate vs latency charts). */
function costsHtml(m: ReportModel): string {
  const methods = m.targetsWithCosts.map((t) => `<li><b>${esc(t.name)}</b> startup: ${esc(t.costs!.startupMs.method)}${t.costs!.artifact ? `; artifact: ${esc(t.costs!.artifact.method)}` : ''}</li>`);
  return `${htmlTable({ columns: costColumns(), rows: m.targetsWithCosts }, colorOf(m.result))}
<ul class="muted small">${methods.join('')}</ul>`;
}

function environmentHtml(m: ReportModel): string {
  const color = colorOf(m.result);
  const t = targetTable(m);
  const targets = `<div class="table-wrap"><table class="side"><thead><tr>${t.columns.map((c) => `<th scope="col">${c.target ? `<span class="dot" style="background:${color(c.label)}"></span>` : ''}${esc(c.label)}</th>`).join('')}</tr></thead><tbody>
${t.rows.map((r) => `<tr${r.meta ? ' class="meta"' : ''}><th scope="row">${esc(r.label)}</th>${r.values.map((v) => `<td>${esc(v)}</td>`).join('')}</tr>`).join('\n')}
</tbody></table></div>`;
  return `<h3>Machine and runtimes</h3><table class="kv"><tbody>${machineFacts(m)
    .map((f) => `<tr><th scope="row">${esc(f.label)}</th><td>${factHtml(f)}</td></tr>`)
    .join('')}</tbody></table>
<h3>Targets, versions and fairness manifest</h3>${targets}`;
}

/** A section of the outline: its heading and what this renderer draws under it. */
function sectionHtml(m: ReportModel, s: Section): string {
  const color = colorOf(m.result);
  const body = (() => {
    switch (s.kind) {
      case 'table':
        return `${s.note ? `<p>${esc(noteSentence(s.note))}</p>` : ''}${htmlTable(s.table, color)}`;
      case 'capacity':
        return `${capacityCharts(m.result, color).join('')}${htmlTable(s.table, color)}`;
      case 'runtimes': {
        const charts = runtimeCharts(m.result);
        return s.tables.map((x, i) => `<h3>${esc(x.scenario)}</h3>${charts[i] ?? ''}${htmlTable(x.table, color)}`).join('');
      }
      case 'rankings':
        return rankingsHtml(m);
      case 'reading':
        return readingHtml(m);
      case 'scenario':
        return scenarioHtml(m, s.scenario);
      case 'costs':
        return costsHtml(m);
      case 'history':
        return historySectionHtml(s.history.series, s.history.rule, s.history.control);
      case 'environment':
        return environmentHtml(m);
    }
  })();
  return `<section id="${esc(s.id)}"><h2>${esc(s.title)}</h2>\n${body}\n</section>`;
}

// Headers are never upper-cased by CSS: text-transform would turn the unit µs into MS.
const CSS = `
:root{--fg:#1f2937;--muted:#6b7280;--border:#e5e7eb;--bg:#f4f5f7;--card:#fff;--accent:#2563eb}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1280px;margin:0 auto;padding:20px 24px 48px}
h1{font-size:24px;margin:0 0 8px}h2{font-size:19px;margin:0 0 10px}h3{font-size:15px;margin:18px 0 8px}
a{color:var(--accent)}code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f1f5f9;padding:1px 4px;border-radius:4px}
.card,section{background:var(--card);border:1px solid var(--border);border-radius:12px;padding:20px 24px;margin:16px 0;box-shadow:0 1px 2px rgba(0,0,0,.03)}
.muted{color:var(--muted)}.small{font-size:12.5px}
.lead{font-size:15px;border-left:4px solid var(--accent);padding:6px 12px;background:#f1f5fd;border-radius:0 8px 8px 0}
.alert{background:#fef2f2;border:1px solid #fecaca;border-radius:8px;padding:8px 12px;color:#991b1b}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:4px 18px;margin:14px 0 0}
dl.meta dt{color:var(--muted);font-weight:500}dl.meta dd{margin:0}
ul.plain{list-style:none;margin:0;padding:0}
nav{position:sticky;top:0;z-index:2;display:flex;flex-wrap:wrap;gap:4px;padding:8px 0;background:var(--bg)}
nav a{padding:4px 10px;border-radius:999px;background:#e8edf5;text-decoration:none;color:#1e3a8a;font-size:13px}
nav a:hover{background:#dbe4f3}
td.tone-warn{background:#fffbeb;color:#92400e}td.tone-bad{background:#fef2f2;color:#991b1b}td.tone-good{color:#166534}
.flag{display:inline-block;white-space:nowrap;margin-left:6px;padding:0 6px;border-radius:4px;font-size:11.5px;font-weight:600}
.flag.warn{background:#fef3c7;color:#92400e}.flag.bad{background:#fee2e2;color:#991b1b}.flag.skip{background:#e5e7eb;color:#374151}
.note{border-radius:8px;padding:8px 12px;margin:10px 0}.note.warn{background:#fffbeb;border:1px solid #fde68a}.note.bad{background:#fef2f2;border:1px solid #fecaca}
.note ul{margin:4px 0 0;padding-left:18px}
.dot{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:7px;vertical-align:0}
.table-wrap{overflow-x:auto;margin:8px 0}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums;font-size:13px}
th,td{padding:5px 8px;border-bottom:1px solid var(--border);text-align:left;vertical-align:top}
thead th{font-size:12px;font-weight:600;color:var(--muted);border-bottom:2px solid var(--border);vertical-align:bottom}
td{white-space:nowrap}td.num,th.num{text-align:right}
tbody tr:hover{background:#f8fafc}
tbody.missing td{color:#4b5563;background:#fafafa;white-space:normal}
table.kv th,table.side th[scope=row]{color:var(--muted);font-weight:500;white-space:nowrap;width:1%}
table.side td{white-space:normal}table.side tr.meta th{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
details{margin-top:4px}summary{cursor:pointer;color:var(--accent);font-size:12.5px}
pre{background:#0f172a;color:#e2e8f0;padding:10px 12px;border-radius:8px;overflow-x:auto;font:12px/1.45 ui-monospace,Menlo,Consolas,monospace;white-space:pre}
.charts{display:grid;gap:18px;margin:10px 0 14px}.charts.two{grid-template-columns:repeat(auto-fit,minmax(460px,1fr))}.charts.three{grid-template-columns:repeat(auto-fit,minmax(460px,1fr))}
svg.chart{width:100%;height:auto;overflow:visible}
svg.chart text{font-size:12.5px;fill:#374151;font-family:inherit}svg.chart .chart-title{font-size:13px;font-weight:600;fill:#111827}
svg.chart .tick,svg.chart .axis{fill:#6b7280;font-size:11px}svg.chart .note{fill:#b45309}
svg.chart .grid{stroke:#eef0f3}svg.chart .whisker{stroke:#111827;stroke-width:1.4;fill:none}svg.chart .marker{stroke:#6b7280;stroke-dasharray:4 3}
.rank-grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(540px,1fr));gap:16px}.rank-card thead th{white-space:normal}.rank-card td:first-child{min-width:0}
.rank-card{border:1px solid var(--border);border-radius:10px;padding:10px 14px}.rank-card h3{margin:4px 0}
.tie{color:#7c3aed;font-weight:600}
.flame-wrap{overflow-x:auto;margin:8px 0}svg.flame,svg.package-bars{max-width:100%;height:auto;display:block}
svg.flame g:hover rect{stroke:#111;stroke-width:.6}.profile{margin:14px 0 6px}.profile h4{margin:0 0 4px;font-size:14px}
.note.muted{background:#f8fafc;border:1px solid var(--border)}
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
  const sections = outline(m);
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${SCRIPT_HASH}'; base-uri 'none'; form-action 'none'`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">
<meta name="generator" content="benchsuite ${esc(m.result.environment.benchsuite)}">
<title>${esc(m.title)}</title>
<style>${CSS}</style>
</head>
<body>
${SVG_DEFS}
<main>
${headerHtml(m)}
${navHtml(sections)}
${sections.map((s) => sectionHtml(m, s)).join('\n')}
<footer>Generated by benchsuite ${esc(m.result.environment.benchsuite)} from a result document (schema v${m.result.schemaVersion}). Latencies in ms with µs precision; req/s = requests per second.</footer>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/**
 * The whole history as one self-contained page (`benchsuite history report`): every series of every
 * machine with its change points marked, in the report's style, no script.
 */
export function renderHistoryHtml(
  series: readonly HistorySeriesView[],
  o: { rule: HistoryRuleView; generator: string; file: string; control?: { coverage: HistoryCoverageReportView; runs: readonly HistoryControlRunView[] } },
): string {
  return renderHistoryPage(series, { ...o, css: CSS });
}
