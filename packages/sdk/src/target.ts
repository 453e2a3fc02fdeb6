import { z } from 'zod';
import { DEFAULTS } from './defaults.js';
import { parseOrThrow } from './errors.js';
import { targetProfileSchema } from './profile/profiler.js';

const nameSchema = z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'expected a kebab-case name ([a-z0-9._-])');
const fnSchema = <T>() => z.custom<T>((v) => typeof v === 'function', 'expected a function');

const readinessSchema = z.discriminatedUnion('type', [
  /** Ready when stdout prints `listening on http://127.0.0.1:<port>` (the pattern's group 1 is the URL). */
  z.strictObject({ type: z.literal('stdout'), pattern: z.string().optional() }),
  /** Ready when `GET <path>` answers 200; needs a fixed `PORT` or a URL printed on stdout. */
  z.strictObject({ type: z.literal('healthz'), path: z.string().startsWith('/').default('/healthz') }),
]);
export type Readiness = z.output<typeof readinessSchema>;

/** Log sink handed to setup hooks: progress lines end up on stderr. */
export interface SetupContext {
  log(message: string): void;
  /** Root folder of the run's scratch space. */
  signal: AbortSignal;
}
/** What a setup hook may return: a replacement command (e.g. a freshly built binary). */
export interface SetupResult {
  command?: string[];
  version?: string;
  /** Merged into the target's metadata in the result (e.g. the runtime's exact version and binary). */
  metadata?: Record<string, unknown>;
}

/** Thrown by a target's `setup` when it cannot run here; the target is reported as skipped with this reason. */
export class TargetUnavailableError extends Error {
  override name = 'TargetUnavailableError';
}

const serviceSchema = z.strictObject({
  command: z.array(z.string()).min(1),
  cwd: z.string().optional(),
  env: z.record(z.string(), z.string()).default({}),
  ready: readinessSchema.default({ type: 'stdout' }),
  readyTimeoutMs: z.number().int().positive().default(DEFAULTS.readyTimeoutMs),
});
export type ServiceSpec = z.output<typeof serviceSchema>;

const commonTarget = {
  name: nameSchema,
  /** Version of the framework or server under test, recorded in the result. */
  version: z.string().optional(),
  language: z.string().optional(),
  framework: z.string().optional(),
  /** Declared settings: which ecosystem pieces the target uses (its fairness manifest). */
  metadata: z.record(z.string(), z.unknown()).default({}),
  /** Scenario names (or groups, as `group:<name>`) this target implements; default all. */
  supports: z.array(z.string()).optional(),
};

const processTargetSchema = z.strictObject({
  kind: z.literal('process'),
  ...commonTarget,
  /** argv of the server; started with `PORT=0` (any free port) unless env sets it. */
  command: z.array(z.string()).min(1),
  cwd: z.string().optional(),
  /** Extra environment; `${services.<name>.url}` is replaced by that service's URL. */
  env: z.record(z.string(), z.string()).default({}),
  /** Variables removed from the server's environment (they would skew startup or behaviour). */
  unsetEnv: z.array(z.string()).default([...DEFAULTS.unsetEnv]),
  ready: readinessSchema.default({ type: 'stdout' }),
  readyTimeoutMs: z.number().int().positive().default(DEFAULTS.readyTimeoutMs),
  /** Helper processes started per block before the server (they live as long as the server process) (e.g. a stub backend), pinned with the loader. */
  services: z.record(nameSchema, serviceSchema).default({}),
  /** Runs once before anything is measured: build, create a venv… Throw `TargetUnavailableError` to skip the target. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a setup that returns nothing (`async () => {}`) must be accepted; `undefined` would refuse its Promise<void>.
  setup: fnSchema<(ctx: SetupContext) => Promise<SetupResult | void> | SetupResult | void>().optional(),
  /** Size of what would be deployed, and how it was counted (for cost figures). */
  artifact: fnSchema<() => Promise<{ bytes: number; method: string }>>().optional(),
  /** How `--profile` profiles it: a built-in profiler (`auto` by its command) or its own, and which paths are its own code. */
  profile: targetProfileSchema.optional(),
  /**
   * On another JavaScript runtime (`--runtime`), the arguments after the runtime's binary, when they
   * differ from `command.slice(1)` (e.g. a Bun.serve entry point for `bun`).
   */
  runtimeCommands: z.partialRecord(z.enum(['node', 'bun', 'deno']), z.array(z.string()).min(1)).optional(),
});

const urlTargetSchema = z.strictObject({
  kind: z.literal('url'),
  ...commonTarget,
  /** Base URL of a server that is already running (never restarted: every block measures the same process). */
  url: z.url(),
});

const targetSchema = z.discriminatedUnion('kind', [processTargetSchema, urlTargetSchema]);
export type TargetInput = z.input<typeof targetSchema>;
export type Target = z.output<typeof targetSchema>;
export type ProcessTarget = z.output<typeof processTargetSchema>;
export type UrlTarget = z.output<typeof urlTargetSchema>;

/**
 * Declare a target: a server command run as a fresh process per block, or a URL.
 *
 * @example
 * defineTarget({ kind: 'process', name: 'my-server', command: ['node', 'server.js'], version: '1.2.0' })
 */
export function defineTarget<const T extends TargetInput>(target: T): T {
  return target;
}

export function parseTarget(input: unknown, path = 'target'): Target {
  return parseOrThrow(targetSchema, input, path);
}

/** Does `target` implement `scenario` (by name or by `group:<group>`)? */
export function targetSupports(target: Target, scenario: { name: string; group?: string | undefined }): boolean {
  if (!target.supports) return true;
  return target.supports.includes(scenario.name) || (scenario.group !== undefined && target.supports.includes(`group:${scenario.group}`));
}
