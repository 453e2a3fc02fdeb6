import { DEFAULTS, type SuiteEvent } from '@benchsuite/sdk';
import { budgetTexts, fmtHalfWidth, fmtPct, forecastText, noteText, streamEventText } from '@benchsuite/report';
import { formatSeconds } from './_values.js';

export interface ProgressOptions {
  write: (text: string) => void;
  /** A terminal gets one live line redrawn in place; a pipe or file gets plain lines. */
  tty: boolean;
  /** Terminal width for the live line. */
  columns?: number;
  /** Seconds on a monotonic clock; injected by tests. */
  now?: () => number;
  /** The driver the header already named: its `driver` event then prints nothing. */
  announcedDriver?: string | undefined;
}

/** Elapsed time in whole seconds: `7s`, `3m05s`. */
const clockText = (sec: number) => {
  const s = Math.max(0, Math.floor(sec));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
};
const rate = (rps: number) => (rps >= 1000 ? `${(rps / 1000).toFixed(1)}k` : rps.toFixed(0));
const CLEAR = '\r\u001b[2K';

const DECISION: Record<Extract<SuiteEvent, { type: 'precision' }>['decision'], string> = {
  continue: 'continue',
  precision: 'stop: precision reached',
  budget: 'stop: budget spent',
  'max-blocks': 'stop: maximum blocks reached',
};

/** The terminal's two kinds of output: lasting lines, and the one live line (status and the clock) redrawn in place. */
interface Screen {
  /** A lasting line, above the live line. */
  line(text: string): void;
  /** The live line's text on a terminal; piped, `plain` (when given) as a lasting line. */
  setStatus(text: string, plain?: string): void;
  /** The run's clock from an event: elapsed of the budget, ticking on a terminal. */
  tick(elapsedSec: number, budgetSec: number): void;
  elapsedText(): string;
  readonly tty: boolean;
  /** No live line from now on (the lasting lines still print). */
  clearStatus(): void;
  /** Clear the live line and stop the ticking. */
  close(): void;
}

function createScreen(opts: ProgressOptions): Screen {
  const now = opts.now ?? (() => performance.now() / 1000);
  const tty = opts.tty;
  let live = '';
  let clock: { elapsedSec: number; budgetSec: number; at: number } | undefined;
  let status = '';
  let ticker: NodeJS.Timeout | undefined;

  const elapsedText = () => {
    if (!clock) return '';
    const elapsed = clock.elapsedSec + (tty ? now() - clock.at : 0);
    return `${clockText(elapsed)} of ${formatSeconds(clock.budgetSec)}`;
  };
  const draw = () => {
    if (!tty || !status) return;
    const width = Math.max(40, (opts.columns ?? 100) - 1);
    const text = `${status}${clock ? ` · ${elapsedText()}` : ''}`;
    live = text.slice(0, width);
    opts.write(CLEAR + live);
  };
  const line = (text: string) => {
    if (tty && live) opts.write(CLEAR);
    live = '';
    opts.write(`${text}\n`);
    draw();
  };
  return {
    tty,
    line,
    elapsedText,
    setStatus(text, plain) {
      status = text;
      if (tty) draw();
      else if (plain !== undefined) line(plain);
    },
    tick(elapsedSec, budgetSec) {
      clock = { elapsedSec, budgetSec, at: now() };
      if (tty && !ticker) {
        ticker = setInterval(draw, 1000);
        ticker.unref();
      }
    },
    clearStatus() {
      status = '';
    },
    close() {
      clearInterval(ticker);
      if (tty && live) opts.write(CLEAR);
      live = '';
    },
  };
}

/**
 * Verify: one lasting line per target once the checks are over (a failed check is printed in full
 * at once); the live line shows each check as it runs.
 */
function verifyTally(screen: Screen) {
  const verified = new Map<string, { ok: number; failed: number }>();
  return {
    get pending() {
      return verified.size > 0;
    },
    add(e: Extract<SuiteEvent, { type: 'verify' }>) {
      const v = verified.get(e.outcome.target) ?? { ok: 0, failed: 0 };
      verified.set(e.outcome.target, v);
      if (e.outcome.ok) {
        v.ok++;
        screen.setStatus(`verify ${e.outcome.scenario} × ${e.outcome.target}: ok`);
      } else {
        v.failed++;
        screen.line(`verify ${e.outcome.scenario} × ${e.outcome.target}: FAILED, not benchmarked\n${(e.outcome.diff ?? e.outcome.reason ?? '').replace(/^/gm, '    ')}`);
      }
    },
    flush() {
      const width = Math.max(0, ...[...verified.keys()].map((t) => t.length));
      for (const [target, v] of verified) screen.line(`verify  ${target.padEnd(width)}  ${v.ok}/${v.ok + v.failed} ok${v.failed ? `, ${v.failed} FAILED (above), not benchmarked there` : ''}`);
      verified.clear();
    },
  };
}

type EventOf<T extends SuiteEvent['type']> = Extract<SuiteEvent, { type: T }>;

/** Warnings and notes about the run as a whole: each a lasting line (or none). */
function noticeEvent(
  screen: Screen,
  e: EventOf<'not-pinned' | 'budget' | 'replan' | 'forecast' | 'step-failed' | 'window-fit' | 'resume' | 'driver' | 'target-skipped'>,
  announcedDriver: string | undefined,
): void {
  switch (e.type) {
    case 'not-pinned':
      screen.line(`warning: ${noteText({ kind: 'not-pinned', reason: e.reason })}`);
      break;
    case 'budget':
      for (const text of budgetTexts(e.plan, e.budgetSec)) screen.line(`warning: budget: ${text}`);
      break;
    case 'replan':
      screen.line(`warning: budget: ${noteText({ kind: 'budget-replanned', change: e.change })}`);
      break;
    case 'forecast':
      // The header said the prior forecast; the measured ones, after the first blocks, get a line.
      // With processes per scenario each scenario's first blocks say one, from more of the run's noise each time; the report keeps the first after block 2.
      if (e.afterBlock !== undefined) {
        const begun = e.scenarios ? ` (${e.scenarios.begun} of ${e.scenarios.of} scenarios begun${e.afterBlock === 2 && e.scenarios.begun === 1 ? ': the one the report keeps' : ''})` : '';
        screen.line(`expects after block ${e.afterBlock}${begun}: ${forecastText(e.forecast)}`);
      }
      break;
    case 'step-failed': {
      const { type: _, ...data } = e;
      screen.line(`warning: ${noteText({ kind: 'step-failed', ...data })}`);
      break;
    }
    case 'window-fit': {
      const { type: _, ...data } = e;
      screen.line(noteText({ kind: 'windows-lengthened', ...data }));
      break;
    }
    case 'resume': {
      const { type: _, ...data } = e;
      screen.line(noteText({ kind: 'resume', ...data }));
      break;
    }
    case 'driver':
      if (e.name !== announcedDriver) screen.line(noteText({ kind: 'driver-choice', driver: e.name, reason: e.reason }));
      break;
    case 'target-skipped':
      screen.line(`skipped ${e.target}: ${e.reason}`);
      break;
    default:
      unrendered(e);
  }
}

/** The steps around the blocks (setup, costs, a backend's ceiling, the loader's floor, capacity probes, instructions, profiles, streams). */
function stepEvent(screen: Screen, e: EventOf<'setup' | 'costs' | 'ceiling' | 'loader-floor' | 'capacity' | 'instructions' | 'profile' | 'stream'>): void {
  switch (e.type) {
    case 'setup':
      screen.setStatus(`setup ${e.target}: ${e.message}`, `setup ${e.target}: ${e.message}`);
      break;
    case 'costs':
      screen.setStatus(`costs ${e.target}: ${e.message}`, `costs ${e.target}: ${e.message}`);
      break;
    case 'ceiling':
      screen.setStatus(`${e.scenario}: backend ceiling`, `${e.scenario}: measuring the backend's own ceiling (service ${e.service} loaded directly)`);
      break;
    case 'loader-floor':
      screen.setStatus(`${e.scenario}: loader floor`, `${e.scenario}: block ${e.block}: ${noteText({ kind: 'loader-floor-measuring', connections: e.connections })}`);
      break;
    case 'capacity': {
      const p = e.probe;
      if (!p) {
        screen.setStatus(`${e.scenario} × ${e.target}: capacity under ${e.slo}`, `${e.scenario} × ${e.target}: capacity under ${e.slo}`);
        break;
      }
      screen.line(
        `  ${e.scenario} × ${e.target} block ${e.block}: ${Math.round(p.rate)} req/s offered${p.confirmation ? ' again' : ''} → ${Math.round(p.achievedRps)} req/s, p99 ${(p.p99 / 1000).toFixed(1)} ms, ${p.meets ? 'meets' : `fails ${p.failed}${p.loaderBound ? ' (loader-bound: the loader, not the server, fell behind)' : ''}`}`,
      );
      break;
    }
    case 'instructions':
      if (e.status === 'start') screen.setStatus(`instructions ${e.scenario} × ${e.target}`, `instructions ${e.scenario} × ${e.target} (callgrind)`);
      else if (e.status === 'process')
        screen.line(
          `instructions ${e.scenario} × ${e.target}: process ${e.process}, ${e.connections} connection${e.connections === 1 ? '' : 's'}: ${Math.round(e.perRequest ?? 0).toLocaleString('en-US')} per request`,
        );
      else if (e.status !== 'ok') screen.line(`instructions ${e.scenario} × ${e.target}: ${e.status}${e.message ? ` (${e.message})` : ''}`);
      break;
    case 'profile':
      if (e.status === 'start') screen.setStatus(`profile ${e.scenario} × ${e.target}`, `profile ${e.scenario} × ${e.target}`);
      else if (e.status !== 'ok' || !screen.tty) screen.line(`profile ${e.scenario} × ${e.target}: ${e.status}${e.message ? ` (${e.message})` : ''}`);
      break;
    case 'stream':
      if (e.phase === 'start') screen.setStatus(streamEventText(e), streamEventText(e));
      else screen.line(streamEventText(e));
      break;
    default:
      unrendered(e);
  }
}

/** A window: its figure on the live line (piped, a line), a failed one in full with its server's last output. */
function windowEvent(screen: Screen, e: EventOf<'window'>): void {
  screen.tick(e.elapsedSec, e.budgetSec);
  const w = e.window;
  const where = `${w.scenario} · block ${w.block} · round ${w.round}`;
  if (w.status === 'failed') {
    const tail = w.failure.stderrTail ? `\n${w.failure.stderrTail.split('\n').slice(-5).join('\n').replace(/^/gm, '    | ')}` : '';
    screen.line(`  FAILED ${w.scenario} × ${w.target}, block ${w.block} round ${w.round} (${w.failure.phase}): ${w.failure.message}${tail}`);
    return;
  }
  const steal = w.resources.cpuSteal ?? 0;
  const marks = [w.excluded === 'steal' ? `steal ${fmtPct(steal)}: left out` : steal > DEFAULTS.disturbedSteal ? `steal ${fmtPct(steal)}` : '', w.clientBound ? 'client-bound' : ''].filter(Boolean);
  const mark = marks.length ? ` [${marks.join(', ')}]` : '';
  screen.setStatus(`${where} · ${w.target} ${rate(w.rps)} req/s${mark}`, `  block ${w.block} round ${w.round} ${w.target}: ${rate(w.rps)} req/s${mark} (${screen.elapsedText()})`);
}

/** A block's end: its rounds, the targets not warm or failed, whether it completed. */
function blockEndEvent(screen: Screen, e: EventOf<'block-end'>): void {
  const b = e.block;
  // A carried process (shared processes) is warmed by a fixed number of rotation rounds, not until steady.
  const unsteady = b.targets.filter((t) => t.status === 'ok' && !t.steady && !t.carried).map((t) => t.target);
  const failed = b.targets.filter((t) => t.status === 'failed').map((t) => `${t.target} (${t.failure?.message ?? 'failed'})`);
  const parts = [
    `${b.rounds} round${b.rounds === 1 ? '' : 's'}${b.extraRounds ? ` (${b.extraRounds} extra for CPU steal)` : ''}`,
    unsteady.length ? `warm-up ended at its maximum before it was warm: ${unsteady.join(', ')}` : '',
    failed.length ? `failed: ${failed.join(', ')}` : '',
    b.complete ? '' : 'incomplete',
  ].filter(Boolean);
  screen.line(`${b.scenario}: block ${b.block} done in ${formatSeconds(b.wallSec)}, ${parts.join('; ')}`);
}

/** The blocks as they go: start, warm-up, windows, end, and each scenario's decision after a block. */
function blockEvent(screen: Screen, e: EventOf<'block-start' | 'warmup' | 'window' | 'block-end' | 'precision'>): void {
  switch (e.type) {
    case 'block-start':
      screen.tick(e.elapsedSec, e.budgetSec);
      screen.setStatus(`${e.scenario} · block ${e.block} · starting ${e.targets.join(', ')}`, `${e.scenario}: block ${e.block} (${e.targets.join(', ')}) at ${screen.elapsedText()}`);
      break;
    case 'warmup': {
      const what = `${e.scenario} · block ${e.block} · warm-up ${e.target} ${+e.sec.toFixed(2)}s ${rate(e.rps)} req/s${e.steady ? ' steady' : ''}`;
      screen.setStatus(what, e.steady ? `  warm-up ${e.target}: warm after ${+e.sec.toFixed(2)}s (${rate(e.served)} requests) at ${rate(e.rps)} req/s` : undefined);
      break;
    }
    case 'window':
      windowEvent(screen, e);
      break;
    case 'block-end':
      blockEndEvent(screen, e);
      break;
    case 'precision': {
      const worst = e.worstHalfWidth === null ? 'no interval yet' : `worst ${fmtHalfWidth(e.worstHalfWidth)}`;
      screen.line(
        `${e.scenario}: ${worst} (target ${fmtHalfWidth(e.target)}) after ${e.blocks} block${e.blocks === 1 ? '' : 's'}, ${e.rounds} round${e.rounds === 1 ? '' : 's'} → ${DECISION[e.decision]}`,
      );
      break;
    }
    default:
      unrendered(e);
  }
}

/** A kind of event its group does not render fails the build here. */
function unrendered(_: never): void {}

/**
 * Renders suite events on stderr: on a terminal a live line (scenario, block, round, target,
 * req/s, elapsed of the budget) with lasting lines for decisions and problems; piped, one plain
 * line per event worth keeping. Never touches stdout, which `--json` keeps for the result.
 */
export function createProgress(opts: ProgressOptions): { onEvent: (e: SuiteEvent) => void; note: (text: string) => void; done: () => void } {
  const screen = createScreen(opts);
  const verify = verifyTally(screen);
  const onEvent = (e: SuiteEvent) => {
    if (e.type !== 'verify' && verify.pending) verify.flush();
    switch (e.type) {
      case 'verify':
        verify.add(e);
        break;
      case 'not-pinned':
      case 'budget':
      case 'replan':
      case 'forecast':
      case 'step-failed':
      case 'window-fit':
      case 'resume':
      case 'driver':
      case 'target-skipped':
        noticeEvent(screen, e, opts.announcedDriver);
        break;
      case 'setup':
      case 'costs':
      case 'ceiling':
      case 'loader-floor':
      case 'capacity':
      case 'instructions':
      case 'profile':
      case 'stream':
        stepEvent(screen, e);
        break;
      case 'block-start':
      case 'warmup':
      case 'window':
      case 'block-end':
      case 'precision':
        blockEvent(screen, e);
        break;
      default:
        // A new kind of event fails the build here until it is rendered.
        unrendered(e);
    }
  };
  return {
    onEvent,
    /** A lasting line from the CLI itself (a signal received), kept apart from the live line. */
    note: screen.line,
    done: () => {
      // The live line's status is cleared first, so the verify lines flushed now do not redraw it.
      screen.clearStatus();
      if (verify.pending) verify.flush();
      screen.close();
    },
  };
}
