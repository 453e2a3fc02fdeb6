import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { median } from '../analysis/bootstrap.js';
import { DEFAULTS } from '../defaults.js';
import { callgrindAvailable, callgrindCommand, callgrindControl, newestDumpCost, runtimeOfCommand } from '../instructions/callgrind.js';
import { processTree } from '../procfs.js';
import type { InstructionsRecord } from '../result-schema.js';
import { connectionSteps, prepareRequests, type RequestSpec, type Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import type { RunContext } from './context.js';
import { runtimeOf, type StartedTarget } from './server-process.js';

/** What `--instructions` asks: fresh processes per pair, warm-up and counted requests. */
export interface InstructionsPlan {
  processes: number;
  warmupRequests: number;
  requests: number;
  loadedRequests: number;
}

/**
 * Send `n` requests over `agent`'s keep-alive connections, `connections` at a time (each one after
 * another on its connection), and wait for every answer: when this resolves the server has answered
 * exactly `n`. Rejects on a socket error or an unexpected status; stops sending once `signal` aborts
 * (the server is then stopped, which ends what is in flight). The caller owns the agent, so the
 * connections outlive a count (opened before it, closed after it). `retries`: how often a request
 * whose connection was reset is sent again (never inside a count: a reset request may have been
 * answered).
 */
async function sendRequests(
  agent: Agent,
  baseUrl: string,
  requests: readonly RequestSpec[],
  n: number,
  connections: number,
  expectStatus: readonly number[],
  signal: AbortSignal,
  retries = 0,
): Promise<void> {
  let next = 0;
  const one = (spec: RequestSpec): Promise<void> =>
    new Promise((resolve, reject) => {
      const url = new URL(spec.path, baseUrl);
      const req = httpRequest(url, { method: spec.method, headers: spec.headers, agent }, (res) => {
        res.resume();
        res.on('end', () =>
          expectStatus.includes(res.statusCode ?? 0) ? resolve() : reject(new Error(`${spec.method} ${spec.path} answered ${res.statusCode}, expected ${expectStatus.join(' or ')}`)),
        );
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(spec.body);
    });
  const loop = async (): Promise<void> => {
    while (next < n && !signal.aborted) {
      const i = next++;
      for (let attempt = 0; ; attempt++) {
        try {
          await one(requests[i % requests.length]!);
          break;
        } catch (err) {
          // Only where the caller allows it (opening connections, outside any count): a server with a
          // short listen backlog (http.server's 5) resets connections opened all at once.
          if (attempt >= retries || !/ECONNRESET|EPIPE/.test((err as Error).message)) throw err;
          await sleep(50 * (attempt + 1));
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(connections, n) }, loop));
}

/**
 * User-space instructions per request of one (scenario, target) under callgrind: on each of
 * `plan.processes` fresh processes, a warm-up at one connection with instrumentation off, then the
 * count over `plan.requests` requests at one connection and over `plan.loadedRequests` at the
 * scenario's (highest) connections, each on connections of its own that first serve
 * `DEFAULTS.instructions.resettleRequests` uncounted. Every request is answered before the count is dumped, so the
 * server answered exactly that many inside it. Targets that are not one Node or Python process
 * this runner starts are skipped with the reason.
 */
export async function countInstructions(ctx: RunContext, scenario: Scenario, target: Target, plan: InstructionsPlan): Promise<InstructionsRecord> {
  const base = {
    scenario: scenario.name,
    target: target.name,
    warmupRequests: plan.warmupRequests,
    resettleRequests: DEFAULTS.instructions.resettleRequests,
    excluded: ['collections' as const],
    levels: [],
  };
  const skip = (reason: string): InstructionsRecord => ({ ...base, status: 'skipped', reason });
  const available = callgrindAvailable();
  if (available !== true) return skip(available);
  if (target.kind !== 'process') return skip("a URL target: its process is not this runner's to count");
  const command = ctx.commands.get(target.name) ?? target.command;
  const runtime = runtimeOfCommand(command);
  if (!runtime) return skip(`${command[0]} is neither node nor python: callgrind's count would not be repeatable without the runtime's determinism flags`);
  const expectStatus = Array.isArray(scenario.expect.status) ? scenario.expect.status : [scenario.expect.status];
  const most = Math.max(...connectionSteps(scenario.load));
  const levels =
    most > 1
      ? [
          { connections: 1, requests: plan.requests },
          { connections: most, requests: plan.loadedRequests },
        ]
      : [{ connections: 1, requests: plan.requests }];
  const counts = levels.map(() => [] as number[]);
  let flags: string[] = [];
  for (let p = 1; p <= plan.processes; p++) {
    if (ctx.signal.aborted) break;
    const dir = mkdtempSync(join(tmpdir(), 'benchsuite-callgrind-'));
    let started: StartedTarget | undefined;
    try {
      started = await runtimeOf(target).start({
        pinning: ctx.pinning,
        signal: ctx.signal,
        command,
        readyTimeoutMs: DEFAULTS.instructions.readyTimeoutMs,
        prepare: (c, e) => {
          const wrapped = callgrindCommand(c, e, runtime, dir);
          flags = wrapped.flags;
          return { command: wrapped.command, env: wrapped.env };
        },
      });
      const pid = started.pid!;
      const tree = processTree(pid);
      if (tree.length > 1) return { ...skip(`${tree.length} processes in the server's tree: callgrind counts only the one it started`), runtime, flags };
      const requests = await prepareRequests(scenario, started.baseUrl);
      const warm = new Agent({ keepAlive: true, maxSockets: 1 });
      await sendRequests(warm, started.baseUrl, requests, plan.warmupRequests, 1, expectStatus, ctx.signal).finally(() => warm.destroy());
      for (const [i, level] of levels.entries()) {
        // The level's connections are opened (one request each) and the warm-up's closed before the
        // count, and closed after it: the count holds requests, not connection set-up. Connections
        // that follow closed ones deoptimise a Node server's request path, so they serve
        // `resettleRequests` before the count (DEFAULTS.instructions has the figures).
        const agent = new Agent({ keepAlive: true, maxSockets: level.connections });
        try {
          await sendRequests(agent, started.baseUrl, requests, level.connections, level.connections, expectStatus, ctx.signal, 5);
          await sendRequests(agent, started.baseUrl, requests, DEFAULTS.instructions.resettleRequests, level.connections, expectStatus, ctx.signal);
          await sleep(DEFAULTS.instructions.settleMs, undefined, { signal: ctx.signal });
          await callgrindControl(pid, '-i', 'on');
          await callgrindControl(pid, '-z');
          await sendRequests(agent, started.baseUrl, requests, level.requests, level.connections, expectStatus, ctx.signal);
          await sleep(DEFAULTS.instructions.settleMs, undefined, { signal: ctx.signal });
          await callgrindControl(pid, '-i', 'off');
          await callgrindControl(pid, '-d');
        } finally {
          agent.destroy();
        }
        // V8's collections left out: callgrind counts a scavenge of the young generation at far more
        // instructions than it takes a native process time, and a count catches one or not
        // (DEFAULTS.instructions has why).
        const cost = newestDumpCost(dir, pid);
        const perRequest = (cost.total - cost.collections) / level.requests;
        counts[i]!.push(perRequest);
        ctx.emit({ type: 'instructions', scenario: scenario.name, target: target.name, status: 'process', process: p, connections: level.connections, perRequest });
      }
    } catch (err) {
      if (ctx.signal.aborted) break;
      const tail = started?.tail();
      return { ...base, status: 'failed', reason: `process ${p}: ${(err as Error).message}${tail ? ` (${tail.split('\n').slice(-2).join(' ')})` : ''}`, runtime, flags };
    } finally {
      await started?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (!counts[0]!.length) return { ...base, status: 'failed', reason: 'interrupted before a process was counted', runtime, flags };
  return {
    ...base,
    status: 'ok',
    runtime,
    flags,
    levels: levels.map((l, i) => {
      const xs = counts[i]!;
      const m = median(xs);
      return { connections: l.connections, requests: l.requests, perProcess: xs, perRequest: m, spread: m > 0 ? (Math.max(...xs) - Math.min(...xs)) / m : 0 };
    }),
  };
}
