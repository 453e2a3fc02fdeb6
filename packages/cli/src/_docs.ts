import { renderFlagsMarkdown, synopsis } from './_cli.js';
import { runCommand } from './commands/run.js';
import { commands } from './main.js';

/*
 * Blocks of the README and the docs generated from the command definitions, between
 * `<!-- NAME:start -->` and `<!-- NAME:end -->` markers: `npm run docs:flags` rewrites them, and a
 * test fails when they drift.
 */

const note = (from: string) => `<!-- generated from ${from} by \`npm run docs:flags\`; edit it there -->`;

/** Every generated block by marker name, with the file it lives in (relative to the repository's root). */
export const docBlocks: Record<string, { file: string; render: () => Promise<string> }> = {
  /** One line per command: its synopsis and summary (the README's front page). */
  commands: {
    file: 'README.md',
    render: async () => {
      const list = await Promise.all(Object.values(commands).map((load) => load()));
      const width = Math.max(...list.map((c) => synopsis(c).length)) + 2;
      const lines = list.map((c) => `${synopsis(c).padEnd(width)}${c.summary}`);
      return [note('the command definitions in packages/cli/src/commands'), '```', ...lines, '```'].join('\n');
    },
  },
  /** The flag table of `benchsuite run`. */
  'run-flags': { file: 'docs/cli.md', render: async () => [note('the options table in packages/cli/src/commands/run.ts'), renderFlagsMarkdown(runCommand)].join('\n') },
  /** The flag tables of the `benchsuite history` commands. */
  'history-flags': {
    file: 'docs/history.md',
    render: async () => {
      const subs = await Promise.all(
        Object.keys(commands)
          .filter((k) => k.startsWith('history '))
          .map((k) => commands[k]!()),
      );
      return [note('the options tables in packages/cli/src/commands/history.ts'), ...subs.map((c) => `\`${c.name}\` options:\n\n${renderFlagsMarkdown(c)}`)].join('\n\n');
    },
  },
};

/** The files that hold generated blocks. */
export const docFiles = (): string[] => [...new Set(Object.values(docBlocks).map((b) => b.file))];

const markers = (name: string) => [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`] as const;

/** The text between a block's markers, or undefined when they are missing. */
export function readBlock(text: string, name: string): string | undefined {
  const [start, end] = markers(name);
  const a = text.indexOf(start);
  const b = text.indexOf(end, a);
  return a < 0 || b < 0 ? undefined : text.slice(a + start.length, b).trim();
}

/** `file`'s text (the README, a page of docs/) with every generated block that lives in it rewritten between its markers. */
export async function withGeneratedBlocks(text: string, file: string): Promise<string> {
  let out = text;
  for (const [name, block] of Object.entries(docBlocks)) {
    if (block.file !== file) continue;
    const [start, end] = markers(name);
    const a = out.indexOf(start);
    const b = out.indexOf(end, a);
    if (a < 0 || b < 0) throw new Error(`${file}: markers ${start} … ${end} not found`);
    out = `${out.slice(0, a + start.length)}\n${await block.render()}\n${out.slice(b)}`;
  }
  return out;
}
