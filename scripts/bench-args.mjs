// parseArgs for the bench scripts (`npm run bench:*`): a mistyped option says what is wrong and the
// script's own usage (its `// Usage:` or `// Options:` comment), exit 2, where node:util's parseArgs
// threw a stack trace; `--help` prints that usage, exit 0.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The script's usage: its first `// Usage:` or `// Options:` comment line and the comment lines that go on from it. */
function usageOf(file) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const at = lines.findIndex((l) => /^\/\/\s*(Usage|Options):/.test(l));
  if (at < 0) return '';
  const out = [];
  for (const l of lines.slice(at)) {
    if (!l.startsWith('//') || !l.slice(2).trim()) break;
    out.push(l.slice(2).trim());
  }
  return `${out.join('\n')}\n`;
}

/** `parseArgs(config)` for the script at `scriptUrl` (its `import.meta.url`). */
export function benchArgs(scriptUrl, config) {
  const file = fileURLToPath(scriptUrl);
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: npm's name for the script being run (bench:*), not an input of any turbo task
  const event = process.env.npm_lifecycle_event;
  const name = event?.startsWith('bench:') ? event : basename(file);
  const args = config.args ?? process.argv.slice(2);
  const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  if (own.includes('--help') || own.includes('-h')) {
    process.stdout.write(usageOf(file) || `${name}: no usage written\n`);
    process.exit(0);
  }
  try {
    return parseArgs(config);
  } catch (e) {
    process.stderr.write(`${name}: ${e.message}\n${usageOf(file)}`);
    process.exit(2);
  }
}
