import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scratch as scratchDir } from '@benchsuite/testkit';

const sdkDir = fileURLToPath(new URL('..', import.meta.url));

describe('the SDK as another repository gets it', () => {
  it('installs from a packed tarball into a scratch project outside the monorepo and runs a suite', () => {
    const scratch = scratchDir('benchsuite-consumer');
    execFileSync('npm', ['pack', '--pack-destination', scratch, '--silent'], { cwd: sdkDir, stdio: ['ignore', 'pipe', 'pipe'] });
    const tarball = readdirSync(scratch).find((f) => f.endsWith('.tgz'));
    expect(tarball).toMatch(/^benchsuite-sdk-\d+\.\d+\.\d+\.tgz$/);
    const files = execFileSync('tar', ['-tzf', join(scratch, tarball!)], { encoding: 'utf8' });
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/schema/result.schema.json');
    expect(files).not.toContain('package/src/');
    expect(files).not.toContain('package/test/');

    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    execFileSync('npm', ['install', `./${tarball}`, '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], { cwd: scratch, stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
    writeFileSync(
      join(scratch, 'server.mjs'),
      `import { createServer } from 'node:http';
const s = createServer((q, r) => { r.writeHead(200, { 'content-type': 'application/json' }); r.end('{"hello":"world"}'); });
s.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));
process.on('SIGTERM', () => { s.close(() => process.exit(0)); s.closeIdleConnections(); });`,
    );
    writeFileSync(
      join(scratch, 'bench.mjs'),
      `import { createRequire } from 'node:module';
import { defineScenario, defineTarget, runSuite, resultSchema, BenchsuiteConfigError } from '@benchsuite/sdk';
const hello = defineScenario({ name: 'hello', request: { path: '/hello' }, expect: { status: 200, json: { hello: 'world' } }, load: { connections: 5 } });
const mine = defineTarget({ kind: 'process', name: 'mine', command: [process.execPath, 'server.mjs'], version: '1.0.0' });
let named = '';
try { await runSuite({ scenarios: [{ ...hello, load: { connections: 0 } }], targets: [mine] }); } catch (e) { named = e instanceof BenchsuiteConfigError ? e.message : 'wrong error'; }
// No window left out for steal (stealThreshold 1): a burst on a shared VM would add a round, and a third window.
const result = await runSuite({ scenarios: [hello], targets: [mine], design: { windowSec: 0.5, rounds: { min: 2, max: 2 }, blocks: { min: 1, max: 1 }, warmup: { minSec: 0.2, maxSec: 0.2 }, control: 'none', stealThreshold: 1 }, driver: 'autocannon' });
const schema = createRequire(import.meta.url)('@benchsuite/sdk/schema.json');
console.log(JSON.stringify({ named, ok: resultSchema.safeParse(result).success, windows: result.windows.map((w) => w.status), requests: result.summaries[0]?.requests, schemaTitle: schema.title, schemaId: schema.$id, schemaHasWindows: 'windows' in schema.properties, schemaVersion: result.schemaVersion }));`,
    );
    const out = JSON.parse(execFileSync(process.execPath, ['bench.mjs'], { cwd: scratch, encoding: 'utf8', timeout: 60_000 }));
    expect(out.named).toMatch(/scenarios\[0\]\.load\.connections/);
    expect(out.ok).toBe(true);
    expect(out.windows).toEqual(['ok', 'ok']);
    expect(out.schemaVersion).toBe(3);
    expect(out.requests).toBeGreaterThan(10);
    expect(out.schemaTitle).toBe('benchsuite result');
    // The packed JSON Schema is the one generated from this version's zod schema.
    expect(out.schemaId).toMatch(/result-v3\.json$/);
    expect(out.schemaHasWindows).toBe(true);
  }, 240_000);
});
