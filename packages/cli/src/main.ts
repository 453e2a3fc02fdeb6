import { type Command, parseArgs, renderHelp, wantsHelp } from './_cli.js';
import { errorExit, EXIT } from './_errors.js';
import { type CommandIO, processIO, useColor } from './_io.js';
import { version } from './_version.js';

/** Commands by name, loaded on use: `report` and `compare` pull in the report renderers. */
export const commands: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./commands/run.js')).runCommand as unknown as Command,
  report: async () => (await import('./commands/report.js')).reportCommand as unknown as Command,
  compare: async () => (await import('./commands/compare.js')).compareCommand as unknown as Command,
  setup: async () => (await import('./commands/setup.js')).setupCommand as unknown as Command,
  list: async () => (await import('./commands/list.js')).listCommand as unknown as Command,
  export: async () => (await import('./commands/export.js')).exportCommand as unknown as Command,
  merge: async () => (await import('./commands/merge.js')).mergeCommand as unknown as Command,
  'history add': async () => (await import('./commands/history.js')).historyCommands['history add']!,
  'history changes': async () => (await import('./commands/history.js')).historyCommands['history changes']!,
  'history check': async () => (await import('./commands/history.js')).historyCommands['history check']!,
  'history report': async () => (await import('./commands/history.js')).historyCommands['history report']!,
};

/** Commands named by two words (`history add`): the first word alone lists them. */
const groups = [
  ...new Set(
    Object.keys(commands)
      .filter((k) => k.includes(' '))
      .map((k) => k.split(' ')[0]!),
  ),
];

/** `benchsuite --help`: the commands and their one-line summaries, from the command definitions. */
async function usage(color: boolean): Promise<string> {
  const bold = (s: string) => (color ? `\u001b[1m${s}\u001b[22m` : s);
  const rows: string[] = [];
  for (const [name, load] of Object.entries(commands)) {
    let summary: string;
    try {
      summary = (await load()).summary;
    } catch (err) {
      summary = `(cannot load: ${(err as Error).message.split('\n')[0]})`;
    }
    rows.push(`  ${bold(name.padEnd(16))} ${summary}`);
  }
  return [
    `${bold('benchsuite')} ${version} — measure HTTP frameworks and LLM gateways side by side`,
    '',
    bold('Usage:'),
    '  benchsuite <command> [options]',
    '',
    bold('Commands:'),
    ...rows,
    '',
    'Run `benchsuite <command> --help` for its options, examples and exit codes.',
    '',
    bold('Exit codes:'),
    '  0    done',
    '  1    failures (run, setup) or a regression (compare, history check)',
    '  2    bad usage or config',
    `  ${EXIT.threshold}   a --threshold failed (run, merge)`,
    '  130  interrupted',
    '',
  ].join('\n');
}

let piped = false;
/** `benchsuite run --help | head`: the reader left; stop quietly instead of throwing EPIPE. */
function quietOnClosedPipe(): void {
  if (piped) return;
  piped = true;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
    throw err;
  });
}

/** The CLI entry point: returns the exit code (0 done, 1 failures/regression, 2 bad usage, 130 interrupted). */
export async function main(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  if (io === processIO) quietOnClosedPipe();
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      // Asked for: stdout, exit 0. Not asked for (no command): stderr, exit 2.
      const asked = name !== undefined;
      (asked ? io.stdout : io.stderr)(await usage(useColor(asked ? io.stdoutTTY : io.stderrTTY, io.env)));
      return asked ? EXIT.ok : EXIT.usage;
    }
    if (name === '--version' || name === '-v' || name === '-V') {
      io.stdout(`${version}\n`);
      return EXIT.ok;
    }
    if (groups.includes(name)) {
      const subs = Object.keys(commands).filter((k) => k.startsWith(`${name} `));
      const sub = rest[0];
      if (sub === undefined || sub === '--help' || sub === '-h' || !commands[`${name} ${sub}`]) {
        const asked = sub === '--help' || sub === '-h';
        const lines = [
          `benchsuite ${name}: one of`,
          ...(await Promise.all(subs.map(async (k) => `  ${k.padEnd(17)} ${(await commands[k]!()).summary}`))),
          `Run \`benchsuite ${name} <command> --help\` for its options.`,
          '',
        ];
        if (sub !== undefined && !asked) lines.unshift(`benchsuite ${name}: unknown command "${sub}"`);
        (asked ? io.stdout : io.stderr)(lines.join('\n'));
        return asked ? EXIT.ok : EXIT.usage;
      }
      const command = await commands[`${name} ${sub}`]!();
      const args = rest.slice(1);
      if (wantsHelp(args)) {
        io.stdout(renderHelp(command, { color: useColor(io.stdoutTTY, io.env), ...(io.stdoutTTY && process.stdout.columns ? { width: process.stdout.columns } : {}) }));
        return EXIT.ok;
      }
      return await command.run(parseArgs(command, args), io);
    }
    const load = commands[name];
    if (!load || name.includes(' ')) {
      const hint = name.startsWith('-')
        ? '; options go after the command, e.g. `benchsuite run --quick`'
        : `; expected one of: ${[...Object.keys(commands).filter((k) => !k.includes(' ')), ...groups].join(', ')}`;
      io.stderr(`benchsuite: unknown command "${name}"${hint}\n`);
      return EXIT.usage;
    }
    const command = await load();
    if (wantsHelp(rest)) {
      io.stdout(renderHelp(command, { color: useColor(io.stdoutTTY, io.env), ...(io.stdoutTTY && process.stdout.columns ? { width: process.stdout.columns } : {}) }));
      return EXIT.ok;
    }
    return await command.run(parseArgs(command, rest), io);
  } catch (err) {
    return errorExit(err, io);
  }
}
