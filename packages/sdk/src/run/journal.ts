import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BenchsuiteConfigError } from '../errors.js';
import { emptyState, isJournaled, journalEventSchema, reduce, type JournalEvent, type RunEvent, type RunState } from './state.js';

const WINDOWS_FILE = 'windows.jsonl';

/**
 * The run's journal: every event is applied to the run's state (`reduce`, the one place it
 * changes) and, when a resumed run must not measure it again, appended to `windows.jsonl` at once,
 * so an interrupted run loses at most what was in flight and `--resume` replays it.
 */
export class RunJournal {
  private readonly file: string | undefined;
  private current: RunState;
  /** `replayed`: the state an interrupted run's journal left (`replayJournal`). */
  constructor(dir: string | undefined, replayed: RunState = emptyState()) {
    if (dir) mkdirSync(dir, { recursive: true });
    this.file = dir ? join(dir, WINDOWS_FILE) : undefined;
    this.current = replayed;
  }
  get state(): RunState {
    return this.current;
  }
  record(e: RunEvent): void {
    this.current = reduce(this.current, e);
    if (!this.file || !isJournaled(e)) return;
    // A window line carries the run's load so far, so a resumed run's overhead counts this part too.
    const line: JournalEvent = e.record === 'window' ? { ...e, loadSec: this.current.loadSec } : e;
    appendFileSync(this.file, `${JSON.stringify(line)}\n`);
  }
}

/** Drop a line a kill cut short at the end of the journal, so appending continues on a clean line. */
function repair(file: string): void {
  if (!existsSync(file)) return;
  const text = readFileSync(file, 'utf8');
  if (!text || text.endsWith('\n')) return;
  writeFileSync(file, text.slice(0, text.lastIndexOf('\n') + 1));
}

/**
 * The events an interrupted run in `dir` journaled, in order, to replay; a line a kill cut short at
 * the end is dropped from the file too (appending then continues on a clean line).
 */
function readJournal(dir: string): JournalEvent[] {
  const file = join(dir, WINDOWS_FILE);
  repair(file);
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n');
  const events: JournalEvent[] = [];
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    try {
      events.push(journalEventSchema.parse(JSON.parse(text)));
    } catch (err) {
      if (i >= lines.length - 2) return; // the last line, cut short by the kill
      throw new BenchsuiteConfigError(`resume: ${file}:${i + 1} is not a record this version wrote: ${(err as Error).message.split('\n')[0]}`);
    }
  });
  return events;
}

/** The state an interrupted run's journal leaves: every event replayed in order. */
export const replayJournal = (dir: string): RunState => readJournal(dir).reduce<RunState>(reduce, emptyState());
