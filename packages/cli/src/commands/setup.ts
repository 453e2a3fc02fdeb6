import { parseTarget, setupTarget } from '@benchsuite/sdk';
import { defineCommand } from '../_cli.js';
import { availableSuites, loadConfig, validateConfig } from '../_config.js';
import { EXIT, UsageError } from '../_errors.js';

/** `benchsuite setup <target…>`: run targets' setup hooks now (e.g. create the FastAPI venv, build Hummingbird). */
export const setupCommand = defineCommand({
  name: 'setup',
  summary: 'prepare targets ahead of a run (virtualenvs, builds)',
  positionals: [{ name: 'target', help: 'target names or prefixes (fastapi matches fastapi-1w and fastapi-2w); commas allowed', required: true, variadic: true }],
  flags: {
    config: { type: 'value', value: 'FILE', parse: (r: string) => r, help: 'config file', default: './benchsuite.config.ts, .mts, .js or .mjs' },
  },
  examples: [['benchsuite setup fastapi', "create the FastAPI gateway's virtualenv"]],
  exitCodes: [
    [EXIT.ok, 'every target is ready'],
    [EXIT.failed, 'a named target could not be set up (skipped or failed; the reason is printed)'],
    [EXIT.usage, 'bad usage or config, or an unknown target'],
  ],
  async run({ flags, positionals }, io) {
    const loaded = await loadConfig(flags.config);
    const { suites } = availableSuites(loaded ? validateConfig(loaded.raw, loaded.file) : undefined);
    const all = new Map<string, unknown>();
    for (const s of Object.values(suites)) for (const t of s.targets) all.set(t.name, t);
    const wanted = positionals.flatMap((x) => x.split(',')).filter(Boolean);
    const matches = (n: string, w: string) => n === w || n.startsWith(`${w}-`);
    const chosen = [...all.keys()].filter((n) => wanted.some((w) => matches(n, w)));
    const unmatched = wanted.filter((w) => !chosen.some((n) => matches(n, w)));
    if (unmatched.length) throw new UsageError(`unknown target ${unmatched.map((u) => `"${u}"`).join(', ')}; expected one of: ${[...all.keys()].join(', ')}`);
    let code: number = EXIT.ok;
    for (const name of chosen) {
      const r = await setupTarget(parseTarget(all.get(name), name), (m) => io.stderr(`${name}: ${m}\n`));
      if (r.status === 'ok') io.stderr(`${name}: ready${r.command ? ` (${r.command.join(' ')})` : ''}\n`);
      else {
        // Asked for by name and not usable here: that is a failure of this command, skipped or not.
        io.stderr(`${name}: ${r.status}: ${r.reason}\n`);
        code = EXIT.failed;
      }
    }
    return code;
  },
});
