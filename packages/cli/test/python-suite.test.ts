/**
 * The Python web suite (contract C) as the CLI sees it: listed with its scenarios and targets,
 * `fastapi-<N>w` present exactly when the server cores are more than one, costs on by default,
 * and `benchsuite setup python` making (or reusing) its virtualenv. The built binary is run as a
 * user runs it: the targets are defined when @benchsuite/servers loads, from BENCHSUITE_SERVER_CPUS.
 */
import { describe, expect, it } from 'vitest';
import { ensurePythonWebVenv } from '@benchsuite/servers';
import { binary, STACK } from './_helpers.js';

const SCENARIOS = 'hello, root-html, json, item, large-json, page';

/** Why the suite's venv cannot be made here (no python3, no venv module, pip failed), or null. Reuses the cached venv. */
const venvAbsent: string | null = await ensurePythonWebVenv().then(
  () => null,
  (err: unknown) => `Python web suite venv unavailable: ${(err as Error).message.split('\n')[0]!.slice(0, 200)}`,
);

describe('suite python', () => {
  it('is listed with its six scenarios and its targets, the node:http reference first; fastapi-2w on two server cores', () => {
    const two = binary(['list'], { BENCHSUITE_SERVER_CPUS: '0,1' });
    expect(two.code, two.stderr).toBe(0);
    expect(two.stdout).toContain(`python\n  scenarios: ${SCENARIOS}\n  targets:   node-http-c, fastapi-1w, fastapi-2w, litestar, http-server\n`);
    const one = binary(['list'], { BENCHSUITE_SERVER_CPUS: '0' });
    expect(one.stdout).toContain(`python\n  scenarios: ${SCENARIOS}\n  targets:   node-http-c, fastapi-1w, litestar, http-server\n`);
  });

  it('--dry-run plans it with costs on and node-http-c as the reference', () => {
    const r = binary(['run', '--suite', 'python', '--dry-run'], { BENCHSUITE_SERVER_CPUS: '0' });
    expect(r.code, r.stderr).toBe(0);
    const plan = r.stdout + r.stderr;
    expect(plan).toMatch(/costs on/);
    expect(plan).toMatch(/node-http-c/);
    expect(plan).toMatch(/\ntargets\s+node-http-c \(reference\)/);
  });

  it('`setup` with an unknown name is a usage error naming the suites, without a stack trace', () => {
    const r = binary(['setup', 'pythn']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown target "pythn"; expected a suite \(framework, gateway, python\)/);
    expect(r.stderr).not.toMatch(STACK);
  });

  it.skipIf(venvAbsent !== null)(`\`setup python\` readies every target of the suite${venvAbsent ? ` (skipped: ${venvAbsent})` : ''}`, () => {
    const r = binary(['setup', 'python'], { BENCHSUITE_SERVER_CPUS: '0,1' });
    expect(r.code, r.stderr).toBe(0);
    // fastapi-1w is also a gateway target: the line names the suite.
    for (const line of ['node-http-c: ready', 'python/fastapi-1w: ready', 'python/fastapi-2w: ready', 'litestar: ready', 'http-server: ready']) expect(r.stderr).toContain(`${line}\n`);
    expect(r.stderr).not.toMatch(/gateway\//);
    expect(r.stdout).toBe('');
  });
});
