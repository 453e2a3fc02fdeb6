import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { toolCacheDir } from './cache.js';
import { findH2load } from './drivers/h2load.js';
import { findK6 } from './drivers/k6.js';
import { findOha } from './drivers/oha.js';
import { findVegeta } from './drivers/vegeta.js';

/**
 * Tools the measuring can use, and how each installs: Go programs are built from the Go module
 * proxy and Rust ones from crates.io (`cargo install --locked --root <cache>`) into the tool's cache
 * (`<cache>/bin`, where the drivers look first); system packages come
 * from the package manager (apt-get when root on Debian or Ubuntu; otherwise the command is shown).
 * `benchsuite setup <tool>` installs one with progress; nothing is installed behind a user's back.
 */
export interface ToolSpec {
  /** What the tool is for, in a few words. */
  purpose: string;
  /** Its path when it is installed, else null. */
  find: () => string | null;
  install: { kind: 'go'; module: string; seconds: number } | { kind: 'cargo'; crate: string; version: string; seconds: number } | { kind: 'apt'; package: string; seconds: number };
}

const onPath = (name: string) => () => {
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
};

/** The installable tools by name; the keys are valid `benchsuite setup` names. */
export const tools = {
  k6: { purpose: 'open-loop driver and the k6-operator scripts', find: () => findK6(), install: { kind: 'go', module: 'go.k6.io/k6@v1.8.1', seconds: 90 } },
  oha: { purpose: 'open-loop driver with the highest measured ceiling', find: () => findOha(), install: { kind: 'cargo', crate: 'oha', version: '1.16.0', seconds: 390 } },
  vegeta: { purpose: 'open-loop driver', find: () => findVegeta(), install: { kind: 'go', module: 'github.com/tsenart/vegeta/v12@v12.12.0', seconds: 30 } },
  wrk: { purpose: 'closed-loop driver with the highest ceiling', find: onPath('wrk'), install: { kind: 'apt', package: 'wrk', seconds: 60 } },
  h2load: {
    purpose: 'closed-loop driver with the lowest time per request: fixed counts (--requests) and low connection counts',
    find: () => findH2load(),
    install: { kind: 'apt', package: 'nghttp2-client', seconds: 60 },
  },
  valgrind: { purpose: 'instruction counts (callgrind)', find: onPath('valgrind'), install: { kind: 'apt', package: 'valgrind', seconds: 60 } },
} satisfies Record<string, ToolSpec>;
export type ToolName = keyof typeof tools;
export const toolNames = Object.keys(tools) as ToolName[];

/** The command a user would run to install it, for messages where the tool cannot run it itself. */
function installCommand(name: ToolName, env: NodeJS.ProcessEnv = process.env): string {
  const i: ToolSpec['install'] = tools[name].install;
  if (i.kind === 'go') return `GOBIN=${join(toolCacheDir(env), 'bin')} go install ${i.module}`;
  if (i.kind === 'cargo') return `cargo install ${i.crate} --version ${i.version} --locked --root ${toolCacheDir(env)}`;
  return `apt-get install -y --no-install-recommends ${i.package}`;
}

function runLogged(argv: string[], env: NodeJS.ProcessEnv, onLine: (line: string) => void): Promise<number> {
  return new Promise((resolve) => {
    const c = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const relay = (d: Buffer) => {
      for (const l of d.toString('utf8').split('\n')) if (l.trim()) onLine(l.trim());
    };
    c.stdout.on('data', relay);
    c.stderr.on('data', relay);
    c.on('error', (e) => {
      onLine(e.message);
      resolve(127);
    });
    c.on('exit', (code) => resolve(code ?? 1));
  });
}

/**
 * Install a tool (or find it installed). Progress lines go to `onProgress`. Returns its path, or
 * throws an Error whose message says why and gives the command to run by hand.
 */
export async function installTool(name: ToolName, onProgress: (message: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const spec: ToolSpec = tools[name];
  const found = spec.find();
  if (found) return found;
  const i = spec.install;
  const manual = installCommand(name, env);
  if (i.kind === 'go') {
    if (!onPath('go')()) throw new Error(`no Go toolchain on PATH to build ${name}; install Go, then: ${manual}`);
    const bin = join(toolCacheDir(env), 'bin');
    mkdirSync(bin, { recursive: true });
    onProgress(`building ${i.module} from the Go module proxy into ${bin} (about ${i.seconds} s)`);
    const code = await runLogged(['go', 'install', i.module], { ...env, GOBIN: bin }, (l) => onProgress(`  ${l}`));
    if (code !== 0) throw new Error(`go install ${i.module} failed (exit ${code}); by hand: ${manual}`);
  } else if (i.kind === 'cargo') {
    if (!onPath('cargo')()) throw new Error(`no Rust toolchain (cargo) on PATH to build ${name}; install Rust (https://rustup.rs), then: ${manual}`);
    const root = toolCacheDir(env);
    mkdirSync(join(root, 'bin'), { recursive: true });
    onProgress(`building ${i.crate} ${i.version} from crates.io into ${join(root, 'bin')} (about ${Math.round(i.seconds / 60)} min on 2 cores)`);
    const code = await runLogged(['cargo', 'install', i.crate, '--version', i.version, '--locked', '--root', root], env, (l) => onProgress(`  ${l}`));
    if (code !== 0) throw new Error(`cargo install ${i.crate} failed (exit ${code}); by hand: ${manual}`);
  } else {
    const root = typeof process.getuid === 'function' && process.getuid() === 0;
    if (!root || !onPath('apt-get')())
      throw new Error(
        `${name} is not installed and ${root ? 'this system has no apt-get' : 'installing needs root'}; install the package "${i.package}" with your package manager (on Debian/Ubuntu: sudo ${manual})`,
      );
    onProgress(`installing ${i.package} with apt-get (about ${i.seconds} s)`);
    const apt = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
    if ((await runLogged(['apt-get', 'update', '-qq'], apt, (l) => onProgress(`  ${l}`))) !== 0) throw new Error(`apt-get update failed; by hand: ${manual}`);
    const code = await runLogged(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', i.package], apt, (l) => onProgress(`  ${l}`));
    if (code !== 0) throw new Error(`apt-get install ${i.package} failed (exit ${code}); by hand: ${manual}`);
  }
  const path = spec.find();
  if (!path) throw new Error(`${name} was installed but cannot be found; by hand: ${manual}`);
  return path;
}
