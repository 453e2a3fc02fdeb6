import type { BenchResult } from '@benchsuite/sdk';
import { instructionTables } from './instruction-tables.js';
import { streamTables } from './stream-tables.js';
import type { Table } from './tables.js';

/** The sections beside the pairs' tables (streaming, instruction counts), in their order in the outline (`outline.ts`). */
export function extraTables(result: BenchResult): Array<{ title: string; table: Table<unknown> }> {
  return [...streamTables(result), ...instructionTables(result)];
}
