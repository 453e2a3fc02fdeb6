import type { SuiteEvent } from '@benchsuite/sdk';

/** Steal above this share of the cores' time is worth a sentence. */
export const STEAL_NOTE = 0.05;

const fmtDur = (s: number) => {
  s = Math.max(0, Math.round(s));
  const m = Math.floor(s / 60);
  return m ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
};

/**
 * Renders suite events on stderr: a live one-line bar (current pair, trial, ETA) on a TTY,
 * plain lines when piped. Never touches stdout, which `--json` keeps for the result.
 */
export function createProgress(stream: NodeJS.WriteStream = process.stderr): { onEvent: (e: SuiteEvent) => void; done: () => void } {
  const tty = Boolean(stream.isTTY) && !process.env.CI;
  let live = '';
  let current: Extract<SuiteEvent, { type: 'trial-start' }> | undefined;
  let phase = '';
  let started = 0;
  let ticker: NodeJS.Timeout | undefined;
  const clear = () => {
    if (tty && live) stream.write('\r\u001b[2K');
    live = '';
  };
  const line = (text: string) => {
    clear();
    stream.write(text + '\n');
    draw();
  };
  const draw = () => {
    if (!tty || !current) return;
    const width = Math.max(40, (stream.columns ?? 100) - 1);
    const frac = current.total ? current.index / current.total : 0;
    const barLen = 20;
    const filled = Math.round(frac * barLen);
    const elapsed = (performance.now() - started) / 1000;
    const eta = current.etaSec === null ? '' : ` ETA ${fmtDur(current.etaSec - elapsed)}`;
    const text = `[${'█'.repeat(filled)}${'░'.repeat(barLen - filled)}] ${current.index + 1}/${current.total} ${current.scenario} × ${current.target} #${current.trial} ${phase}${eta}`;
    live = text.slice(0, width);
    stream.write('\r\u001b[2K' + live);
  };
  const onEvent = (e: SuiteEvent) => {
    switch (e.type) {
      case 'log':
        line(`${e.level === 'warn' ? 'warning: ' : ''}${e.message}`);
        break;
      case 'setup':
        line(`setup ${e.target}: ${e.message}`);
        break;
      case 'target-skipped':
        line(`skipped ${e.target}: ${e.reason}`);
        break;
      case 'verify':
        if (e.outcome.ok) {
          if (!tty) line(`verify ${e.outcome.scenario} × ${e.outcome.target}: ok`);
        } else line(`verify ${e.outcome.scenario} × ${e.outcome.target}: FAILED, not benchmarked\n${(e.outcome.diff ?? e.outcome.reason ?? '').replace(/^/gm, '    ')}`);
        break;
      case 'costs':
        if (!tty) line(`costs ${e.target}: ${e.message}`);
        else {
          live = `costs ${e.target}: ${e.message}`;
          stream.write('\r\u001b[2K' + live);
        }
        break;
      case 'trial-start':
        current = e;
        phase = 'starting';
        started = performance.now();
        ticker ??= setInterval(draw, 500);
        ticker.unref();
        if (!tty) line(`trial ${e.index + 1}/${e.total}: ${e.scenario} × ${e.target} #${e.trial}${e.etaSec !== null ? ` (ETA ${fmtDur(e.etaSec)})` : ''}`);
        draw();
        break;
      case 'trial-phase':
        phase = e.phase === 'measure' ? `${e.connections} conn` : e.phase;
        draw();
        break;
      case 'trial-end': {
        const t = e.trial;
        if (t.status === 'failed') line(`  FAILED ${t.scenario} × ${t.target} #${t.trial} (${t.failure.phase}): ${t.failure.message}${t.failure.stderrTail ? `\n${t.failure.stderrTail.split('\n').slice(-5).join('\n').replace(/^/gm, '    | ')}` : ''}`);
        else if (t.clientBound) line(`  note: ${t.scenario} × ${t.target} #${t.trial} is client-bound (loader core ${(t.resources.loaderCoreBusy * 100).toFixed(0)}% busy): its ${Math.round(t.rps)} req/s is the load generator's ceiling, not the server's`);
        else if (!tty) line(`  ${Math.round(t.rps)} req/s, p99 ${(t.latency.p99 / 1000).toFixed(3)} ms`);
        if (t.status === 'ok' && (t.resources.cpuSteal ?? 0) > STEAL_NOTE) line(`  note: the hypervisor took ${((t.resources.cpuSteal ?? 0) * 100).toFixed(0)}% of the measured cores' time during ${t.scenario} × ${t.target} #${t.trial} (CPU steal): that figure is disturbed by the host`);
        break;
      }
    }
  };
  return {
    onEvent,
    done: () => {
      clearInterval(ticker);
      clear();
    },
  };
}
