/**
 * Runtimes as a dimension (`--runtime`): per scenario, each framework across runtimes, as its
 * throughput relative to the reference on the host's Node, with the 95% interval. Specified once;
 * markdown, HTML and the terminal draw it.
 */
import type { BenchResult, PairSummary } from '@benchsuite/sdk';
import { DASH, fmtEstimate, fmtRatio } from './units.js';
import { barChart, PALETTE } from './svg.js';
import type { Table } from './tables.js';

interface RuntimeRow {
  framework: string;
  cells: Map<string, PairSummary>;
}

/** `fastify@node22` → [fastify, node22]; names without a runtime are not variants. */
const split = (name: string): [string, string] | null => {
  const at = name.lastIndexOf('@');
  return at > 0 ? [name.slice(0, at), name.slice(at + 1)] : null;
};

/** Runtime labels in the order the targets were run (the host's Node first). */
function runtimesOf(result: BenchResult): string[] {
  return [...new Set(result.targets.map((t) => split(t.name)?.[1]).filter((x): x is string => !!x && result.targets.some((t) => t.metadata.runtime !== undefined)))];
}

/** One table per scenario that ran runtime variants: rows are frameworks, columns runtimes. */
export function runtimeTables(result: BenchResult): Array<{ scenario: string; table: Table<RuntimeRow> }> {
  const labels = runtimesOf(result);
  if (!labels.length) return [];
  const out: Array<{ scenario: string; table: Table<RuntimeRow> }> = [];
  for (const scenario of [...new Set(result.summaries.map((s) => s.scenario))]) {
    const rows = new Map<string, RuntimeRow>();
    for (const s of result.summaries.filter((x) => x.scenario === scenario)) {
      const parts = split(s.target);
      if (!parts) continue;
      const row = rows.get(parts[0]) ?? { framework: parts[0], cells: new Map() };
      row.cells.set(parts[1], s);
      rows.set(parts[0], row);
    }
    if (!rows.size) continue;
    const reference = result.summaries.find((x) => x.scenario === scenario)?.reference ?? '';
    out.push({
      scenario,
      table: {
        columns: [
          { id: 'framework', label: `Throughput ÷ ${reference}`, align: 'left', brief: true, text: (r) => r.framework },
          ...labels.map((label) => ({
            id: label,
            label,
            align: 'right' as const,
            brief: true,
            numeric: true,
            text: (r: RuntimeRow) => {
              const s = r.cells.get(label);
              if (!s) return DASH;
              return s.target === s.reference ? '1 (reference)' : fmtEstimate(s.relativeRps, fmtRatio);
            },
            sort: (r: RuntimeRow) => r.cells.get(label)?.relativeRps?.point ?? null,
          })),
        ],
        rows: [...rows.values()],
      },
    });
  }
  return out;
}

/** A bar per variant of each scenario, relative throughput with its interval (HTML). */
export function runtimeCharts(result: BenchResult): string[] {
  const labels = runtimesOf(result);
  return runtimeTables(result).map(({ scenario, table }) =>
    barChart({
      title: `${scenario}: throughput ÷ the reference on the host's Node, by runtime`,
      rows: table.rows.flatMap((r) =>
        labels.map((label, i) => {
          const s = r.cells.get(label);
          const isRef = s !== undefined && s.target === s.reference;
          return {
            label: `${r.framework}@${label}`,
            value: isRef ? 1 : (s?.relativeRps?.point ?? null),
            lo: s?.relativeRps?.ci95?.[0] ?? null,
            hi: s?.relativeRps?.ci95?.[1] ?? null,
            color: PALETTE[i % PALETTE.length]!,
          };
        }),
      ),
      format: (v) => fmtRatio(v),
      axisLabel: 'relative throughput (1 = the reference)',
      marker: { value: 1, label: 'reference' },
    }),
  );
}
