import { capacityTable, openLoopTable, thresholdTable } from './load-tables.js';
import { runtimeTables } from './runtime-table.js';
import { extraTables } from './extra-tables.js';
import type { BenchResult } from '@benchsuite/sdk';
import { fmtPct, shortFrame } from './format.js';
import { MISSING_LABEL, buildModel, failureText, foldedNotes, loadText, namesItsSubject, noteSentence, stopNote, type ProfileView, type ReportModel, type ReportOptions } from './model.js';
import { ceilingColumns, costColumns, floorColumns, floorRows, headlineColumns, perProcessColumns, stepColumns, sweepColumns, type Table, type Tone } from './tables.js';

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

function scenarioBlock(m: ReportModel, i: number, paint: Paint): string[] {
  const s = m.scenarios[i]!;
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
  for (let i = 0; i < m.scenarios.length; i++) out.push(...scenarioBlock(m, i, paint));
  for (const [title, t] of [
    ['open loop', openLoopTable(m.result)],
    ['capacity under the SLO', capacityTable(m.result)],
    ['thresholds', thresholdTable(m.result)],
  ] as const) {
    if (t.rows.length) out.push('', paint(title, 'bold'), ...terminalTable(t as Table<unknown>, paint));
  }
  for (const x of runtimeTables(m.result)) out.push('', paint(`runtimes — ${x.scenario}`, 'bold'), ...terminalTable(x.table, paint));
  for (const x of extraTables(m.result)) out.push('', paint(x.title.toLowerCase(), 'bold'), ...terminalTable(x.table, paint));
  if (m.result.ceilings.length) out.push('', paint('backend ceilings', 'bold'), ...terminalTable({ columns: ceilingColumns(), rows: m.result.ceilings }, paint));
  if (floorRows(m.result.loaderFloors).length) out.push('', paint("loader's round-trip floor", 'bold'), ...terminalTable({ columns: floorColumns(), rows: floorRows(m.result.loaderFloors) }, paint));
  if (m.targetsWithCosts.length) out.push('', paint('costs', 'bold'), ...terminalTable({ columns: costColumns(), rows: m.targetsWithCosts }, paint));
  return `${out.join('\n')}\n`;
}
