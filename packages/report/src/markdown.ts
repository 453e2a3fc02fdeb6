import type { BenchResult } from '@benchsuite/sdk';
import { escapeHtml, escapeMarkdown as md } from './escape.js';
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
  type ProfileView,
  type ReportModel,
  type ReportOptions,
  type ScenarioView,
} from './model.js';
import { outline, type Section } from './outline.js';
import { historySectionMarkdown } from './history.js';
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

/**
 * A table from its column specification; a warn/bad cell gets a ⚠ so it stands out without colour.
 * `escaped`: the cell texts are Markdown already (escaped by the caller).
 */
export function markdownTable<Row>(t: Table<Row>, escaped = false): string[] {
  const esc = escaped ? (x: string) => x : md;
  return [
    `| ${t.columns.map((c) => md(c.label)).join(' | ')} |`,
    `|${t.columns.map((c) => (c.align === 'right' ? '---:' : '---')).join('|')}|`,
    ...t.rows.map((r) => `| ${t.columns.map((c) => `${c.tone?.(r) ? '⚠ ' : ''}${c.numeric ? c.text(r) : esc(c.text(r))}`).join(' | ')} |`),
  ];
}

/** Multi-line text (a diff, a stderr tail) in a collapsed block; `<pre>` so entities decode and nothing renders. */
const detailsBlock = (summary: string, text: string): string[] => [`<details><summary>${escapeHtml(summary)}</summary>`, '', `<pre>${escapeHtml(text)}</pre>`, '', '</details>'];

/** Label/value rows; a list value becomes one line per item. */
const factTable = (title: string, facts: Fact[]) =>
  markdownTable(
    {
      columns: [
        { id: 'label', label: title, align: 'left', text: (f: Fact) => md(f.label) },
        { id: 'text', label: '', align: 'left', text: (f: Fact) => (Array.isArray(f.text) ? f.text.map(md).join('<br>') : md(f.text)) },
      ],
      rows: facts,
    },
    true,
  );

function header(m: ReportModel): string[] {
  const out = [`# ${md(m.title)}`, ''];
  if (m.verdict) out.push(`**Verdict: ${md(noteSentence(m.verdict))}**`, '');
  for (const n of m.notes) out.push(`> ⚠ ${md(noteSentence(n))}`, '');
  out.push(`**${md(noteSentence(m.remarks[0]!))}**`, '');
  out.push(...factTable('Run', m.facts), '');
  return out;
}

function legend(m: ReportModel): string[] {
  const cols = headlineColumns(m).filter((c) => c.help);
  return [...m.remarks.slice(1).map((n) => `- ${md(noteSentence(n))}`), ...cols.map((c) => `- **${md(c.label)}**: ${md(c.help!)}.`), ''];
}

function rankings(m: ReportModel): string[] {
  const out: string[] = [];
  for (const s of m.scenarios) {
    out.push(`### ${md(s.info.name)}`, '');
    if (!s.places.length) out.push('No ranking (no target was measured).', '');
    else {
      out.push(...markdownTable({ columns: rankingColumns(m), rows: s.places }), '');
      if (s.rankingMethod) out.push(`<sub>Method: ${md(s.rankingMethod)}.</sub>`, '');
    }
    if (s.missing.length) out.push(`Not ranked: ${s.missing.map((x) => `${md(x.target)} (${MISSING_LABEL[x.kind]}: ${md(x.reason)})`).join('; ')}.`, '');
  }
  return out;
}

function scenarioSection(m: ReportModel, s: ScenarioView): string[] {
  const info = s.info;
  const out: string[] = [];
  if (info.description) out.push(md(info.description), '');
  const reqs = info.requests.map((q) => `${md(q.method)} ${md(q.path)}`).join(', ');
  out.push(`${reqs ? `Requests: ${reqs}. ` : ''}Expected status: ${info.expect.status.join(', ') || '—'}. Load: ${md(loadText(info))}.`, '');
  if (s.stop) {
    out.push(md(noteSentence(stopNote(s.stop, m.result.design.precision))), '');
  }
  if (s.rows.length) out.push(...markdownTable({ columns: headlineColumns(m), rows: s.rows }), '');
  else out.push('No target was measured in this scenario.', '');

  const notes = [...s.notes.map((n) => md(noteSentence(n))), ...s.rows.flatMap((r) => r.notes.map((n) => `${namesItsSubject(n) ? '' : `**${md(r.target)}**: `}${md(noteSentence(n))}`))];
  for (const n of notes) out.push(`- ⚠ ${n}`);
  if (notes.length) out.push('');

  if (s.steps.length) {
    out.push(`### ${md(info.name)}: per step`, '', ...markdownTable({ columns: stepColumns(m), rows: s.steps }), '');
  }
  const swept = s.rows.filter((r) => r.summary.sweep);
  if (swept.length) out.push(`### ${md(info.name)}: sweep`, '', ...markdownTable({ columns: sweepColumns(m), rows: swept }), '');
  const perProcess = s.rows.filter((r) => r.summary.perProcess);
  if (perProcess.length) out.push(`### ${md(info.name)}: per process and per core`, '', ...markdownTable({ columns: perProcessColumns(), rows: perProcess }), '');

  for (const r of s.rows) {
    for (const f of r.failures) {
      out.push(`- ⚠ **${md(r.target)}**, ${md(f.where)} failed — ${md(failureText(f.failure))}`);
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
  out.push(...profilesSection(s));
  return out;
}

/** One profile: what took it, its cost, its top functions; or why there is none. */
function profileBlock(v: ProfileView): string[] {
  if (!v.summary) return [];
  return [
    `#### ${md(v.target)}`,
    '',
    `${md(sentence(profileFacts(v.summary)))} ${md(noteSentence(v.note))}`,
    '',
    ...markdownTable({ columns: profileFunctionColumns(), rows: topFunctionRows(v.summary) }),
    '',
  ];
}

/** A scenario's profiles: time by package with the targets side by side, then each target's top functions. */
function profilesSection(s: ScenarioView): string[] {
  if (!s.profiles.length) return [];
  const out = [`### ${md(s.info.name)}: profiles`, ''];
  const pkg = packageTable(s.profiles);
  if (pkg.rows.length) out.push('Time by package (self share of busy CPU time):', '', ...markdownTable(pkg), '');
  for (const v of s.profiles) out.push(...profileBlock(v));
  const missing = s.profiles.filter((v) => !v.summary);
  for (const v of missing) out.push(`- ⚠ ${v.record.status === 'ok' ? `**${md(v.target)}**: ` : ''}${md(noteSentence(v.note))}`);
  if (missing.length) out.push('');
  return out;
}

function costs(m: ReportModel): string[] {
  const methods = m.targetsWithCosts.flatMap((t) => [
    `${md(t.name)} startup: ${md(t.costs!.startupMs.method)}`,
    ...(t.costs!.artifact ? [`${md(t.name)} artifact: ${md(t.costs!.artifact.method)}`] : []),
  ]);
  return [...markdownTable({ columns: costColumns(), rows: m.targetsWithCosts }), '', `<sub>Methods — ${methods.join('; ')}.</sub>`, ''];
}

function environment(m: ReportModel): string[] {
  return [...factTable('Machine', machineFacts(m)), '', '### Targets', '', ...markdownTable(targetTable(m)), ''];
}

/** A section's body, under its heading. */
function section(m: ReportModel, s: Section): string[] {
  switch (s.kind) {
    case 'table':
      return [...(s.note ? [md(noteSentence(s.note)), ''] : []), ...markdownTable(s.table), ''];
    case 'capacity':
      return [...markdownTable(s.table), ''];
    case 'runtimes':
      return s.tables.flatMap((x) => [`### ${md(x.scenario)}`, '', ...markdownTable(x.table), '']);
    case 'rankings':
      return rankings(m);
    case 'reading':
      return legend(m);
    case 'scenario':
      return scenarioSection(m, s.scenario);
    case 'costs':
      return costs(m);
    case 'history':
      return historySectionMarkdown(s.history.series, s.history.rule, s.history.control);
    case 'environment':
      return environment(m);
  }
}

/**
 * The result as GitHub-flavoured Markdown: header (design, driver, pinning, steal, precision, why
 * each scenario stopped), rankings, one table per scenario (and per step for stepped loads), costs
 * and environment. Every string taken from the result is escaped. Pure.
 * @example writeFileSync('report.md', renderMarkdown(result))
 */
export function renderMarkdown(result: BenchResult, options: ReportOptions = {}): string {
  const m = buildModel(result, options);
  const lines = [...header(m), ...outline(m).flatMap((s) => [`## ${md(s.title)}`, '', ...section(m, s)])];
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}
