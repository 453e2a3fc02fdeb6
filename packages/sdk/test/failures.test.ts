// What a run records when a target misbehaves, and the verify step. Starts real servers and loads
// them briefly: run under the shared lock (`flock /tmp/bs-load.lock npx vitest run …`).
import { describe, expect, it } from 'vitest';
import { resultSchema, runSuite, type DesignOptions, type FailedWindow } from '../src/index.js';
import { tiny, tinyDesign } from './_helpers.js';

const ping = { name: 'ping', request: { path: '/ping' }, expect: { status: 200, json: { ok: true } }, load: { connections: 5 } };
const design = { ...tinyDesign, warmup: { minSec: 0, maxSec: 0 } } satisfies DesignOptions;
const base = { scenarios: [ping], design, driver: 'autocannon' } as const;

describe('failures are recorded, and the run goes on', () => {
  it('a server that crashes mid-window is a failed window with its exit and output tail; the other target is still measured', async () => {
    // No warm-up, 1-s windows: the crash (0.4 s after ready) lands in crashy's first window or
    // before it, and the window then ends at once as a crash.
    const r = await runSuite({ ...base, design: { ...design, windowSec: 1 }, targets: [tiny('crashy', { CRASH_AFTER_MS: '400' }), tiny('fine')], verify: false, seed: 3 });
    expect(resultSchema.safeParse(r).success).toBe(true);
    const crashed = r.windows.filter((w): w is FailedWindow => w.target === 'crashy' && w.status === 'failed');
    expect(crashed).toHaveLength(1);
    expect(crashed[0]!.failure).toMatchObject({ phase: 'crash', exitCode: 3 });
    expect(crashed[0]!.failure.stderrTail).toContain('listening on');
    // Once failed, the target leaves the block: no later window of it.
    expect(r.windows.filter((w) => w.target === 'crashy')).toHaveLength(1);
    expect(r.blocks[0]!.targets.find((t) => t.target === 'crashy')).toMatchObject({ status: 'failed', failure: { phase: 'crash' } });
    const fine = r.windows.filter((w) => w.target === 'fine');
    expect(fine).toHaveLength(2);
    expect(fine.every((w) => w.status === 'ok')).toBe(true);
    expect(r.summaries.find((s) => s.target === 'fine')!.windows.ok).toBe(2);
  });

  it('a server that never becomes ready fails verify with the reason and is not loaded', async () => {
    const r = await runSuite({ ...base, targets: [tiny('mute', { NEVER_READY: '1' }, { readyTimeoutMs: 800 })] });
    expect(r.verify[0]).toMatchObject({ ok: false, reason: expect.stringMatching(/not ready after 800 ms/) });
    expect(r.windows).toHaveLength(0);
    expect(r.blocks).toHaveLength(0);
    expect(r.stops).toEqual([expect.objectContaining({ scenario: 'ping', reason: 'no-targets' })]);
  });

  it('a server that never becomes ready (verify off) fails its block in phase ready, without a window', async () => {
    const r = await runSuite({ ...base, targets: [tiny('mute', { NEVER_READY: '1' }, { readyTimeoutMs: 800 })], verify: false });
    expect(r.blocks[0]!.targets[0]).toMatchObject({ target: 'mute', status: 'failed', failure: { phase: 'ready' } });
    expect(r.windows).toHaveLength(0);
    expect(resultSchema.safeParse(r).success).toBe(true);
  });

  it('a window without a single response is a failed window, not a zero figure', async () => {
    const r = await runSuite({ ...base, targets: [{ kind: 'url', name: 'gone', url: 'http://127.0.0.1:1' }], verify: false });
    expect(r.windows[0]).toMatchObject({ status: 'failed', failure: { phase: 'load', message: expect.stringMatching(/no response in the measured window/) } });
    expect(r.summaries.every((s) => s.windows.ok === 0)).toBe(true);
  });

  it('a command that does not exist is a failed start, not an exception', async () => {
    const r = await runSuite({ ...base, targets: [{ kind: 'process', name: 'nope', command: ['/nonexistent/server'] }], verify: false });
    expect(r.blocks[0]!.targets[0]).toMatchObject({ target: 'nope', status: 'failed', failure: { phase: 'start' } });
    expect(r.windows).toHaveLength(0);
  });
});

describe('verify step', () => {
  it('keeps a target that answers differently out of the load, with a readable diff', async () => {
    const r = await runSuite({ ...base, scenarios: [{ ...ping, expect: { status: 200, json: { ok: false } } }], targets: [tiny('liar')] });
    expect(r.windows).toHaveLength(0);
    expect(r.verify[0]!.ok).toBe(false);
    expect(r.verify[0]!.diff).toContain('- expected {"ok":false}');
    expect(r.verify[0]!.diff).toContain('+ received {"ok":true}');
  });
  it('checks the status', async () => {
    const r = await runSuite({ ...base, scenarios: [{ ...ping, request: { path: '/missing' } }], targets: [tiny('t')] });
    expect(r.verify[0]!.reason).toMatch(/status: expected 200, got 404/);
  });
  it('a target that fails verify leaves the others measured', async () => {
    const r = await runSuite({ ...base, targets: [tiny('good'), tiny('mute', { NEVER_READY: '1' }, { readyTimeoutMs: 500 })] });
    expect(r.verify.map((v) => [v.target, v.ok])).toEqual([
      ['good', true],
      ['mute', false],
    ]);
    expect(new Set(r.windows.map((w) => w.target))).toEqual(new Set(['good']));
    expect(r.windows.every((w) => w.status === 'ok')).toBe(true);
  });
});
