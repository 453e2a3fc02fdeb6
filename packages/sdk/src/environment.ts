import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import type { Environment } from './result-schema.js';
import { cpuClock } from './procfs.js';

function run(cmd: string, args: string[]): string | null {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 5000 }).trim();
  } catch {
    return null;
  }
}

/** Version of this SDK (recorded in every result). */
function sdkVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export function hasCommand(cmd: string): boolean {
  return run('sh', ['-c', `command -v ${cmd}`]) !== null;
}

export interface Pinning {
  enabled: boolean;
  tool: string | null;
  serverCpus: number[];
  loaderCpus: number[];
  reason?: string;
}

/** Usable CPUs of this process (its affinity mask), from /proc/self/status. */
export function allowedCpus(): number[] {
  try {
    const m = /^Cpus_allowed_list:\s*(.+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return parseCpuList(m[1]!);
  } catch {
    /* not Linux */
  }
  return Array.from({ length: os.availableParallelism() }, (_, i) => i);
}

function parseCpuList(list: string): number[] {
  const out: number[] = [];
  for (const part of list.trim().split(',')) {
    const [a, b] = part.split('-').map(Number) as [number, number | undefined];
    for (let c = a; c <= (b ?? a); c++) out.push(c);
  }
  return out;
}

/** Decide which cores the server and the load generator get (server: first half, loader: the rest). */
export function decidePinning(choice: 'auto' | false | { server: number[]; loader: number[] }): Pinning {
  if (choice === false) return { enabled: false, tool: null, serverCpus: [], loaderCpus: [], reason: 'disabled by option' };
  if (process.platform !== 'linux' || !hasCommand('taskset')) {
    return { enabled: false, tool: null, serverCpus: [], loaderCpus: [], reason: 'taskset not found on PATH: server and loader share all cores, expect 10–20% more noise' };
  }
  if (typeof choice === 'object') return { enabled: true, tool: 'taskset', serverCpus: choice.server, loaderCpus: choice.loader };
  const cpus = allowedCpus();
  if (cpus.length < 2) return { enabled: false, tool: null, serverCpus: [], loaderCpus: [], reason: `only ${cpus.length} usable core: cannot pin server and loader apart` };
  const half = Math.floor(cpus.length / 2);
  return { enabled: true, tool: 'taskset', serverCpus: cpus.slice(0, half), loaderCpus: cpus.slice(half) };
}

/** Command prefix that pins a process to `cpus`. */
export function pinPrefix(p: Pinning, cpus: number[]): string[] {
  return p.enabled && cpus.length ? ['taskset', '-c', cpus.join(',')] : [];
}

/** Pin the runner's own threads to the loader cores (so its sampling never steals the server's core); returns an undo. */
export function pinSelf(p: Pinning): () => void {
  if (!p.enabled) return () => undefined;
  const before = allowedCpus();
  if (run('taskset', ['-a', '-p', '-c', p.loaderCpus.join(','), String(process.pid)]) === null) return () => undefined;
  return () => void run('taskset', ['-a', '-p', '-c', before.join(','), String(process.pid)]);
}

/** What the result depends on: machine, kernel, runtimes, git commit. */
export function captureEnvironment(parts: Pick<Environment, 'driver' | 'pinning' | 'serverEnv'>): Environment {
  const cpus = os.cpus();
  const py = run('python3', ['--version']);
  const commit = run('git', ['rev-parse', 'HEAD']);
  const dirty = commit ? (run('git', ['status', '--porcelain']) ?? '') !== '' : false;
  return {
    os: `${os.type()} ${os.version()}`,
    kernel: os.release(),
    arch: os.arch(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length || os.availableParallelism(),
    memoryBytes: os.totalmem(),
    hostname: os.hostname(),
    node: process.version,
    python: py ? py.replace(/^Python\s+/, '') : null,
    benchsuite: sdkVersion(),
    git: commit ? { commit, dirty } : null,
    loadavgAtStart: os.loadavg(),
    cpuClock: cpuClock(),
    ...parts,
  };
}
