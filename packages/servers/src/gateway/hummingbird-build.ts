import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TargetUnavailableError } from '@benchsuite/sdk';

/** `external/hummingbird` in this checkout (the Swift package). */
export const hummingbirdDir = fileURLToPath(new URL('../../../../external/hummingbird/', import.meta.url));
/** Where `swift build -c release` puts the binary. */
const hummingbirdReleaseBinary = join(hummingbirdDir, '.build', 'release', 'gateway');

/** The prebuilt binary from `HUMMINGBIRD_BIN`, else the release build path (may not exist yet). */
export function hummingbirdBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env.HUMMINGBIRD_BIN || hummingbirdReleaseBinary;
}

/** Why the Hummingbird gateway cannot run here without building, or `null` when a binary is there. */
export function hummingbirdUnavailableReason(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.HUMMINGBIRD_BIN) return existsSync(env.HUMMINGBIRD_BIN) ? null : `HUMMINGBIRD_BIN=${env.HUMMINGBIRD_BIN} does not exist`;
  if (existsSync(hummingbirdReleaseBinary)) return null;
  return swiftOnPath(env) ? `not built yet (run swift build -c release in ${hummingbirdDir})` : 'swift not found on PATH; see external/hummingbird/README.md';
}

function swiftOnPath(env: NodeJS.ProcessEnv = process.env): boolean {
  return spawnSync('swift', ['--version'], { stdio: 'ignore', env }).status === 0;
}

export interface BuildHummingbirdOptions {
  log?: (line: string) => void;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/**
 * Make the gateway binary available: `HUMMINGBIRD_BIN` if set (must exist), else
 * `swift build -c release` when `swift` is on PATH (progress lines to `log`), else
 * `TargetUnavailableError`. Resolves with the binary path.
 */
export async function buildHummingbird(options: BuildHummingbirdOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  if (env.HUMMINGBIRD_BIN) {
    if (!existsSync(env.HUMMINGBIRD_BIN)) throw new TargetUnavailableError(`HUMMINGBIRD_BIN=${env.HUMMINGBIRD_BIN} does not exist`);
    log(`hummingbird: using prebuilt ${env.HUMMINGBIRD_BIN}`);
    return env.HUMMINGBIRD_BIN;
  }
  if (!swiftOnPath(env)) throw new TargetUnavailableError('swift not found on PATH; see external/hummingbird/README.md');
  log(`hummingbird: swift build -c release in ${hummingbirdDir}`);
  await new Promise<void>((resolve, reject) => {
    const child = spawn('swift', ['build', '-c', 'release'], { cwd: hummingbirdDir, env, stdio: ['ignore', 'pipe', 'pipe'], signal: options.signal });
    let partial = '';
    const onData = (b: Buffer): void => {
      partial += b.toString('utf8');
      const lines = partial.split(/\r?\n/);
      partial = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) log(`swift: ${l}`);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`swift build -c release exited with ${code}`))));
  });
  if (!existsSync(hummingbirdReleaseBinary)) throw new Error(`swift build succeeded but ${hummingbirdReleaseBinary} is missing`);
  return hummingbirdReleaseBinary;
}

/** Hummingbird's resolved version from Package.resolved, when the package has been resolved. */
export async function hummingbirdVersion(): Promise<string | undefined> {
  try {
    const resolved = JSON.parse(await readFile(join(hummingbirdDir, 'Package.resolved'), 'utf8')) as {
      pins?: { identity: string; state?: { version?: string } }[];
    };
    return resolved.pins?.find((p) => p.identity === 'hummingbird')?.state?.version;
  } catch {
    return undefined;
  }
}
