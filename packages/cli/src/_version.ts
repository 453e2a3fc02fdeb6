import { readFileSync } from 'node:fs';

/** This CLI's version (package.json); its own module, so a command reads it without importing `main.ts`, which loads the commands. */
export const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
