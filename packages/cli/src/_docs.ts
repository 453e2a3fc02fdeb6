import { renderFlagsMarkdown, synopsis } from './_cli.js';
import { runCommand } from './commands/run.js';
import { commands } from './main.js';

/*
 * README blocks generated from the command definitions, between `<!-- NAME:start -->` and
 * `<!-- NAME:end -->` markers: `npm run docs:flags` rewrites them, and a test fails when they drift.
 */

const note = (from: string) => `<!-- generated from ${from} by \`npm run docs:flags\`; edit it there -->`;

/** Every generated block by marker name. */
export const readmeBlocks: Record<string, () => Promise<string>> = {
  /** One line per command: its synopsis and summary. */
  commands: async () => {
    const list = await Promise.all(Object.values(commands).map((load) => load()));
    const width = Math.max(...list.map((c) => synopsis(c).length)) + 2;
    const lines = list.map((c) => `${synopsis(c).padEnd(width)}${c.summary}`);
    return [note('the command definitions in packages/cli/src/commands'), '```', ...lines, '```'].join('\n');
  },
  /** The flag table of `benchsuite run`. */
  'run-flags': async () => [note('the options table in packages/cli/src/commands/run.ts'), renderFlagsMarkdown(runCommand)].join('\n'),
  /** The flag tables of the `benchsuite history` commands. */
  'history-flags': async () => {
    const subs = await Promise.all(
      Object.keys(commands)
        .filter((k) => k.startsWith('history '))
        .map((k) => commands[k]!()),
    );
    return [note('the options tables in packages/cli/src/commands/history.ts'), ...subs.map((c) => `\`${c.name}\` options:\n\n${renderFlagsMarkdown(c)}`)].join('\n\n');
  },
};

const markers = (name: string) => [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`] as const;

/** The text between a block's markers, or undefined when they are missing. */
export function readBlock(readme: string, name: string): string | undefined {
  const [start, end] = markers(name);
  const a = readme.indexOf(start);
  const b = readme.indexOf(end, a);
  return a < 0 || b < 0 ? undefined : readme.slice(a + start.length, b).trim();
}

/** The README with every generated block rewritten between its markers. */
export async function withGeneratedBlocks(readme: string): Promise<string> {
  let out = readme;
  for (const [name, render] of Object.entries(readmeBlocks)) {
    const [start, end] = markers(name);
    const a = out.indexOf(start);
    const b = out.indexOf(end, a);
    if (a < 0 || b < 0) throw new Error(`README: markers ${start} … ${end} not found`);
    out = `${out.slice(0, a + start.length)}\n${await render()}\n${out.slice(b)}`;
  }
  return out;
}
