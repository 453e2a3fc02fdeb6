import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const script = fileURLToPath(new URL('../bench/round-one.mjs', import.meta.url));
const env = { ...process.env, npm_lifecycle_event: 'bench:round-one' };

describe('the bench scripts read their options', () => {
  it('a mistyped option says which, with the script usage, exit 2 and no stack trace', async () => {
    const e = await run(process.execPath, [script, '--frm', 'x.json'], { env }).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    expect(e?.code).toBe(2);
    expect(e?.stderr).toMatch(/^bench:round-one: Unknown option '--frm'/);
    expect(e?.stderr).toContain('Usage: npm run bench:round-one -- --from');
    expect(e?.stderr).not.toMatch(/\n\s+at /);
  });

  it('--help prints the usage and exits 0', async () => {
    const { stdout } = await run(process.execPath, [script, '--help'], { env });
    expect(stdout).toMatch(/^Usage: npm run bench:round-one -- --from/);
  });
});
