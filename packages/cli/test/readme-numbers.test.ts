// docs/method.md ("How a figure is obtained") and docs/streaming.md state defaults in prose; each
// number here is read from DEFAULTS, so a changed default fails this test until the sentence is changed too.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULTS } from '@benchsuite/sdk';
import { describe, expect, it } from 'vitest';

const read = (rel: string) => readFileSync(fileURLToPath(new URL(`../../../${rel}`, import.meta.url)), 'utf8').replace(/\s+/g, ' ');
const pct = (x: number) => `${Number((x * 100).toFixed(2))}%`;
const n = (x: number) => x.toLocaleString('en-US');

describe('numbers in the prose match DEFAULTS', () => {
  const d = DEFAULTS;
  const method = read('docs/method.md');
  const section = method.slice(method.indexOf('# How a figure is obtained'), method.indexOf('## Runtimes as a dimension'));
  const claims: Array<[string, string]> = [
    ['window length', `(${d.windowSec} s by default`],
    ['step settle', `after a ${d.stepSettleSec} s settle before the first and ${d.laterStepSettleSec} s before each later one`],
    ['sweep settle', `a ${d.laterStepSettleSec}-s one before each later level`],
    ['warm-up bounds', `at least ${d.warmup.minSec} s, at most ${d.warmup.maxSec} s each`],
    ['warm-up steadiness', `by less than ${pct(d.warmup.tolerance)}`],
    ['warm-up by work', `when it has served ${n(d.warmupServedPerScenario)} requests for each scenario whose requests it sends, at least ${n(d.warmup.served)}`],
    ['warm-up windows', `every target still warming one ${d.warmup.windowSec}-s window`],
    ['young generation', `fixed at \`DEFAULTS.youngGenerationMb\`, ${d.youngGenerationMb} MB`],
    ['design-bias flag', `\`DEFAULTS.designBias.flag\` (${pct(d.designBias.flag)})`],
    ['first blocks', `The first blocks (${d.blocks.min} by default) run ${d.rounds.min} rounds each`],
    ['rounds clamp', `[${d.rounds.min}, ${d.rounds.max}]`],
    ['budget', `(${d.budgetSec / 60} min for the whole run`],
    ['warm-up requests', `\`design.warmupRequests: '${d.warmupRequests}'\`, the default`],
    [
      'processes',
      `**${d.processes === 'per-scenario' ? 'Processes per scenario' : 'Shared processes'}** (the default; \`--processes ${d.processes === 'per-scenario' ? 'shared' : 'per-scenario'}\` for the other design)`,
    ],
    ['rotation rounds', `with ${d.carriedWarmupRounds} unrecorded *rotation round${d.carriedWarmupRounds === 1 ? '' : 's'}* of ${d.carriedWarmupWindowSec}-s windows`],
    ['precision', `\`--precision\` (${pct(d.precision)})`],
    ['maximum of blocks', `maximum of blocks (${d.blocks.max})`],
    ['planner floor', `(down to ${d.planFloor.rounds})`],
    ['responses per connection', `at least ${d.minResponsesPerConnection} responses`],
    ['steal threshold', `A window over ${pct(d.stealThreshold)} steal`],
    ['loader-bound server share', `under ${pct(d.loaderBound.serverShare)} of its cores`],
    ['worker share', `at least ${pct(d.workerCpuShare)}`],
    [
      'CoV bands',
      `under ${pct(d.covBands.excellent)} **Excellent**, ${pct(d.covBands.excellent).slice(0, -1)}–${pct(d.covBands.acceptable)} **Acceptable**, ${pct(d.covBands.acceptable).slice(0, -1)}–${pct(d.covBands.noisy)} **Noisy**, over ${pct(d.covBands.noisy)} **Unreliable**`,
    ],
    ['verdict share', `at least ${pct(d.verdictShare)} of the pairs`],
    ['disturbed steal', `mean steal over ${pct(d.disturbedSteal)}`],
    ['noisy CoV', `CoV within blocks over ${pct(d.noisyWindowCov)}`],
    ['practical band', `the practical band (${pct(d.practicalBand)})`],
    ['instruction processes', `on ${d.instructions.processes} fresh processes`],
    ['instruction warm-up', `warmed up with ${n(d.instructions.warmupRequests)} requests`],
    ['instruction count', `while ${n(d.instructions.requests)} requests are answered`],
    ['instruction loaded count', `while ${n(d.instructions.loadedRequests)} are answered at`],
    ['V8 determinism flags', `\`${d.instructions.nodeFlags.join(' ')}\``],
  ];
  it('docs/method.md has the section', () => expect(section.length).toBeGreaterThan(10_000));
  for (const [what, text] of claims) it(`docs/method.md: ${what}`, () => expect(section).toContain(text));

  const streaming = read('docs/streaming.md');
  const s = d.stream;
  const streamClaims: Array<[string, string]> = [
    ['levels', `(${s.streams.join(', ')})`],
    ['seconds per level', `for \`durationSec\` (${s.durationSec} s)`],
    ['warm-up', `for \`warmupSec\` (${s.warmupSec} s)`],
    ['disconnects', `\`count\` (${s.cancel.count}) streams`],
    ['events before a disconnect', `\`afterEvents\` (${s.cancel.afterEvents})`],
    ['never-aborted wait', `\`waitMs\`, ${s.cancel.waitMs / 1000} s`],
    ['slow reader', `(${s.backpressure.readBytesPerSec / 1024} KiB/s) for \`durationSec\` (${s.backpressure.durationSec} s)`],
    ['throttle slack', `\`stallSlackBytes\` (${s.backpressure.stallSlackBytes / 2 ** 20} MiB`],
    ['slow reader cap', `\`maxDurationFactor\` (${s.backpressure.maxDurationFactor}) times`],
    ['drain cap', `\`drainSec\` (${s.drainSec} s)`],
    ['cold start cap', `\`coldMaxSec\`, ${s.coldMaxSec} s`],
  ];
  for (const [what, text] of streamClaims) it(`docs/streaming.md: ${what}`, () => expect(streaming).toContain(text));

  const history = read('docs/history.md');
  const h = d.history;
  const historyClaims: Array<[string, string]> = [
    ['shuffles', `within each current segment ${h.permutations} times`],
    ['p-value', `(p = (1 + count) ÷ ${h.permutations + 1})`],
    ['alpha', `the first candidate with p > ${h.alpha}`],
    ['minimum magnitude', `under the minimum magnitude (${pct(h.minMagnitude)}, \`--min-change\`)`],
    ['minimum segment', `fewer than ${h.minSegment} runs`],
    ['gate window', `the **${h.gate.window} runs before it**`],
    ['gate minimum', `With fewer than ${h.gate.minRuns} earlier runs`],
  ];
  for (const [what, text] of historyClaims) it(`docs/history.md: ${what}`, () => expect(history).toContain(text));
});
