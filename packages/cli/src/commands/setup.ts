import { defineCommand } from 'citty';
import { parseTarget, setupTarget } from '@benchsuite/sdk';
import { availableSuites, loadConfig } from '../_config.js';
import { EXIT, UsageError } from '../_errors.js';

/** `benchsuite setup <target…>`: run targets' setup hooks now (e.g. create the FastAPI venv, build Hummingbird). */
export const setupCommand = defineCommand({
  meta: { name: 'setup', description: 'prepare targets ahead of a run (virtualenvs, builds); e.g. `benchsuite setup fastapi`' },
  args: {
    targets: { type: 'positional', required: true, description: 'target names or prefixes (fastapi matches fastapi-1w, fastapi-2w)' },
    config: { type: 'string', description: 'config file' },
  },
  async run({ args }) {
    const loaded = await loadConfig(args.config);
    const { suites } = availableSuites(loaded?.config);
    const all = new Map<string, unknown>();
    for (const s of Object.values(suites)) for (const t of s.targets) all.set(t.name, t);
    const wanted = [args.targets, ...args._.slice(1)].flatMap((x) => String(x).split(',')).filter(Boolean);
    const chosen = [...all.keys()].filter((n) => wanted.some((w) => n === w || n.startsWith(`${w}-`)));
    const unmatched = wanted.filter((w) => !chosen.some((n) => n === w || n.startsWith(`${w}-`)));
    if (unmatched.length) throw new UsageError(`unknown target ${unmatched.map((u) => `"${u}"`).join(', ')}; expected one of: ${[...all.keys()].join(', ')}`);
    let code: number = EXIT.ok;
    for (const name of chosen) {
      const t = parseTarget(all.get(name), name);
      const r = await setupTarget(t, (m) => process.stderr.write(`${name}: ${m}\n`));
      if (r.status === 'ok') process.stderr.write(`${name}: ready${r.command ? ` (${r.command.join(' ')})` : ''}\n`);
      else {
        // Asked for by name and not usable here: that is a failure of this command, skipped or not.
        process.stderr.write(`${name}: ${r.status}: ${r.reason}\n`);
        code = EXIT.failed;
      }
    }
    return code;
  },
});
