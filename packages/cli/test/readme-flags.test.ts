import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { kebab } from '../src/_cli.js';
import { readBlock, readmeBlocks } from '../src/_docs.js';
import { runFlags } from '../src/commands/run.js';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));

describe("README's generated blocks match the command definitions (`npm run docs:flags` rewrites them)", () => {
  const readme = readFileSync(README, 'utf8');
  for (const [name, render] of Object.entries(readmeBlocks)) {
    it(`<!-- ${name} --> is what the definitions generate`, async () => {
      const current = readBlock(readme, name);
      expect(current, `README.md has no <!-- ${name}:start --> … <!-- ${name}:end --> block`).toBeDefined();
      expect(current, `README.md's ${name} block drifted: run \`npm run docs:flags\``).toBe((await render()).trim());
    });
  }
  it('the run table names every flag of the options table, and no removed one', () => {
    const table = readBlock(readme, 'run-flags') ?? '';
    for (const [key, flag] of Object.entries(runFlags)) {
      const name = flag.type === 'switch' && 'negatable' in flag && flag.negatable ? `--no-${kebab(key)}` : `--${kebab(key)}`;
      if (flag.type === 'removed') expect(table).not.toContain(name);
      else expect(table).toContain(name);
    }
  });
});
