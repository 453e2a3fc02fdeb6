import { readFileSync } from 'node:fs';

/**
 * A process's start time in clock ticks since boot (/proc/<pid>/stat field 22), '' off Linux or
 * when it is gone. The Node hook writes it into `<pid>.ready` so the runner can tell that process
 * from an earlier one that had the same pid.
 */
export function processStartTime(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses) start at field 3.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}
