import { spawn, type ChildProcess } from 'node:child_process';
import { DEFAULTS } from './defaults.js';
import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Readiness } from './target.js';

/** How a process ended. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StartProcessOptions {
  command: readonly string[];
  cwd?: string | undefined;
  /** Added to (and overriding) the runner's environment. */
  env?: Record<string, string> | undefined;
  /** Removed from the environment (e.g. NODE_EXTRA_CA_CERTS, which costs ~50 ms per Node start). */
  unsetEnv?: readonly string[] | undefined;
  ready?: Readiness | undefined;
  readyTimeoutMs?: number | undefined;
  /** Command prefix that pins the process, e.g. `['taskset', '-c', '0']`. */
  pin?: readonly string[] | undefined;
  signal?: AbortSignal | undefined;
  /** Interval of health polling for `ready: healthz`, ms (small when startup time is measured). */
  healthPollMs?: number | undefined;
}

/** A started server: its URL, pid, output tail and a way to stop it. */
export interface RunningProcess {
  pid: number;
  url: string;
  /** Spawn → ready, ms. */
  readyMs: number;
  exited: Promise<ExitInfo>;
  exitInfo(): ExitInfo | undefined;
  /** Last output lines (stderr and stdout interleaved). */
  tail(): string;
  /** SIGTERM to the whole process group, SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<ExitInfo>;
}

/** Raised when a process exits or never becomes ready; carries its output tail. */
export class ProcessStartError extends Error {
  override name = 'ProcessStartError';
  constructor(
    message: string,
    readonly phase: 'start' | 'ready',
    readonly tail: string,
    readonly exit?: ExitInfo,
  ) {
    super(message);
  }
}

const LISTENING = /listening on (https?:\/\/\S+)/;
const TAIL_BYTES = 8192;

let outputDir: string | undefined;
/** A fresh file for one process's stdout + stderr, in a folder removed when the runner exits. */
function outputFile(): string {
  if (!outputDir) {
    const dir = guardTempDir(mkdtempSync(join(tmpdir(), 'benchsuite-output-')));
    outputDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return join(outputDir, `${Date.now()}-${Math.random().toString(36).slice(2, 8)}.log`);
}

/** Last `TAIL_BYTES` of a file, '' when it is gone. */
function readTail(file: string): string {
  try {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const len = Math.min(size, TAIL_BYTES);
      const buf = Buffer.alloc(len);
      readSync(fd, buf, 0, len, size - len);
      return buf.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}

// ---------------------------------------------------------------------------------------------
// The reaper: one small bash process per runner that holds a pipe from us. When the runner dies,
// even by SIGKILL, the pipe closes, `read` sees EOF and the reaper kills every process group we
// registered. Node has no prctl(PR_SET_PDEATHSIG), and pdeathsig would not reach grandchildren
// (uvicorn workers) anyway; a process group per server plus this watcher covers whole trees.
// ---------------------------------------------------------------------------------------------
const REAPER_SCRIPT = `
trap '' INT TERM HUP
groups=" "
dirs=()
while read -r op id; do
  case "$op" in
    add) groups="$groups$id " ;;
    del) groups="\${groups/ $id / }" ;;
    dir) dirs+=("$id") ;;
  esac
done
for g in $groups; do kill -TERM -- "-$g" 2>/dev/null; done
sleep 1
for g in $groups; do kill -KILL -- "-$g" 2>/dev/null; done
for d in "\${dirs[@]}"; do rm -rf -- "$d"; done
`;

let reaper: ChildProcess | undefined;
function reaperWrite(line: string): void {
  if (!reaper) {
    reaper = spawn('bash', ['-c', REAPER_SCRIPT], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    reaper.on('error', () => undefined);
    reaper.unref();
    (reaper.stdin as unknown as { unref?: () => void }).unref?.();
    reaper.stdin?.on('error', () => undefined);
  }
  reaper.stdin?.write(`${line}\n`);
}

/**
 * Make a child that was spawned `detached` (its own process group) die with the runner, even if
 * the runner is SIGKILLed: registers its group with the reaper until it exits.
 */
export function guardProcessGroup(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  reaperWrite(`add ${pid}`);
  child.once('exit', () => reaperWrite(`del ${pid}`));
}

/**
 * A temporary folder that must not outlive the runner: removed on a normal exit, and by the
 * reaper when the runner dies without one (SIGKILL). Returns the path.
 */
export function guardTempDir(dir: string): string {
  if (dir.includes('\n')) throw new Error(`temporary folder name with a newline: ${JSON.stringify(dir)}`);
  reaperWrite(`dir ${dir}`);
  return dir;
}

const live = new Set<RunningProcess>();
/** Stop every process this runner started (used on SIGINT/SIGTERM). */
export async function stopAllProcesses(graceMs = 2000): Promise<void> {
  await Promise.all([...live].map((p) => p.stop(graceMs)));
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* group already gone */
  }
}

/** A free TCP port on 127.0.0.1 (for servers that must be told their port up front). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Start a command as its own process group (so its whole tree can be signalled), pinned when
 * `pin` is given, and wait until it is ready: its `listening on <url>` line, or 200 on a health path.
 *
 * @example
 * const srv = await startProcess({ command: ['node', 'server.js'] }); await fetch(srv.url + '/ping'); await srv.stop();
 */
export async function startProcess(options: StartProcessOptions): Promise<RunningProcess> {
  const ready = options.ready ?? { type: 'stdout' };
  const { env, presetUrl } = await processEnv(options, ready);
  const spawned = await spawnToFile([...(options.pin ?? []), ...options.command], options.cwd, env);
  if (spawned.pid === undefined) {
    const why = await spawned.whyNotStarted();
    const t = readTail(spawned.log);
    rmSync(spawned.log, { force: true });
    throw new ProcessStartError(`could not start ${options.command[0]}: ${why}`, 'start', t);
  }
  const proc = runningProcess({ ...spawned, pid: spawned.pid });
  const timeoutMs = options.readyTimeoutMs ?? DEFAULTS.readyTimeoutMs;
  const first = await readiness(proc, spawned.log, ready, { presetUrl, timeoutMs, t0: spawned.t0, signal: options.signal, healthPollMs: options.healthPollMs ?? 10 });
  if (first.kind !== 'ready') {
    const [message, phase] = notReady(first, ready, timeoutMs);
    const info = proc.exitInfo();
    await proc.stop(1000);
    throw new ProcessStartError(message, phase, proc.tail(), info);
  }
  proc.url = first.url.replace(/\/$/, '');
  proc.readyMs = performance.now() - spawned.t0;
  return proc;
}

/** The process's environment, and its URL when it is known before the start (a health path needs a port chosen here). */
async function processEnv(options: StartProcessOptions, ready: Readiness): Promise<{ env: Record<string, string | undefined>; presetUrl: string | undefined }> {
  const env: Record<string, string | undefined> = { ...process.env, ...options.env };
  for (const k of options.unsetEnv ?? []) delete env[k];
  if (ready.type !== 'healthz') {
    env.PORT ??= '0';
    return { env, presetUrl: undefined };
  }
  if (!env.PORT || env.PORT === '0') env.PORT = String(await freePort());
  return { env, presetUrl: `http://127.0.0.1:${env.PORT}` };
}

/** A spawned command: its pid (none when it could not start), its exit, its output file, and when it was spawned. */
interface Spawned {
  pid: number | undefined;
  exited: Promise<ExitInfo>;
  exitInfo(): ExitInfo | undefined;
  /** Why a command without a pid did not start. */
  whyNotStarted(): Promise<string | undefined>;
  log: string;
  t0: number;
}

/** Spawn `argv` detached (its own process group), its stdout and stderr into a fresh output file. */
async function spawnToFile(argv: readonly string[], cwd: string | undefined, env: Record<string, string | undefined>): Promise<Spawned> {
  // Output goes to a file, not to pipes: the runner shares the loader's core, and draining a
  // gateway's per-request log (MB/s) there would cost loader CPU and runner memory (execa's
  // `{file}` target would pipe through the runner, so the file's descriptor is passed instead).
  // The ready line is read by polling the file; the tail is read back on failure.
  // Imported on first use: execa and its dependencies take about 0.1 s to load, which every
  // command of the CLI would pay, `--help` included.
  const { execa } = await import('execa');
  const log = outputFile();
  const fd = openSync(log, 'a');
  const t0 = performance.now();
  // execa: a spawn error and an exit arrive as one result (never a rejection, with `reject:
  // false`). Its clean-up on exit is off: the reaper covers a SIGKILLed runner too, and the
  // whole process group, where execa's kill reaches one pid. Its types list descriptors 3–9
  // only; at run time any open descriptor is handed to spawn as is (checked: the child's fd 1
  // and 2 point at the file, and `child.stdout` is null).
  const out = fd as 3;
  const child = (() => {
    try {
      return execa(argv[0]!, argv.slice(1), {
        cwd,
        env,
        extendEnv: false,
        detached: true,
        cleanup: false,
        reject: false,
        stdin: 'ignore',
        stdout: out,
        stderr: out,
      });
    } finally {
      closeSync(fd);
    }
  })();
  let exitInfo: ExitInfo | undefined;
  const exited: Promise<ExitInfo> = child.then((r) => (exitInfo = { code: r.exitCode ?? null, signal: (r.signal ?? null) as NodeJS.Signals | null }));
  return {
    pid: child.pid,
    exited,
    exitInfo: () => exitInfo,
    whyNotStarted: async () => {
      const r = await child;
      return r.cause instanceof Error ? r.cause.message : r.shortMessage;
    },
    log,
    t0,
  };
}

/**
 * The handle of a started process, known to the reaper and to `stopAllProcesses` until it stops:
 * stopping it sends SIGTERM to its group, SIGKILL after the grace, and keeps its output's tail.
 */
function runningProcess(spawned: Spawned & { pid: number }): RunningProcess {
  const { pid, exited, log } = spawned;
  reaperWrite(`add ${pid}`);
  let savedTail: string | undefined;
  let stopping: Promise<ExitInfo> | undefined;
  const proc: RunningProcess = {
    pid,
    url: '',
    readyMs: 0,
    exited,
    exitInfo: spawned.exitInfo,
    tail: () => savedTail ?? readTail(log),
    stop(graceMs = 5000) {
      stopping ??= (async () => {
        if (!spawned.exitInfo()) {
          killGroup(pid, 'SIGTERM');
          const timer = sleep(graceMs).then(() => 'timeout' as const);
          if ((await Promise.race([exited, timer])) === 'timeout') killGroup(pid, 'SIGKILL');
        }
        const info = await exited;
        // Leftovers of the group (workers that ignored TERM) die too.
        killGroup(pid, 'SIGKILL');
        reaperWrite(`del ${pid}`);
        live.delete(proc);
        savedTail = readTail(log);
        rmSync(log, { force: true });
        return info;
      })();
      return stopping;
    },
  };
  live.add(proc);
  return proc;
}

type ReadyOutcome = { kind: 'ready'; url: string } | { kind: 'exit'; e: ExitInfo } | { kind: 'timeout' } | { kind: 'aborted' };

/**
 * What comes first: the process is ready (its URL), it exits, the ready timeout passes, or the
 * run is interrupted. The watchers of the others stop once one is decided.
 */
async function readiness(
  proc: RunningProcess,
  log: string,
  ready: Readiness,
  o: { presetUrl: string | undefined; timeoutMs: number; t0: number; signal: AbortSignal | undefined; healthPollMs: number },
): Promise<ReadyOutcome> {
  const pattern = ready.type === 'stdout' && ready.pattern ? new RegExp(ready.pattern) : LISTENING;
  // Watched whatever the readiness (as it always was): a health path's start reads the output too.
  const stdout = watchForUrl(log, pattern, o.presetUrl);
  const abort = abortOf(o.signal);
  const deadlineTimer = new AbortController();
  // Cancelled once the race is decided, so no 20 s timer stays pending per server.
  const deadline = sleep(o.timeoutMs, undefined, { signal: deadlineTimer.signal }).then(
    () => ({ kind: 'timeout' as const }),
    () => new Promise<never>(() => undefined),
  );
  const url: Promise<string> =
    ready.type === 'stdout' ? stdout.url : pollHealth(o.presetUrl! + ready.path, () => proc.exitInfo() !== undefined, o.t0 + o.timeoutMs, o.healthPollMs).then(() => o.presetUrl!);
  const first = await Promise.race([
    url.then((u) => ({ kind: 'ready' as const, url: u })),
    proc.exited.then((e) => ({ kind: 'exit' as const, e })),
    deadline,
    abort.aborted.then(() => ({ kind: 'aborted' as const })),
  ]);
  abort.unlisten();
  stdout.stop();
  deadlineTimer.abort();
  return first;
}

/** The message and phase of a start that did not reach ready. */
function notReady(first: Exclude<ReadyOutcome, { kind: 'ready' }>, ready: Readiness, timeoutMs: number): [string, 'start' | 'ready'] {
  switch (first.kind) {
    case 'exit':
      return [`exited before it was ready (${describeExit(first.e)})`, 'start'];
    case 'timeout':
      return [`not ready after ${timeoutMs} ms (${ready.type === 'stdout' ? 'no "listening on" line on stdout' : `no 200 on ${ready.path}`})`, 'ready'];
    case 'aborted':
      return ['interrupted while starting', 'start'];
  }
}

/** The URL of the first output line that matches `pattern`, read by polling the output file until `stop`. */
function watchForUrl(log: string, pattern: RegExp, presetUrl: string | undefined): { url: Promise<string>; stop(): void } {
  let watching = true;
  const url = new Promise<string>((resolve) => {
    void (async () => {
      let offset = 0;
      let partial = '';
      const buf = Buffer.alloc(65536);
      while (watching) {
        const fdr = openSync(log, 'r');
        try {
          const read = () => readSync(fdr, buf, 0, buf.length, offset);
          for (let n = read(); n > 0; n = read()) {
            offset += n;
            partial += buf.toString('utf8', 0, n);
            const lines = partial.split('\n');
            partial = lines.pop() ?? '';
            for (const line of lines) {
              const m = pattern.exec(line);
              if (m) return resolve(m[1] ?? presetUrl ?? '');
            }
            if (partial.length > 65536) partial = partial.slice(-4096);
          }
        } finally {
          closeSync(fdr);
        }
        await sleep(5);
      }
    })();
  });
  return {
    url,
    stop: () => {
      watching = false;
    },
  };
}

/** Resolves when `signal` aborts (never without one); `unlisten` drops its listener. */
function abortOf(signal: AbortSignal | undefined): { aborted: Promise<'aborted'>; unlisten(): void } {
  let unlisten: () => void = () => undefined;
  const aborted = new Promise<'aborted'>((resolve) => {
    if (!signal) return;
    if (signal.aborted) return resolve('aborted');
    const on = () => resolve('aborted');
    signal.addEventListener('abort', on, { once: true });
    unlisten = () => signal.removeEventListener('abort', on);
  });
  return { aborted, unlisten: () => unlisten() };
}

async function pollHealth(url: string, dead: () => boolean, deadline: number, everyMs: number): Promise<void> {
  while (!dead() && performance.now() < deadline) {
    if ((await statusOf(url)) === 200) return;
    await sleep(everyMs);
  }
  await new Promise(() => undefined); // the race in startProcess reports exit or timeout
}

/** Status of a GET, or 0 when nothing answers. node:http rather than fetch: a cold start is polled
 *  every 2 ms, and hundreds of refused fetches per start cost the runner tens of MB. */
function statusOf(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = httpGet(url, { agent: false, timeout: 1000 }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', () => resolve(0));
    });
    req.once('error', () => resolve(0));
    req.once('timeout', () => req.destroy());
  });
}

export function describeExit(e: ExitInfo | undefined): string {
  if (!e) return 'still running';
  return e.signal ? `killed by ${e.signal}` : `exit code ${e.code}`;
}

/** The last `n` lines of a process's output (for failure records). */
export function lastLines(text: string, n: number): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}
