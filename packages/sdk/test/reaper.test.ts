// Temporary folders of a runner that dies without cleaning up (SIGKILL) are removed by the reaper,
// as its process groups are. The runner here is a child process importing the built SDK.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { tinyServer } from './_helpers.js';

const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** A runner that starts a server (whose output goes to a temporary folder), guards one more folder, and reports both. */
const runnerScript = `
import { startProcess, guardTempDir } from ${JSON.stringify(dist)};
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const before = new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('benchsuite-output-')));
const srv = await startProcess({ command: [process.execPath, ${JSON.stringify(tinyServer)}] });
const output = readdirSync(tmpdir()).filter((n) => n.startsWith('benchsuite-output-') && !before.has(n)).map((n) => join(tmpdir(), n));
const mine = guardTempDir(mkdtempSync(join(tmpdir(), 'benchsuite-reaper-test-')));
console.log(JSON.stringify({ pid: srv.pid, dirs: [...output, mine] }));
setInterval(() => undefined, 1000);
`;

describe.skipIf(!existsSync(dist))('the reaper (skipped: @benchsuite/sdk is not built; npm run build)', () => {
  it("removes the runner's temporary folders and kills its server after a SIGKILL of the runner", async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', runnerScript], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    for (let i = 0; i < 200 && !out.includes('\n'); i++) await sleep(50);
    const { pid, dirs } = JSON.parse(out.split('\n')[0]!) as { pid: number; dirs: string[] };
    expect(dirs.length).toBe(2);
    for (const d of dirs) expect(existsSync(d)).toBe(true);
    child.kill('SIGKILL');
    const alive = (p: number) => {
      try {
        process.kill(p, 0);
        return true;
      } catch {
        return false;
      }
    };
    // The reaper sends TERM, waits a second, sends KILL, then removes the folders.
    for (let i = 0; i < 100 && (dirs.some(existsSync) || alive(pid)); i++) await sleep(100);
    for (const d of dirs) expect(existsSync(d), d).toBe(false);
    expect(alive(pid)).toBe(false);
  });
});
