/**
 * Preloaded into a Node server by the `node` profiler (`node --import <this file> server.js`).
 * Inert unless `BENCHSUITE_PROFILE_DIR` is set. Then, in that folder, keyed by this pid:
 * - on load it writes `<pid>.ready` (holding its start time, as pids are reused), so the runner knows SIGUSR2 is handled here (without this
 *   hook SIGUSR2's default action would end the server);
 * - the first SIGUSR2 starts V8's sampling profiler through an in-process inspector session (no
 *   port is opened) at the interval in `<pid>.request` and writes `<pid>.started`;
 * - the next SIGUSR2 stops it and writes `<pid>.cpuprofile` (whole, by rename).
 * A failure is written to `<pid>.error` instead. Nothing else in the server changes: SIGTERM and
 * every other signal keep their handlers, and a signal listener does not keep the process alive.
 */
import { Session } from 'node:inspector';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processStartTime } from './_proc-start.js';

const dir = process.env.BENCHSUITE_PROFILE_DIR;
if (dir) {
  // Children (cluster workers inherit --import through execArgv) must not answer for this pid.
  delete process.env.BENCHSUITE_PROFILE_DIR;
  const file = (ext: string) => join(dir, `${process.pid}.${ext}`);
  const fail = (err: unknown) => writeFileSync(file('error'), String((err as Error)?.stack ?? err));
  const post = <T>(session: Session, method: string, params?: object) => new Promise<T>((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res as T))));

  let session: Session | undefined;
  let busy = false;

  const start = async () => {
    let intervalUs = 1000; // V8's default, when no request file says otherwise
    try {
      intervalUs = Number((JSON.parse(readFileSync(file('request'), 'utf8')) as { intervalUs?: number }).intervalUs) || intervalUs;
    } catch {
      // no request file: the default interval
    }
    const s = new Session();
    s.connect();
    await post(s, 'Profiler.enable');
    await post(s, 'Profiler.setSamplingInterval', { interval: intervalUs });
    await post(s, 'Profiler.start');
    session = s;
    writeFileSync(file('started'), String(intervalUs));
  };

  const stop = async () => {
    const s = session!;
    session = undefined;
    const { profile } = await post<{ profile: unknown }>(s, 'Profiler.stop');
    s.disconnect();
    writeFileSync(file('cpuprofile.tmp'), JSON.stringify(profile));
    renameSync(file('cpuprofile.tmp'), file('cpuprofile'));
    rmSync(file('started'), { force: true });
  };

  process.on('SIGUSR2', () => {
    if (busy) return;
    busy = true;
    (session ? stop() : start()).catch(fail).finally(() => (busy = false));
  });
  writeFileSync(file('ready'), processStartTime(process.pid));
}
