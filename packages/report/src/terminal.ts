import type { BenchResult } from '@benchsuite/sdk';
import { shortFrame } from './flame.js';
import { fmtPct } from './units.js';
import {
  MISSING_LABEL,
  buildModel,
  failureText,
  foldedNotes,
  loadText,
  namesItsSubject,
  noteSentence,
  stopNote,
  type ProfileView,
  type ReportModel,
  type ReportOptions,
  type ScenarioView,
} from './model.js';
import { outline, type Section } from './outline.js';
import { costColumns, headlineColumns, perProcessColumns, stepColumns, sweepColumns, type Table, type Tone } from './tables.js';

export interface TerminalOptions extends ReportOptions {
  /** ANSI colours (warnings yellow, failures red, headings bold); default false. The caller decides (TTY, NO_COLOR). */
  color?: boolean;
}

type Paint = (text: string, style: Tone | 'bold' | 'dim') => string;

const ANSI: Record<Tone | 'bold' | 'dim', string> = { bold: '1', dim: '2', good: '32', warn: '33', bad: '31' };
const ansi: Paint = (t, s) => `\x1b[${ANSI[s]}m${t}\x1b[0m`;
const plain: Paint = (t) => t;

/**
 * Strings from the result go to a terminal: control characters (an ESC that would start a colour or
 * move the cursor, a newline that would break a table) are shown as `\xNN` / a space instead.
 */
const cleanForTerminal = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => (c === '\n' || c === '\t' ? ' ' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
const clean = cleanForTerminal;

/** Display width: code points (every character the report prints is one column wide). */
const width = (s: string) => [...s].length;
const pad = (s: string, w: number, right: boolean) => (right ? ' '.repeat(w - width(s)) + s : s + ' '.repeat(w - width(s)));

/** A table of the `brief` columns, aligned with spaces; colour is applied after padding so widths hold. */
function terminalTable<Row>(t: Table<Row>, paint: Paint = plain, indent = '  '): string[] {
  const cols = t.columns.filter((c) => c.brief);
  const cells = t.rows.map((r) => cols.map((c) => clean(c.text(r))));
  const widths = cols.map((c, i) => Math.max(width(c.label), ...cells.map((row) => width(row[i]!))));
  const line = (texts: string[], tone: (i: number) => Tone | 'bold' | 'dim' | null) =>
    indent +
    texts
      .map((x, i) => {
        // The last cell is not padded on the right: no trailing spaces, with or without colour codes around it.
        const padded = i === texts.length - 1 && cols[i]!.align === 'left' ? x : pad(x, widths[i]!, cols[i]!.align === 'right');
        const s = tone(i);
        return s ? paint(padded, s) : padded;
      })
      .join('  ');
  return [
    line(
      cols.map((c) => clean(c.label)),
      () => 'dim',
    ),
    ...t.rows.map((r, k) => line(cells[k]!, (i) => cols[i]!.tone?.(r) ?? null)),
  ];
}

function scenarioBlock(m: ReportModel, s: ScenarioView, paint: Paint): string[] {
  const out = ['', `${paint(clean(s.info.name), 'bold')} — ${clean(loadText(s.info))}`];
  if (s.stop) {
    out.push(`  ${clean(noteSentence(stopNote(s.stop, m.result.design.precision)))}`);
  }
  if (s.rows.length) out.push(...terminalTable({ columns: headlineColumns(m), rows: s.rows }, paint));
  // Notes every target may repeat (precision, warm-up) come as one line per scenario naming the targets.
  const folded = foldedNotes(s);
  for (const n of [...s.notes, ...folded.scenario]) out.push(`  ${paint('!', 'warn')} ${clean(noteSentence(n))}`);
  for (const r of folded.rows) for (const n of r.notes) out.push(`  ${paint('!', 'warn')} ${clean(`${namesItsSubject(n) ? '' : `${r.target}: `}${noteSentence(n)}`)}`);
  if (s.steps.length) out.push('  per step:', ...terminalTable({ columns: stepColumns(m), rows: s.steps }, paint, '    '));
  const swept = s.rows.filter((r) => r.summary.sweep);
  if (swept.length) out.push('  sweep:', ...terminalTable({ columns: sweepColumns(m), rows: swept }, paint, '    '));
  const perProcess = s.rows.filter((r) => r.summary.perProcess);
  if (perProcess.length) out.push('  per process and per core:', ...terminalTable({ columns: perProcessColumns(), rows: perProcess }, paint, '    '));
  for (const r of s.rows) for (const f of r.failures) out.push(`  ${paint('✗', 'bad')} ${clean(`${r.target}, ${f.where} failed — ${failureText(f.failure)}`)}`);
  for (const x of s.missing) out.push(`  ${paint('–', x.kind === 'skipped' || x.kind === 'not-run' ? 'dim' : 'bad')} ${clean(`${x.target}: ${MISSING_LABEL[x.kind]} — ${x.reason}`)}`);
  if (s.profiles.length) out.push('  profiles:', ...s.profiles.map((v) => `    ${profileLine(v, paint)}`));
  return out;
}

/** A profile in one line: the profiler's cost, the top 3 functions and the top 3 groups by self share; or why there is none. */
function profileLine(v: ProfileView, paint: Paint): string {
  if (!v.summary) return `${paint('–', v.record.status === 'failed' ? 'bad' : 'dim')} ${clean(noteSentence(v.note))}`;
  const share = (x: { self: number }) => fmtPct(x.self, 0);
  const fns = v.summary.top
    .slice(0, 3)
    .map((f) => `${shortFrame(f.name, 0)} ${share(f)}`)
    .join(', ');
  const pkgs = v.summary.byPackage
    .slice(0, 3)
    .map((g) => `${g.name} ${share(g)}`)
    .join(', ');
  const cost = v.record.costRatio == null ? '' : ` (${v.record.costRatio.toFixed(2)}× req/s)`;
  return clean(`${v.target}${cost}: ${fns || 'no samples'} · ${pkgs || '—'}`);
}

/** A brief section of the outline: a blank line, a bold heading (lower-case first), its table; a scenario its own block. */
function section(m: ReportModel, s: Section, paint: Paint): string[] {
  const heading = (title: string) => ['', paint(clean(title[0]!.toLowerCase() + title.slice(1)), 'bold')];
  switch (s.kind) {
    case 'table':
      return [...heading(s.title), ...(s.note ? [clean(noteSentence(s.note))] : []), ...terminalTable(s.table, paint)];
    case 'capacity':
      return [...heading(s.title), ...terminalTable(s.table, paint)];
    case 'runtimes':
      return s.tables.flatMap((x) => [...heading(`${s.title} — ${x.scenario}`), ...terminalTable(x.table, paint)]);
    case 'scenario':
      return scenarioBlock(m, s.scenario, paint);
    case 'costs':
      return [...heading(s.title), ...terminalTable({ columns: costColumns(), rows: m.targetsWithCosts }, paint)];
    case 'rankings':
    case 'reading':
    case 'history':
    case 'environment':
      return [];
  }
}

/**
 * The end-of-run summary for a terminal: the run at a glance (design, driver, pinning, steal,
 * precision, stops, overhead), then per scenario the brief columns of the headline table, its notes,
 * per-step figures and what was not measured, then costs. Plain text unless `color`. Pure.
 * @example process.stderr.write(renderTerminal(result, { color: process.stderr.isTTY && !process.env.NO_COLOR }))
 */
export function renderTerminal(result: BenchResult, options: TerminalOptions = {}): string {
  const m = buildModel(result, options);
  const paint = options.color ? ansi : plain;
  // The verdict leads the summary as its own line, so its fact is not repeated below it.
  const facts = m.verdict ? m.facts.filter((f) => f.label !== 'Verdict') : m.facts;
  const labelW = Math.max(...facts.map((f) => width(f.label)));
  const out = [paint(clean(m.title), 'bold')];
  if (m.verdict) out.push(`${paint('Verdict:', 'bold')} ${clean(noteSentence(m.verdict))}`);
  for (const f of facts) {
    const items = Array.isArray(f.text) ? f.text : [f.text];
    items.forEach((t, k) => {
      out.push(`  ${paint(pad(k ? '' : f.label, labelW, false), 'dim')}  ${clean(t)}`);
    });
  }
  for (const n of m.notes) out.push(`${paint('!', 'warn')} ${clean(noteSentence(n))}`);
  out.push(clean(noteSentence(m.remarks[0]!)));
  for (const s of outline(m)) if (s.brief) out.push(...section(m, s, paint));
  return `${out.join('\n')}\n`;
}
