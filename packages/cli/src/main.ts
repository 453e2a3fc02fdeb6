import { readFileSync } from 'node:fs';
import { renderUsage, runCommand as runCitty, type ArgsDef, type CommandDef } from 'citty';
import { EXIT, reportError, UsageError } from './_errors.js';
import { runCommand } from './commands/run.js';
import { setupCommand } from './commands/setup.js';
import { listCommand } from './commands/list.js';

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Commands by name; lazily loaded where they pull in heavier modules. */
const commands: Record<string, () => Promise<CommandDef<ArgsDef>>> = {
  run: async () => runCommand as unknown as CommandDef<ArgsDef>,
  report: async () => (await import('./commands/report.js')).reportCommand as unknown as CommandDef<ArgsDef>,
  compare: async () => (await import('./commands/compare.js')).compareCommand as unknown as CommandDef<ArgsDef>,
  setup: async () => setupCommand as unknown as CommandDef<ArgsDef>,
  list: async () => listCommand as unknown as CommandDef<ArgsDef>,
};

const USAGE = `benchsuite ${version} — measure HTTP frameworks and LLM gateways side by side

Usage: benchsuite <command> [options]

Commands:
  run       run a suite (default: contract A × five Node servers × 3 trials)
  report    render results.json as markdown or self-contained HTML
  compare   compare two results; exit 1 on a significant regression
  setup     prepare targets ahead of a run (e.g. \`benchsuite setup fastapi\`)
  list      list suites, scenarios and targets

Run \`benchsuite <command> --help\` for its options.`;

/** Reject flags a command does not define: a typo must not silently change what is measured. */
async function checkFlags(cmd: CommandDef<ArgsDef>, raw: string[]): Promise<void> {
  const defs = (typeof cmd.args === 'function' ? await cmd.args() : await cmd.args) ?? {};
  const known = new Set<string>(['help', 'h']);
  for (const [name, def] of Object.entries(defs)) {
    known.add(name);
    for (const a of ['alias' in def ? (def.alias ?? []) : []].flat()) known.add(a);
  }
  for (const tok of raw) {
    if (tok === '--') break;
    const m = /^--?([^=]+)/.exec(tok);
    if (!m || /^-\d/.test(tok)) continue;
    const name = m[1]!.replace(/^no-/, '');
    if (!known.has(name)) throw new UsageError(`unknown option ${tok.split('=')[0]}; see \`benchsuite ${String((await cmd.meta as { name?: string })?.name ?? '')} --help\``);
  }
}

/** The CLI entry point: returns the exit code (0 done, 1 failures/regression, 2 bad usage, 130 interrupted). */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stderr.write(USAGE + '\n');
    return name ? EXIT.ok : EXIT.usage;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(version + '\n');
    return EXIT.ok;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`benchsuite: unknown command "${name}"; expected one of: ${Object.keys(commands).join(', ')}\n`);
    return EXIT.usage;
  }
  try {
    const cmd = await load();
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stderr.write((await renderUsage(cmd)) + '\n');
      return EXIT.ok;
    }
    await checkFlags(cmd, rest);
    const { result } = await runCitty(cmd, { rawArgs: rest });
    return typeof result === 'number' ? result : ((process.exitCode as number | undefined) ?? EXIT.ok);
  } catch (err) {
    return reportError(err);
  }
}
