// The open-loop engines against real servers: oha's open loop shows a stall that closed loop
// hides; offered a rate far above what the engine can send, oha and vegeta count every scheduled
// send (answered, failed or dropped) instead of losing the ones they never made. Needs oha (built
// by scripts/test-prereqs.sh with cargo) and vegeta; each test is skipped with that reason without.
import { afterAll, describe, expect, it } from 'vitest';
import { autocannonDriver } from '../src/drivers/autocannon.js';
import { findOha, ohaDriver } from '../src/drivers/oha.js';
import { findVegeta, vegetaDriver } from '../src/drivers/vegeta.js';
import { allowedCpus } from '../src/environment.js';
import { latencyOf, resolveDriver, startProcess, type RunningProcess } from '../src/index.js';
import { tinyServer } from './_helpers.js';

const servers: RunningProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});
const cpus = allowedCpus();
const serverPin = cpus.length >= 2 ? ['taskset', '-c', String(cpus[0])] : [];
const loaderPin = cpus.length >= 2 ? ['taskset', '-c', cpus.slice(1).join(',')] : [];
async function server(env: Record<string, string>): Promise<string> {
  const s = await startProcess({ command: [process.execPath, tinyServer], env, pin: serverPin, unsetEnv: ['NODE_EXTRA_CA_CERTS'] });
  servers.push(s);
  return s.url;
}
const get = [{ method: 'GET' as const, path: '/', headers: {} }];
const noOha = findOha() ? '' : 'oha not found (benchsuite setup oha, or scripts/test-prereqs.sh, builds it with cargo)';
const noVegeta = findVegeta() ? '' : 'vegeta not found (benchsuite setup vegeta builds it)';
const named = (title: string, missing: string) => (missing ? `${title} (skipped: ${missing})` : title);

describe('open-loop engines', () => {
  it.skipIf(noOha)(named('auto picks the open-loop engine with the highest measured ceiling for open loop and --slo, and says its ceiling; closed loop keeps its own choice', noOha), async () => {
    const open = await resolveDriver('auto', { openLoop: true });
    expect(open.driver.name).toBe('oha');
    expect(open.reason).toMatch(
      /oha has the highest open-loop ceiling of the drivers available, which sends on schedule up to about \d+k req\/s from one loader core here: a server faster than that is measured as loader-bound/,
    );
    expect((await resolveDriver('auto', {})).driver.name).not.toBe('oha');
    // oha sends one request shape: a scenario with several requests passes it over, saying why.
    const several = await resolveDriver('auto', { openLoop: true, severalRequests: true });
    expect(several.driver.name).not.toBe('oha');
    expect(several.reason).toMatch(/oha sends one request per run/);
  });

  it.skipIf(noOha)(named('oha: open loop times requests from their intended send: a 500-ms stall each second shows in p99, where closed loop hides it', noOha), { timeout: 60_000 }, async () => {
    const url = await server({ STALL_MS: '500', STALL_EVERY_MS: '1000' });
    const base = { baseUrl: url, requests: get, warmupSec: 0, durationSec: 3, timeoutSec: 5, expectStatus: [200], pin: loaderPin };
    const open = await ohaDriver.run({ ...base, connections: 10, rate: 100, openLoop: true });
    const corrected = latencyOf(open.openLoop!.corrected);
    const closed = await autocannonDriver.run({ ...base, connections: 2 });
    expect(corrected.p99).toBeGreaterThan(300_000);
    expect(latencyOf(closed.histogram).p99).toBeLessThan(100_000);
    expect(latencyOf(open.histogram).p99).toBeLessThan(corrected.p99);
    expect(open.requests).toBeGreaterThan(250);
    expect(open.openLoop!.dropped).toBeLessThan(5);
  });

  for (const [driver, missing] of [
    [ohaDriver, noOha],
    [vegetaDriver, noVegeta],
  ] as const) {
    it.skipIf(missing)(named(`${driver.name}: offered a rate far above what it can send, every scheduled send is counted: answered, failed or dropped`, missing), { timeout: 60_000 }, async () => {
      const url = await server({});
      const rate = 400_000;
      const r = await driver.run({ baseUrl: url, requests: get, connections: 50, rate, openLoop: true, warmupSec: 0, durationSec: 1, timeoutSec: 5, expectStatus: [200], pin: loaderPin });
      const scheduled = Math.floor(rate * 1);
      expect(r.requests).toBeGreaterThan(100);
      expect(r.requests).toBeLessThan(scheduled / 2);
      expect(r.openLoop!.dropped).toBeGreaterThan(scheduled / 2);
      expect(r.requests + r.errors + r.timeouts + r.openLoop!.dropped).toBe(scheduled);
    });
  }
});
