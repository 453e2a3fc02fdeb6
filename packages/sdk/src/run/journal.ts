import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { BenchsuiteConfigError } from '../errors.js';
import {
  blockSchema,
  ceilingSchema,
  costsSchema,
  instructionsRecordSchema,
  profileRecordSchema,
  streamBlockSchema,
  verifyOutcomeSchema,
  windowSchema,
  type BlockRecord,
  type Ceiling,
  type Costs,
  type InstructionsRecord,
  type ProfileRecord,
  type StreamBlock,
  type StreamResult,
  type VerifyOutcome,
  type WindowRecord,
} from '../result-schema.js';

const WINDOWS_FILE = 'windows.jsonl';
const lineSchema = z.discriminatedUnion('record', [
  /** `loadSec`: the run's seconds under load so far, so a resumed run's overhead counts the interrupted part too. */
  z.strictObject({ record: z.literal('window'), window: windowSchema, loadSec: z.number().nonnegative().optional() }),
  z.strictObject({ record: z.literal('block'), block: blockSchema }),
  z.strictObject({ record: z.literal('verify'), outcome: verifyOutcomeSchema }),
  z.strictObject({ record: z.literal('costs'), target: z.string(), costs: costsSchema }),
  z.strictObject({ record: z.literal('ceiling'), ceiling: ceilingSchema }),
  z.strictObject({ record: z.literal('profile'), profile: profileRecordSchema }),
  z.strictObject({ record: z.literal('instructions'), instructions: instructionsRecordSchema }),
  z.strictObject({ record: z.literal('stream'), scenario: z.string(), target: z.string(), block: streamBlockSchema }),
]);
type Line = z.infer<typeof lineSchema>;

/** Everything a run appended before it stopped. */
export interface RunLog {
  windows: WindowRecord[];
  blocks: BlockRecord[];
  verify: VerifyOutcome[];
  costs: Map<string, Costs>;
  ceilings: Ceiling[];
  profiles: ProfileRecord[];
  instructions: InstructionsRecord[];
  /** Streaming scenarios' blocks, per (scenario, target). */
  streams: StreamResult[];
  /** Seconds under load when the last window was written. */
  loadSec: number;
}

/**
 * The run's append-only log: every window, block, verify outcome and cost figure is written as it
 * finishes, so an interrupted run loses nothing and `resume` replays it instead of measuring again.
 */
export class RunJournal {
  private readonly file: string | undefined;
  constructor(readonly dir: string | undefined) {
    if (dir) mkdirSync(dir, { recursive: true });
    this.file = dir ? join(dir, WINDOWS_FILE) : undefined;
  }
  private append(line: Line): void {
    if (this.file) appendFileSync(this.file, `${JSON.stringify(line)}\n`);
  }
  window(window: WindowRecord, loadSec: number): void {
    this.append({ record: 'window', window, loadSec });
  }
  block(block: BlockRecord): void {
    this.append({ record: 'block', block });
  }
  verify(outcome: VerifyOutcome): void {
    this.append({ record: 'verify', outcome });
  }
  costs(target: string, costs: Costs): void {
    this.append({ record: 'costs', target, costs });
  }
  ceiling(ceiling: Ceiling): void {
    this.append({ record: 'ceiling', ceiling });
  }
  profile(profile: ProfileRecord): void {
    this.append({ record: 'profile', profile });
  }
  instructions(instructions: InstructionsRecord): void {
    this.append({ record: 'instructions', instructions });
  }
  stream(scenario: string, target: string, block: StreamBlock): void {
    this.append({ record: 'stream', scenario, target, block });
  }
}

/** Drop a line a kill cut short at the end of the windows file, so appending continues on a clean line. */
function repairLog(file: string): void {
  if (!existsSync(file)) return;
  const text = readFileSync(file, 'utf8');
  if (!text || text.endsWith('\n')) return;
  writeFileSync(file, text.slice(0, text.lastIndexOf('\n') + 1));
}

/**
 * Read back the log of the run in `dir`, to resume it: a line a kill cut short at the end is
 * dropped from the file (appending then continues on a clean line) and from what is read.
 */
export function readLog(dir: string): RunLog {
  const log: RunLog = { windows: [], blocks: [], verify: [], costs: new Map(), ceilings: [], profiles: [], instructions: [], streams: [], loadSec: 0 };
  const file = join(dir, WINDOWS_FILE);
  repairLog(file);
  if (!existsSync(file)) return log;
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    let line: Line;
    try {
      line = lineSchema.parse(JSON.parse(text));
    } catch (err) {
      if (i >= lines.length - 2) return; // the last line, cut short by the kill
      throw new BenchsuiteConfigError(`resume: ${file}:${i + 1} is not a record this version wrote: ${(err as Error).message.split('\n')[0]}`);
    }
    if (line.record === 'window') {
      log.windows.push(line.window);
      log.loadSec = Math.max(log.loadSec, line.loadSec ?? 0);
    } else if (line.record === 'block') log.blocks.push(line.block);
    else if (line.record === 'verify') log.verify.push(line.outcome);
    else if (line.record === 'ceiling') log.ceilings.push(line.ceiling);
    else if (line.record === 'profile') log.profiles.push(line.profile);
    else if (line.record === 'instructions') log.instructions.push(line.instructions);
    else if (line.record === 'stream') {
      const r = log.streams.find((x) => x.scenario === line.scenario && x.target === line.target);
      if (r) r.blocks.push(line.block);
      else log.streams.push({ scenario: line.scenario, target: line.target, blocks: [line.block] });
    } else log.costs.set(line.target, line.costs);
  });
  return log;
}
