import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { kebab } from '../src/_cli.js';
import { docBlocks, readBlock } from '../src/_docs.js';
import { runFlags } from '../src/commands/run.js';

const read = (file: string) => readFileSync(fileURLToPath(new URL(`../../../${file}`, import.meta.url)), 'utf8');

describe("the README's and docs' generated blocks match the command definitions (`npm run docs:flags` rewrites them)", () => {
  for (const [name, block] of Object.entries(docBlocks)) {
    it(`<!-- ${name} --> in ${block.file} is what the definitions generate`, async () => {
      const current = readBlock(read(block.file), name);
      expect(current, `${block.file} has no <!-- ${name}:start --> … <!-- ${name}:end --> block`).toBeDefined();
      expect(current, `${block.file}'s ${name} block drifted: run \`npm run docs:flags\``).toBe((await block.render()).trim());
    });
  }
  it('the run table names every flag of the options table, and no removed one', () => {
    const table = readBlock(read(docBlocks['run-flags']!.file), 'run-flags') ?? '';
    for (const [key, flag] of Object.entries(runFlags)) {
      const name = flag.type === 'switch' && 'negatable' in flag && flag.negatable ? `--no-${kebab(key)}` : `--${kebab(key)}`;
      if (flag.type === 'removed') expect(table).not.toContain(name);
      else expect(table).toContain(name);
    }
  });
});
