import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../src/index.js';
import { loadFixture } from './helpers.js';

/** The Markdown split at `## ` headings, keyed by heading text. */
function sections(md: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of md.split(/\n(?=## )/)) out[part.split('\n')[0]!.replace(/^#+ /, '')] = part.trimEnd();
  return out;
}

describe('renderMarkdown', () => {
  const md = renderMarkdown(loadFixture());
  const s = sections(md);

  it('opens with the run header: dates, trials, durations, driver, pinning, verdict and overhead', () => {
    expect(s['benchsuite — frameworks']).toMatchInlineSnapshot(`
      "# benchsuite — frameworks

      **Verdict: unreliable** — some pairs varied more than 10% between trials (CoV of RPS or p99): their figures should not be trusted. 1 of 8 pairs noisy, 1 unreliable (see [Noise](#noise)).

      | Run |  |
      |---|---|
      | Date | 2025-03-14 09:00:00 UTC → 2025-03-14 09:07:34 UTC (7 min 35 s) |
      | Suite | frameworks (seed 1337) |
      | Trials | 3 per (scenario, target) pair, interleaved in seeded order |
      | Durations | plaintext: warmup 3 s + 10 s measured at 64 connections<br>json-validate: warmup 3 s + 10 s measured at 64 connections<br>plaintext-steps: warmup 2 s + 5 s measured per step at 16 → 64 → 256 connections |
      | Driver | autocannon 8.0.0 with --connections 64 --pipelining 1 --workers 2 --timeout 10<br>measured ceiling ≈ 190k req/s against a static stub on the loader cores |
      | Pinning | taskset: server CPUs 2-5, loader CPUs 6-7 |
      | Pair verdicts | 2 excellent, 4 acceptable, 1 noisy, 1 unreliable |
      | Overhead | 1.68× (wall time ÷ time under load) |
      | Host noise | not recorded |
      | Runner peak RSS | — |
      | Reference | node-http (= 100%) |"
    `);
  });

  it('ranks each scenario with ties sharing a place and RPS as % of the reference', () => {
    expect(s['Rankings']).toMatchInlineSnapshot(`
      "## Rankings

      Places by mean RPS; targets not significantly different share a place (ties). "% of node-http" compares mean RPS.

      ### plaintext

      | Place | Target | Mean RPS | % of node-http |
      |---|---|---:|---:|
      | 1 (tie) | node-http | 61,384 | 100.0% |
      | 1 (tie) | fastify | 61,336 | 99.9% |
      | 2 | express | 18,534 | 30.2% |

      <sub>Method: Welch's t-test, Holm-corrected over all pairs, alpha 0.05; dense places</sub>

      Not ranked: hummingbird (skipped: swift not found on PATH).

      ### json-validate

      | Place | Target | Mean RPS | % of node-http |
      |---|---|---:|---:|
      | 1 | fastify | 41,768 | 133.7% |
      | 2 | node-http | 31,230 | 100.0% |

      <sub>Method: Welch's t-test, Holm-corrected over all pairs, alpha 0.05; dense places</sub>

      Not ranked: express (failed verify: invalid body {"age":"x"} answered 500, expected 400); hummingbird (skipped: swift not found on PATH).

      ### plaintext-steps

      | Place | Target | Mean RPS | % of node-http |
      |---|---|---:|---:|
      | 1 (tie) | node-http | 53,537 | 100.0% |
      | 1 (tie) | fastify | 52,560 | 98.2% |
      | 2 | express | 16,728 | 31.2% |

      <sub>Method: Welch's t-test, Holm-corrected over all pairs, alpha 0.05; dense places</sub>

      Not ranked: hummingbird (skipped: swift not found on PATH)."
    `);
  });

  it('shows a table per scenario, the client-bound trial explained, and skipped targets with their reason', () => {
    expect(s['Scenario: plaintext']).toMatchInlineSnapshot(`
      "## Scenario: plaintext

      GET /plaintext → 13-byte text/plain

      Requests: GET /plaintext. Expected status: 200. Load: warmup 3 s + 10 s measured at 64 connections.

      | Target | RPS (mean ± 95% CI) | SD | CoV | p50 | p90 | p99 | p99.9 | Errors | Non-2xx | Server CPU | RPS / CPU-s | Peak RSS | Verdict |
      |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
      | node-http ⚠ client-bound (1/3) | 61,384 ± 4,117 | 1,657 | 2.7% | 0.983 ms | 1.564 ms | 2.721 ms | 7.839 ms | 0 | 0 | 9.5 s | 64,607 | 63.1 MiB | acceptable |
      | fastify | 61,336 ± 1,102 | 444 | 0.7% | 1.003 ms | 1.581 ms | 2.613 ms | 7.699 ms | 0 | 0 | 9.5 s | 64,623 | 77.4 MiB | acceptable |
      | express | 18,534 ± 786 | 316 | 1.7% | 3.451 ms | 5.447 ms | 9.151 ms | 24.575 ms | 0 | 0 | 9.8 s | 18,912 | 95.4 MiB | acceptable |

      <sub>Latency percentiles from the histogram merged over trials. Errors include timeouts. Server CPU: CPU seconds of the server process tree per trial.</sub>

      ⚠ **Client-bound:** The load generator's core was saturated during the trial, so the RPS shown is the load generator's ceiling, not the server's; the server may be faster than measured. Affected: node-http (1 of 3 trials).

      **Not measured in this scenario:**

      - **hummingbird** — skipped: swift not found on PATH"
    `);
  });

  it('shows a failed verify with its reason and diff instead of dropping the target', () => {
    expect(s['Scenario: json-validate']).toMatchInlineSnapshot(`
      "## Scenario: json-validate

      POST /users with a JSON body validated against a schema

      Requests: POST /users. Expected status: 201. Load: warmup 3 s + 10 s measured at 64 connections.

      | Target | RPS (mean ± 95% CI) | SD | CoV | p50 | p90 | p99 | p99.9 | Errors | Non-2xx | Server CPU | RPS / CPU-s | Peak RSS | Verdict |
      |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
      | fastify | 41,768 ± 4,894 | 1,970 | 4.7% | 1.386 ms | 2.213 ms | 3.689 ms | 10.823 ms | 3 | 0 | 9.7 s | 43,125 | 75.7 MiB | noisy |
      | node-http | 31,230 ± 388 | 156 | 0.5% | 1.909 ms | 3.025 ms | 5.455 ms | 16.135 ms | 0 | 0 | 9.4 s | 33,089 | 62.7 MiB | unreliable |

      <sub>Latency percentiles from the histogram merged over trials. Errors include timeouts. Server CPU: CPU seconds of the server process tree per trial.</sub>

      **Not measured in this scenario:**

      - **express** — failed verify: invalid body {"age":"x"} answered 500, expected 400

      <details><summary>verify diff</summary>

      <pre>- status: 400
      + status: 500
      - body: {&quot;error&quot;:&quot;invalid_body&quot;,&quot;field&quot;:&quot;age&quot;}
      + body: &lt;!DOCTYPE html&gt;&lt;title&gt;Error&lt;/title&gt;</pre>

      </details>

      - **hummingbird** — skipped: swift not found on PATH"
    `);
  });

  it('shows a row per step for a stepped load and the crashed trial with its last output', () => {
    expect(s['Scenario: plaintext-steps']).toMatchInlineSnapshot(`
      "## Scenario: plaintext-steps

      GET /plaintext at 16, 64 and 256 connections

      Requests: GET /plaintext. Expected status: 200. Load: warmup 2 s + 5 s measured per step at 16 → 64 → 256 connections.

      | Target | RPS (mean ± 95% CI) | SD | CoV | p50 | p90 | p99 | p99.9 | Errors | Non-2xx | Server CPU | RPS / CPU-s | Peak RSS | Verdict |
      |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
      | node-http | 53,537 ± 280 | 113 | 0.2% | 1.133 ms | 5.175 ms | 8.679 ms | 20.895 ms | 0 | 0 | 14.3 s | 56,284 | 82.3 MiB | excellent |
      | fastify | 52,560 ± 792 | 319 | 0.6% | 1.152 ms | 5.423 ms | 9.007 ms | 27.247 ms | 0 | 0 | 14.3 s | 55,023 | 100.5 MiB | excellent |
      | express ⚠ 1/3 trials failed | 16,728 ± 1,842 | 205 | 1.2% | 3.681 ms | 17.327 ms | 29.007 ms | 78.399 ms | 0 | 0 | 14.7 s | 17,070 | 123.9 MiB | acceptable |

      <sub>Latency percentiles from the histogram merged over trials. Errors include timeouts. Server CPU: CPU seconds of the server process tree per trial.</sub>

      ### plaintext-steps: per step

      | Target | Connections | RPS (mean ± 95% CI) | CoV | p50 | p90 | p99 | p99.9 | Client-bound trials |
      |---|---:|---:|---:|---:|---:|---:|---:|---:|
      | node-http | 16 | 40,518 ± 440 | 0.4% | 0.371 ms | 0.593 ms | 0.976 ms | 2.673 ms | 0 |
      | node-http | 64 | 60,926 ± 1,321 | 0.9% | 0.987 ms | 1.551 ms | 2.471 ms | 6.991 ms | 0 |
      | node-http | 256 | 59,167 ± 1,641 | 1.1% | 4.159 ms | 6.615 ms | 10.703 ms | 29.663 ms | 0 |
      | fastify | 16 | 40,170 ± 559 | 0.6% | 0.381 ms | 0.601 ms | 0.986 ms | 2.609 ms | 0 |
      | fastify | 64 | 60,098 ± 1,209 | 0.8% | 1.007 ms | 1.600 ms | 2.567 ms | 7.563 ms | 0 |
      | fastify | 256 | 57,413 ± 812 | 0.6% | 4.375 ms | 6.951 ms | 11.703 ms | 35.967 ms | 0 |
      | express | 16 | 14,931 ± 1,129 | 0.8% | 0.991 ms | 1.561 ms | 2.713 ms | 8.559 ms | 0 |
      | express | 64 | 18,050 ± 4,661 | 2.9% | 3.459 ms | 5.523 ms | 8.943 ms | 26.719 ms | 0 |
      | express | 256 | 17,204 ± 260 | 0.2% | 14.207 ms | 22.527 ms | 36.895 ms | 110.719 ms | 0 |

      - ⚠ **express**, trial 3 failed — crash: server exited during load (signal SIGKILL)

      <details><summary>last output of express</summary>

      <pre>&lt;--- Last few GCs ---&gt;
      [4242:0x5d1c] 5123 ms: Mark-Compact 2047.1 (2081.3) -&gt; 2046.8 (2082.0) MB
      FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory</pre>

      </details>

      **Not measured in this scenario:**

      - **hummingbird** — skipped: swift not found on PATH"
    `);
  });

  it('lists every noisy or unreliable pair with CoV of RPS and of p99', () => {
    expect(s['Noise']).toMatchInlineSnapshot(`
      "## Noise

      Pairs whose trial-to-trial variation (CoV) of RPS or p99 exceeds 5%: differences involving them are uncertain.

      | Scenario | Target | Verdict | Ok trials | CoV of RPS | CoV of p99 |
      |---|---|---|---:|---:|---:|
      | json-validate | node-http | unreliable | 3 | 0.5% | 17.1% |
      | json-validate | fastify | noisy | 3 | 4.7% | 7.1% |"
    `);
  });

  it('shows costs and the environment with every target side by side', () => {
    expect(s['Costs']).toMatchInlineSnapshot(`
      "## Costs

      | Target | Startup (median) | Idle RSS | Idle PSS | Processes | Peak RSS under load | Artifact size |
      |---|---:|---:|---:|---:|---:|---:|
      | node-http | 41.2 ms (n=5) | 45.6 MiB | 42.1 MiB | 1 | 74.6 MiB | — |
      | fastify | 118.4 ms (n=5) | 59.5 MiB | — | 1 | 92.4 MiB | 4.6 MiB |

      <sub>Methods — node-http startup: spawn → first 200 on /health, 5 cold starts; fastify startup: spawn → first 200 on /health, 5 cold starts; fastify artifact: du -sb of the production node\\_modules closure.</sub>"
    `);
    expect(s['Environment']).toMatchInlineSnapshot(`
      "## Environment

      | Machine |  |
      |---|---|
      | OS | Debian GNU/Linux 12 (bookworm) (kernel 6.1.0-31-amd64, x64) |
      | CPU | AMD EPYC 7763 64-Core Processor, 8 cores |
      | Memory | 32.0 GiB |
      | Host | bench-01 |
      | Load average at start | 0.12 / 0.08 / 0.02 |
      | Runtimes | Node v20.18.1, Python 3.11.2 |
      | benchsuite | 0.1.0 @ 3f9c2a1d8e7b |
      | Server environment | unset: NODE\\_OPTIONS, UV\\_THREADPOOL\\_SIZE; set: NODE\\_ENV=production |

      ### Targets

      |  | node-http | fastify | express | hummingbird |
      |---|---|---|---|---|
      | Status | ok | ok | ok | skipped: swift not found on PATH |
      | Version | 20.18.1 | 5.2.1 | 4.21.2 | — |
      | Language | JavaScript | JavaScript | JavaScript | Swift |
      | Framework | node:http | fastify | express | hummingbird |
      | Kind | process | process | process | process |
      | Command / URL | node packages/servers/dist/node-http.js | node packages/servers/dist/fastify.js | node packages/servers/dist/express.js | — |
      | runtime | node 20.18.1 | node 20.18.1 | node 20.18.1 | — |
      | cluster | false | false | false | — |
      | jsonSerializer | JSON.stringify | fast-json-stringify | JSON.stringify | — |
      | validation | hand-written | ajv (schema) | hand-written | — |
      | logging | off | off | off | — |
      | etag | — | — | weak (default) | — |
      | build | — | — | — | swift build -c release |"
    `);
  });

  it('uses another reference target when asked', () => {
    const other = renderMarkdown(loadFixture(), { reference: 'fastify' });
    expect(other).toContain('| 1 (tie) | fastify | 61,336 | 100.0% |');
    expect(other).toContain('| Reference | fastify (= 100%) |');
  });

  it('names a target whose every trial crashed, with the failure, instead of dropping it', () => {
    const r = loadFixture();
    r.summaries = r.summaries.filter((x) => !(x.scenario === 'plaintext-steps' && x.target === 'express'));
    r.rankings = r.rankings.map((k) => ({ ...k, places: k.places.filter((p) => !(k.scenario === 'plaintext-steps' && p.targets.includes('express'))) }));
    r.trials = r.trials.map((t) => (t.scenario === 'plaintext-steps' && t.target === 'express'
      ? { ...t, status: 'failed' as const, failure: { phase: 'ready' as const, message: 'no answer on /health within 10 s', exitCode: 1 } }
      : t));
    const out = renderMarkdown(r);
    expect(out).toContain('- **express** — crashed: all 3 trials failed — ready: no answer on /health within 10 s (exit code 1)');
    expect(out).toContain('Not ranked: express (crashed: all 3 trials failed');
  });

  it('falls back to the first target as reference without node-http, and flags an interrupted run', () => {
    const r = loadFixture();
    r.targets = r.targets.filter((t) => t.name !== 'node-http');
    r.summaries = r.summaries.filter((x) => x.target !== 'node-http');
    r.interrupted = true;
    const out = renderMarkdown(r);
    expect(out).toContain('| Reference | fastify (= 100%) |');
    expect(out).toContain('> **Interrupted:** the run was stopped early');
  });

  it('is deterministic', () => {
    expect(renderMarkdown(loadFixture())).toBe(md);
  });
});
