import { spawn, type ChildProcess } from 'node:child_process';

/**
 * The one way the packages' tests start a server: a real child process on PORT=0, waiting for its
 * `listening on http://127.0.0.1:<port>` line. Contract A's servers, the gateways, the stub, the
 * Python web suite and the runtimes' servers all go through here.
 */
export interface RunningProcess {
  name: string;
  url: string;
  child: ChildProcess;
  /** Everything it wrote to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** The last lines of stdout and stderr, for failure messages. */
  output(lines?: number): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** SIGTERM (SIGKILL after 8 s) and wait; resolves with the ms it took to exit. */
  stop(): Promise<number>;
}

export interface StartOptions {
  /** Added to the environment, after `PORT=0`. */
  env?: Record<string, string>;
  /** Removed from the environment unless `env` sets them: the SDK's `DEFAULTS.unsetEnv`, as a run removes them. */
  unsetEnv?: readonly string[];
  cwd?: string;
  timeoutMs?: number;
}

// The whole line, newline included: a chunk may end inside the port number.
const LISTENING = /^listening on (http:\/\/127\.0\.0\.1:\d+)\r?\n/m;
/** Variables of the test runner itself that must not reach a server: a worker's metrics folder, vitest's marker. */
const TEST_RUNNER_ONLY = ['PROMETHEUS_MULTIPROC_DIR', 'VITEST'];
const MAX_CHARS = 200_000;

export function startListening(name: string, command: readonly string[], opts: StartOptions = {}): Promise<RunningProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', ...opts.env };
  for (const k of [...(opts.unsetEnv ?? []), ...TEST_RUNNER_ONLY]) if (!(opts.env && k in opts.env)) delete env[k];
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const child = spawn(command[0]!, command.slice(1), { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  // Always drained: a child blocks once a pipe nobody reads fills up.
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out = (out + d).slice(-MAX_CHARS)));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-MAX_CHARS)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const output = (n = 30) => `${out}${err}`.split('\n').filter(Boolean).slice(-n).join('\n');
  let stopping: Promise<number> | undefined;
  const stop = () =>
    (stopping ??= new Promise<number>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(0);
      const t0 = Date.now();
      const kill = setTimeout(() => child.kill('SIGKILL'), 8_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve(Date.now() - t0);
      });
      child.kill('SIGTERM');
    }));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not print "listening on" within ${timeoutMs / 1000} s\n${output()}`));
    }, timeoutMs);
    const onData = (): void => {
      const m = LISTENING.exec(out);
      if (!m?.[1]) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve({ name, url: m[1], child, stdout: () => out, stderr: () => err, output, exited, stop });
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code ?? child.signalCode} before listening\n${output()}`));
    });
  });
}
