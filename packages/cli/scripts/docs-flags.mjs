#!/usr/bin/env node
// Regenerate the README's command list and `benchsuite run` flag table from the CLI's command
// definitions (run after a build: `npm run docs:flags` does both).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withGeneratedBlocks } from '../dist/_docs.js';
import { writeFileAtomic } from '../dist/_io.js';

const readme = fileURLToPath(new URL('../../../README.md', import.meta.url));
const before = readFileSync(readme, 'utf8');
const after = await withGeneratedBlocks(before);
if (after === before) console.log('README.md: generated blocks up to date');
else {
  await writeFileAtomic(readme, after);
  console.log('README.md: generated blocks rewritten');
}
