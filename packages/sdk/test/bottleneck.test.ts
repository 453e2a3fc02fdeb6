// Bottleneck flags per window (issue 11): backend-bound when a helper service saturates its core,
// server-not-saturated when the server waits rather than computes. Starts real processes and
// loads them briefly: run under the shared lock.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULTS, runSuite, type OkWindow, type TargetInput } from '../src/index.js';
import { tiny, tinyDesign, tinyServer } from './_helpers.js';

const proxy = fileURLToPath(new URL('./fixtures/proxy-server.mjs', import.meta.url));
const ping = { name: 'ping', request: { path: '/ping' }, expect: { status: 200, json: { ok: true } }, load: { connections: 20 } };
const design = { ...tinyDesign, windowSec: 0.6 };
const ok = (ws: readonly unknown[]) => ws.filter((w): w is OkWindow => (w as OkWindow).status === 'ok');
/**
 * Windows whose CPU steal is at most the tool's own threshold (those a default run keeps). The
 * shares are taken net of each side's steal (`availableSec`), but a burst's steal is read as the
 * cores' mean over the window, not per moment, and on the shared VM a burst of 38% has flipped
 * these flags before they were: the checks read the windows a run estimates from, and still catch
 * a wrong flag there.
 */
const calm = (ws: readonly OkWindow[]) => ws.filter((w) => (w.resources.cpuSteal ?? 0) <= DEFAULTS.stealThreshold);

/** A proxy target in front of a tiny backend service that burns `busy` loop iterations per request. */
function proxied(name: string, busy: number): TargetInput {
  return {
    kind: 'process',
    name,
    command: [process.execPath, proxy],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the SDK's service placeholder, substituted when the target starts
    env: { BACKEND_URL: '${services.backend.url}' },
    services: { backend: { command: [process.execPath, tinyServer], env: { BUSY_ITERS: String(busy) } } },
  } as TargetInput;
}

describe('backend-bound', () => {
  it('is raised when the backend computes per request, and not with a backend that does not', async () => {
    // ~2 ms of CPU per request in the backend: it saturates its core long before the proxy does.
    const r = await runSuite({
      scenarios: [ping],
      targets: [proxied('slow-backend', 4_000_000), proxied('fast-backend', 0)],
      design: { ...design, rounds: { min: 4, max: 4 } },
      driver: 'wrk',
      verify: false,
      seed: 5,
    });
    const slow = ok(r.windows.filter((w) => w.target === 'slow-backend'));
    const fast = ok(r.windows.filter((w) => w.target === 'fast-backend'));
    expect(slow.length).toBe(4);
    expect(fast.length).toBe(4);
    for (const w of slow) {
      // The backend shares the loader's core and is its main user; the loader is never the limit.
      expect(w.resources.serviceCpuSeconds).toBeGreaterThan(w.resources.loaderCpuSeconds);
      expect(w.clientBound).toBe(false);
    }
    // Saturated in all windows but at most one: on this shared VM a window now and then finds the
    // loader's core under 90% busy (CI saw one of two), and the flag then rightly stays down.
    const flagged = slow.filter((w) => w.backendBound).length;
    expect(flagged).toBeGreaterThanOrEqual(slow.length - 1);
    // A cheap backend fills the loader's core beside wrk (0.54–0.72 here) while the proxy uses its
    // whole core; CI once read a window over 0.9, so the flag also asks that the server had room.
    // On failure, the window's resources say which side was full.
    for (const w of calm(fast)) expect(w.backendBound, JSON.stringify(w.resources)).toBe(false);
    expect(r.summaries.find((s) => s.target === 'slow-backend')!.windows.backendBound).toBe(flagged);
  });
});

describe('server not saturated', () => {
  it('is raised on a server that sleeps per request, and not on one that computes', async () => {
    const r = await runSuite({
      scenarios: [ping],
      targets: [tiny('sleeper', { DELAY_MS: '20' }), tiny('burner', { BUSY_ITERS: '200000' })],
      design,
      driver: 'wrk',
      verify: false,
      seed: 6,
    });
    const sleeper = ok(r.windows.filter((w) => w.target === 'sleeper'));
    const burner = ok(r.windows.filter((w) => w.target === 'burner'));
    expect(sleeper.length).toBeGreaterThan(0);
    for (const w of sleeper) {
      expect(w.resources.serverCoreShare).toBeLessThan(0.5);
      expect(w.serverNotSaturated).toBe(true);
    }
    for (const w of calm(burner)) {
      expect(w.resources.serverCoreShare).toBeGreaterThan(0.7);
      expect(w.serverNotSaturated).toBe(false);
    }
  });
});
