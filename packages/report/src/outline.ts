import { instructionTables } from './instruction-tables.js';
import { capacityTable, openLoopTable, thresholdTable } from './load-tables.js';
import type { ReportModel, ScenarioView } from './model.js';
import type { Note } from './notes.js';
import { runtimeTables } from './runtime-table.js';
import { streamTables } from './stream-tables.js';
import { ceilingColumns, floorColumns, floorRows, type Table } from './tables.js';

/**
 * One section of a report's body, after its header. `id` is its anchor, `title` its heading;
 * `brief` sections are the ones the terminal summary draws too. A section of `kind: 'table'` is a
 * titled table every renderer draws the same way; the others have a drawing of their own in each
 * renderer (charts in HTML, notes and sub-tables under a scenario). A `table` section may carry a
 * `note`: a sentence drawn above its table, saying what it holds.
 */
export type Section = { id: string; title: string; brief: boolean } & (
  | { kind: 'table'; table: Table<unknown>; note?: Note }
  | { kind: 'capacity'; table: Table<unknown> }
  | { kind: 'runtimes'; tables: ReturnType<typeof runtimeTables> }
  | { kind: 'rankings' }
  | { kind: 'reading' }
  | { kind: 'scenario'; scenario: ScenarioView }
  | { kind: 'costs' }
  | { kind: 'history'; history: NonNullable<ReportModel['history']> }
  | { kind: 'environment' }
);

/** A scenario's anchor: `s2-json-post`. */
export const scenarioId = (name: string, i: number) =>
  `s${i + 1}-${name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40)}`;

/**
 * The report's outline: its sections in the one order Markdown, HTML and the terminal draw them —
 * what the run was checked against (thresholds), the load-specific figures (open loop, capacity,
 * runtimes, streaming, instructions), the rankings, how to read the tables, a section per
 * scenario, then backend ceilings, the loader's round-trip floors, costs, the pairs' history (when given) and the environment. A section with nothing to show is
 * left out. Add a section here and every renderer draws it (a `table` needs nothing more).
 */
export function outline(m: ReportModel): Section[] {
  const r = m.result;
  const table = (id: string, title: string, t: Table<unknown>, note?: Note): Section[] => (t.rows.length ? [{ kind: 'table', id, title, brief: true, table: t, ...(note ? { note } : {}) }] : []);
  const floors = floorRows(r.loaderFloors);
  const capacity = capacityTable(r) as Table<unknown>;
  const runtimes = runtimeTables(r);
  return [
    ...table('thresholds', 'Thresholds', thresholdTable(r) as Table<unknown>),
    ...table('open-loop', 'Open loop', openLoopTable(r) as Table<unknown>),
    ...(capacity.rows.length ? [{ kind: 'capacity' as const, id: 'capacity', title: 'Capacity under the SLO', brief: true, table: capacity }] : []),
    ...(runtimes.length ? [{ kind: 'runtimes' as const, id: 'runtimes', title: 'Runtimes', brief: true, tables: runtimes }] : []),
    // The sections beside the pairs' tables: streaming, then instruction counts.
    ...[...streamTables(r), ...instructionTables(r)].flatMap((x, i) => table(`extra-${i}`, x.title, x.table)),
    // Rankings and the scenario tables' legend only when a scenario has them (a capacity run has none).
    ...(m.scenarios.length
      ? [
          { kind: 'rankings' as const, id: 'rankings', title: 'Rankings', brief: false },
          { kind: 'reading' as const, id: 'reading', title: 'Reading the tables', brief: false },
        ]
      : []),
    ...m.scenarios.map((s, i): Section => ({ kind: 'scenario', id: scenarioId(s.info.name, i), title: `Scenario: ${s.info.name}`, brief: true, scenario: s })),
    ...table('ceilings', 'Backend ceilings', { columns: ceilingColumns(), rows: r.ceilings } as Table<unknown>),
    ...table(
      'loader-floor',
      "Loader's round-trip floor",
      { columns: floorColumns(), rows: floors } as Table<unknown>,
      floors[0] && { kind: 'loader-floor-table', responder: floors[0].floor.responder },
    ),
    ...(m.targetsWithCosts.length ? [{ kind: 'costs' as const, id: 'costs', title: 'Costs', brief: true }] : []),
    ...(m.history && (m.history.series.length || m.history.control) ? [{ kind: 'history' as const, id: 'history', title: 'History', brief: false, history: m.history }] : []),
    { kind: 'environment', id: 'environment', title: 'Environment', brief: false },
  ];
}
