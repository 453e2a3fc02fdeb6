// `--requests` and `--connections` lists on the command line: what is refused before anything
// starts, and what the plan says. Nothing is loaded here (dry runs and refusals only).
import { describe, expect, it } from 'vitest';
import { findH2load } from '@benchsuite/sdk';
import { inProcess, STACK } from './_helpers.js';

describe('benchsuite run --requests', () => {
  it('a driver that cannot send a fixed number of requests is refused with exit 2 before anything starts', async () => {
    const r = await inProcess(['run', '--driver', 'wrk', '--requests', '100', '--scenario', 'baseline', '--target', 'node-http']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe('benchsuite: driver: wrk cannot send a fixed number of requests per window (--requests), which a scenario of this suite needs (h2load or autocannon can)\n');
    expect(r.stdout).toBe('');
  });

  it('fewer requests than connections, and a count that is not a whole number ≥ 1, name the flag', async () => {
    for (const [args, msg] of [
      [['--requests', '10', '-c', '50'], /--requests: 10 requests cannot keep 50 connections busy \(scenario baseline\); give at least 50/],
      [['--requests', '0'], /--requests: expected a whole number ≥ 1, got "0"/],
      [['--requests', '1e3'], /--requests: expected a whole number, got "1e3"/],
    ] as const) {
      const r = await inProcess(['run', '--scenario', 'baseline', '--target', 'node-http', '-n', ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr).not.toMatch(STACK);
    }
  });

  it('with --driver auto the plan picks a driver that can, says why, and shows windows of N requests', async () => {
    const r = await inProcess(['run', '--requests', '100', '-c', '1', '--scenario', 'baseline', '--target', 'node-http', '-n']);
    expect(r.code, r.stderr).toBe(0);
    // h2load when installed (the lowest time per request), else autocannon (wrk cannot send a fixed count).
    expect(r.stdout).toMatch(
      findH2load()
        ? /\ndriver {5}h2load: h2load has the lowest time per request of the drivers available, which fixed request counts need/
        : /\ndriver {5}autocannon: h2load not available.*; wrk cannot send a fixed number of requests per window \(--requests\)/,
    );
    expect(r.stdout).toMatch(/\ndesign {5}windows of exactly 100 requests each \(per connection step\)/);
    const json = await inProcess(['run', '--requests', '100', '-c', '1,2,4', '--scenario', 'baseline', '--target', 'node-http', '-n', '--json']);
    expect(JSON.parse(json.stdout).overrides).toEqual({ requests: 100, connections: [1, 2, 4] });
  });
});
