import { it } from 'vitest';
import { runSuite } from '../src/index.js';
import { tiny } from './_helpers.js';
for (const [driver, windowSec, warm] of [['autocannon', 0.3, 0.4], ['wrk', 0.3, 0.4], ['autocannon', 1, 1]] as const) {
it(`explore ${driver} ${windowSec}`, async () => {
  const r = await runSuite({
    scenarios: [{ name: 'ping', request: { path: '/ping' }, expect: { status: 200, json: { ok: true } }, load: { connections: 10 } }],
    targets: [tiny('light', { BUSY_ITERS: '200000' }), tiny('heavy', { BUSY_ITERS: '400000' })],
    design: { reference: 'light', windowSec, rounds: { min: 2, max: 2 }, blocks: { min: 2, max: 2 }, warmup: { minSec: warm, maxSec: warm } },
    driver, seed: 5, verify: false,
  });
  const f = (e: any) => e && `${e.point.toFixed(3)} [${e.ci95?.map((x: number) => x.toFixed(3)).join(', ')}]`;
  console.log(driver, windowSec, r.summaries.map((s) => `${s.target} rel=${f(s.relativeRps)} cpu=${f(s.relativeCpu)} cpuUs=${f(s.cpuPerRequestUs)} rps=${f(s.rps)} cb=${s.windows.clientBound}`).join('\n'), '\n', r.windows.map((w) => w.status === 'ok' ? `${w.target}/${w.block}/${w.round} ${w.rps.toFixed(0)} ${w.cpuPerRequestUs?.toFixed(0)} share=${w.resources.serverCoreShare.toFixed(2)} ldr=${w.resources.loaderThreadBusy.toFixed(2)} steal=${w.resources.cpuSteal}` : 'failed').join('\n'));
}, 120000);
}
