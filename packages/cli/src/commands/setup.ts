import { ensureRuntime, installTool, parseRuntime, parseTarget, setupTarget, toolNames, tools, type ToolName } from '@benchsuite/sdk';
import { defineCommand } from '../_cli.js';
import { availableSuites, loadConfig, validateConfig } from '../_config.js';
import { EXIT, UsageError } from '../_errors.js';

/**
 * `benchsuite setup <target…>`: run targets' setup hooks now (e.g. create the FastAPI gateway's or
 * the Python suite's venv, build Hummingbird). A suite name stands for all its targets; a target
 * name found in several suites (fastapi-1w is in gateway and python) sets up each of them.
 */
export const setupCommand = defineCommand({
  name: 'setup',
  summary: `prepare targets ahead of a run (virtualenvs, builds), or install a tool (${toolNames.join(', ')})`,
  positionals: [
    {
      name: 'target',
      help: `suite names (all their targets), target names or prefixes (fastapi matches fastapi-1w and fastapi-2w), or tools: ${toolNames.join(', ')}; commas allowed`,
      required: true,
      variadic: true,
    },
  ],
  flags: {
    config: { type: 'value', value: 'FILE', parse: (r: string) => r, help: 'config file', default: './benchsuite.config.ts, .mts, .js or .mjs' },
  },
  examples: [
    ['benchsuite setup gateway', "create the FastAPI gateway's virtualenv, build Hummingbird when a Swift toolchain exists"],
    ['benchsuite setup python', "create the Python web suite's virtualenv (FastAPI, Litestar, uvicorn)"],
    ['benchsuite setup vegeta k6', "build the open-loop drivers from the Go module proxy into the tool's cache"],
    ['benchsuite setup runtime node@24 bun deno', "install runtimes from the npm registry into the tool's cache (reused by --runtime)"],
    ['benchsuite setup wrk', 'install wrk with apt-get (as root), or print the command for this system'],
  ],
  exitCodes: [
    [EXIT.ok, 'every target is ready'],
    [EXIT.failed, 'a named target could not be set up (skipped or failed; the reason is printed)'],
    [EXIT.usage, 'bad usage or config, or an unknown target'],
  ],
  async run({ flags, positionals }, io) {
    const loaded = await loadConfig(flags.config);
    const { suites } = availableSuites(loaded ? validateConfig(loaded.raw, loaded.file) : undefined);
    type Entry = { suite: string; name: string; target: unknown };
    const all: Entry[] = [];
    for (const [suite, s] of Object.entries(suites)) for (const t of s.targets) all.push({ suite, name: t.name, target: t });
    const names = [...new Set(all.map((e) => e.name))];
    const requested = positionals.flatMap((x) => x.split(',')).filter(Boolean);
    if (requested[0] === 'runtime') {
      const specs = requested.slice(1);
      if (!specs.length) throw new UsageError('setup runtime: name the runtimes, e.g. `benchsuite setup runtime node@24 bun deno`');
      const parsed = specs.map((sp) => {
        try {
          return parseRuntime(sp);
        } catch (err) {
          throw new UsageError(`setup runtime: ${(err as Error).message}`);
        }
      });
      let rc: number = EXIT.ok;
      for (const r of parsed) {
        try {
          const rt = await ensureRuntime(r, { onProgress: (m) => io.stderr(`${r.spec}: ${m}\n`) });
          const how = rt.host ? "the host's own Node" : rt.installSec === null ? 'already installed' : `installed in ${rt.installSec.toFixed(1)} s`;
          io.stderr(`${r.spec}: ready — ${rt.kind} ${rt.version} at ${rt.binary} (${how}${rt.bytes ? `, ${(rt.bytes / 2 ** 20).toFixed(0)} MiB` : ''})\n`);
        } catch (err) {
          io.stderr(`${r.spec}: not installed: ${(err as Error).message}\n`);
          rc = EXIT.failed;
        }
      }
      return rc;
    }
    const isTool = (w: string): w is ToolName => (toolNames as string[]).includes(w);
    let code: number = EXIT.ok;
    for (const name of requested.filter(isTool)) {
      try {
        const path = await installTool(name, (m) => io.stderr(`${name}: ${m}\n`));
        io.stderr(`${name}: ready (${path}) — ${tools[name].purpose}\n`);
      } catch (err) {
        io.stderr(`${name}: not installed: ${(err as Error).message}\n`);
        code = EXIT.failed;
      }
    }
    const wanted = requested.filter((w) => !isTool(w));
    if (!wanted.length) return code;
    const matches = (e: Entry, w: string) => w === e.suite || e.name === w || e.name.startsWith(`${w}-`);
    // The same target object can sit in several suites (a config reusing a built-in one): set it up once.
    const chosen = [...new Map(all.filter((e) => wanted.some((w) => matches(e, w))).map((e) => [e.target, e])).values()];
    const unmatched = wanted.filter((w) => !all.some((e) => matches(e, w)));
    if (unmatched.length)
      throw new UsageError(
        `unknown target ${unmatched.map((u) => `"${u}"`).join(', ')}; expected a suite (${Object.keys(suites).join(', ')}), a tool (${toolNames.join(', ')}) or one of: ${names.join(', ')}`,
      );
    // A name in several suites is shown with its suite, so each line says which one it was.
    const label = (e: Entry) => (all.filter((x) => x.name === e.name && x.target !== e.target).length ? `${e.suite}/${e.name}` : e.name);
    for (const entry of chosen) {
      const name = label(entry);
      const r = await setupTarget(parseTarget(entry.target, entry.name), (m) => io.stderr(`${name}: ${m}\n`));
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
