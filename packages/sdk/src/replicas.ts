import { DEFAULTS } from './defaults.js';
import type { BlockRecord, WindowRecord } from './result-schema.js';

/**
 * A target's replicas (`design.replicas`, issue 41): k processes of one target in every block,
 * started, warmed and loaded like any target (each its own slot in a round), so that a block
 * measures k processes' levels instead of one. Inside a run the second to k-th processes are
 * targets of their own, named `<target>~<k>` (`~` is outside the names a target may have); the
 * result keeps the target's name on their windows and block records with the process number
 * (`process`: 2…k; absent: the first). Every estimate takes a round's figure of a target as the
 * geometric mean over its processes (`WindowIndex`), so a block's level is their mean on the log
 * scale and the intervals keep blocks as their unit (replicas nested in blocks: the degrees of
 * freedom stay blocks − 1).
 */
const MARK = '~';

/** The run's internal name of a target's `replica`-th process (the first keeps the target's name). */
export const replicaName = (target: string, replica: number): string => (replica <= 1 ? target : `${target}${MARK}${replica}`);

/** Whether a run's target name is a second or later process of a target. */
export const isReplica = (name: string): boolean => name.includes(MARK);

/** The target and process number behind a run's target name (`fastify~2` → fastify, 2). */
export function processOf(name: string): { target: string; replica: number } {
  const i = name.lastIndexOf(MARK);
  if (i < 0) return { target: name, replica: 1 };
  return { target: name.slice(0, i), replica: Number(name.slice(i + 1)) };
}

/** A record of one process as the result keeps it: its target's own name, and the process number from the second on. */
function asProcess<T extends { target: string }>(x: T): T {
  if (!isReplica(x.target)) return x;
  const p = processOf(x.target);
  return { ...x, target: p.target, process: p.replica };
}

/** A window as the result keeps it (`asProcess`). */
export const windowAsProcess = (w: WindowRecord): WindowRecord => asProcess(w);

/** A block record as the result keeps it: each replica's entry under its target's name, with its process number. */
export function blockAsProcesses(b: BlockRecord): BlockRecord {
  return b.targets.some((t) => isReplica(t.target)) ? { ...b, targets: b.targets.map(asProcess) } : b;
}

/** The target and process of a window, from the result's fields or a run's internal name. */
export function windowProcess(w: Pick<WindowRecord, 'target'> & { process?: number | undefined }): { target: string; replica: number } {
  if (w.process !== undefined) return { target: w.target, replica: w.process };
  return processOf(w.target);
}

/** The name of the reference's second process, the run's A/A control (`DEFAULTS.control`). */
export const twinOf = (reference: string): string => `${reference}${DEFAULTS.control.twinSuffix}`;
