/**
 * `--instructions`: user-space instructions per request under callgrind, per (scenario, target),
 * beside the CPU-time ratio the windows measured, specified once and drawn by the markdown, HTML
 * and terminal renderers.
 */
import type { BenchResult, InstructionsRecord } from '@benchsuite/sdk';
import { DASH, fmtEstimate, fmtInt, fmtPct, fmtRatio } from './units.js';
import type { Table } from './tables.js';

interface Row {
  record: InstructionsRecord;
  /** The reference's record of the same scenario, when it was counted. */
  reference: InstructionsRecord | undefined;
  cpu: BenchResult['summaries'][number] | undefined;
}

const at = (r: InstructionsRecord | undefined, which: 'one' | 'loaded') => {
  const levels = r?.status === 'ok' ? r.levels : [];
  return which === 'one' ? levels.find((l) => l.connections === 1) : levels.find((l) => l.connections > 1);
};
const ratio = (r: Row, which: 'one' | 'loaded') => {
  const mine = at(r.record, which);
  const ref = at(r.reference, which);
  return mine && ref && ref.perRequest > 0 ? mine.perRequest / ref.perRequest : null;
};

/** One row per (scenario, target) counted: instructions per request at one connection and at the scenario's, their spread over processes, and ratios to the reference. */
function instructionsTable(result: BenchResult): Table<Row> {
  const ref = result.design.reference;
  const rows = (result.instructions ?? []).map((record) => ({
    record,
    reference: result.instructions?.find((x) => x.scenario === record.scenario && x.target === ref),
    cpu: result.summaries.find((s) => s.scenario === record.scenario && s.target === record.target),
  }));
  // A pair that was not counted says why in its first figure's cell, and nothing in the others.
  const level =
    (which: 'one' | 'loaded', f: (l: NonNullable<ReturnType<typeof at>>) => string, why = false) =>
    (r: Row) => {
      if (r.record.status !== 'ok') return why ? `${r.record.status}: ${r.record.reason ?? ''}` : DASH;
      const l = at(r.record, which);
      return l ? f(l) : DASH;
    };
  return {
    columns: [
      { id: 'scenario', label: 'Scenario', align: 'left', brief: true, text: (r) => r.record.scenario },
      { id: 'target', label: 'Target', align: 'left', brief: true, target: true, text: (r) => r.record.target },
      {
        id: 'one',
        label: 'Instr/req, 1 conn',
        help: 'user-space instructions per request at one connection: median over fresh processes (callgrind; the kernel is not counted)',
        align: 'right',
        brief: true,
        text: level('one', (l) => fmtInt(l.perRequest), true),
        sort: (r) => at(r.record, 'one')?.perRequest ?? null,
      },
      { id: 'one-spread', label: 'Spread', help: '(highest − lowest) ÷ median over the processes', align: 'right', numeric: true, text: level('one', (l) => fmtPct(l.spread, 2)) },
      {
        id: 'one-ratio',
        label: `÷ ${ref}`,
        help: `instructions per request at one connection ÷ ${ref}'s`,
        align: 'right',
        brief: true,
        numeric: true,
        text: (r) => fmtRatio(ratio(r, 'one')),
        sort: (r) => ratio(r, 'one'),
      },
      {
        id: 'loaded',
        label: 'Instr/req, loaded',
        help: "at the scenario's connections (requests interleave, so processes differ more)",
        align: 'right',
        numeric: true,
        text: level('loaded', (l) => `${fmtInt(l.perRequest)} @${l.connections}`),
        sort: (r) => at(r.record, 'loaded')?.perRequest ?? null,
      },
      { id: 'loaded-spread', label: 'Spread', align: 'right', numeric: true, text: level('loaded', (l) => fmtPct(l.spread, 2)) },
      { id: 'loaded-ratio', label: `÷ ${ref}`, align: 'right', numeric: true, text: (r) => fmtRatio(ratio(r, 'loaded')), sort: (r) => ratio(r, 'loaded') },
      {
        id: 'cpu-ratio',
        label: `CPU ÷ ${ref}`,
        help: `CPU time per request ÷ ${ref}'s in the measured windows (user and kernel, every thread): instruction ratios leave the kernel, the other threads and the cost of an instruction out, so they differ from it either way`,
        align: 'right',
        brief: true,
        numeric: true,
        text: (r) => (r.record.target === ref ? fmtRatio(1) : fmtEstimate(r.cpu?.relativeCpu, fmtRatio)),
      },
    ],
    rows,
  };
}

/** The instruction-count section, when the run counted any. */
export function instructionTables(result: BenchResult): Array<{ title: string; table: Table<unknown> }> {
  if (!result.instructions?.length) return [];
  const flags = [...new Set(result.instructions.flatMap((x) => x.flags ?? []))].join(' ');
  const d = result.design.instructions;
  const resettle = result.instructions.find((x) => x.resettleRequests !== undefined)?.resettleRequests;
  const how = d
    ? `${d.processes} fresh processes, ${fmtInt(d.warmupRequests)} requests of warm-up, ${resettle !== undefined ? `${fmtInt(resettle)} more on each count's connections, ` : ''}${fmtInt(d.requests)} counted at one connection and ${fmtInt(d.loadedRequests)} loaded`
    : '';
  const outside = result.instructions.some((x) => x.excluded?.includes('collections')) ? ", V8's collections left out" : '';
  return [{ title: `Instructions per request (callgrind, user space only${outside}${how ? `; ${how}` : ''}${flags ? `; ${flags}` : ''})`, table: instructionsTable(result) as Table<unknown> }];
}
