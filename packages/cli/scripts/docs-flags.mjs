#!/usr/bin/env node
// Regenerate the README's command list and docs/cli.md's `benchsuite run` flag table from the
// CLI's command definitions (run after a build: `npm run docs:flags` does both).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { docFiles, withGeneratedBlocks } from '../dist/_docs.js';
import { writeFileAtomic } from '../dist/_io.js';

for (const file of docFiles()) {
  const path = fileURLToPath(new URL(`../../../${file}`, import.meta.url));
  const before = readFileSync(path, 'utf8');
  const after = await withGeneratedBlocks(before, file);
  if (after === before) console.log(`${file}: generated blocks up to date`);
  else {
    await writeFileAtomic(path, after);
    console.log(`${file}: generated blocks rewritten`);
  }
}
