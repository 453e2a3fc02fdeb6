// What a report says of the host's noise (issue 32): how the rounds loaded their targets, what the
// budget was expected to buy and what it reached, what set the intervals and what would help most,
// and the windows the host disturbed beyond steal, counted in every report and ringed in the HTML.
import { describe, expect, it } from 'vitest';
import { DEFAULTS, disturbedWindows, likelyRange, median, thresholdsOf, type BenchResult, type RunForecast } from '@benchsuite/sdk';
import { renderHtml, renderMarkdown, renderTerminal } from '../src/index.js';
import { fmtHalfWidth } from '../src/units.js';
import { loadFixture } from './helpers.js';

const forecast = (source: RunForecast['source'], halfWidth: number): RunForecast => ({
  method: 'sliced',
  source,
  components: { between: 0.03, within: 0.12 },
  blocks: 4,
  rounds: 3,
  halfWidth,
  budgetFor: [
    { precision: 0.05, budgetSec: 3530 },
    { precision: 0.02, budgetSec: null },
  ],
});

/** The fixture as a sliced run that forecast, judged its limits and saw two disturbed windows. */
function slicedRun(): BenchResult {
  const r = loadFixture();
  r.design.method = 'sliced';
  r.design.hostDisturbance = { otherShare: 0.05, loaderSlowdown: 1.3 };
  r.design.budgetPlan = { minimumSec: 470, givenMinimumSec: 470, changes: [], overBySec: 0, forecast: forecast('prior', 0.131), measuredForecast: forecast('measured', 0.092) };
  // The loader's work per request is the same in every window, nothing else on the cores...
  for (const w of r.windows) {
    if (w.status !== 'ok') continue;
    w.resources.loaderCpuSeconds = w.requests * 10e-6;
    w.resources.otherCpuShare = 0;
  }
  const ok = r.windows.filter((w) => w.status === 'ok' && w.scenario === 'baseline');
  for (const w of ok) if (w.status === 'ok') for (const s of w.steps) s.slice = { sliceSec: 0.05, gapSec: 0.002, slots: 16, activeSec: s.durationSec, drained: 40 };
  // ...but in one window another process used the cores, in another the loader ran at 3× its CPU per request.
  const [a, b] = ok;
  if (a?.status === 'ok') a.resources.otherCpuShare = 0.2;
  if (b?.status === 'ok') b.resources.loaderCpuSeconds *= 3;
  const d = [...disturbedWindows(r.windows, thresholdsOf(r.design)).values()];
  r.overall.disturbed = { windows: d.length, other: d.filter((x) => x.other).length, slowLoader: d.filter((x) => x.slowLoader).length };
  r.overall.limits = {
    components: { between: 0.021, within: 0.118 },
    blocks: 4,
    rounds: 3,
    withinShare: 0.94,
    betweenShare: 0.06,
    blocksFactor: 1.62,
    setBy: 'host',
    options: [{ change: 'budget', halfWidth: 0.081 }],
    best: 'budget',
  };
  return r;
}

describe('the host-noise facts of a report', () => {
  const r = slicedRun();

  it('counts the disturbed windows by what disturbed them (the judgement the reports draw)', () => {
    expect(r.overall.disturbed).toEqual({ windows: 2, other: 1, slowLoader: 1 });
  });

  for (const [format, render] of [
    ['Markdown', () => renderMarkdown(r)],
    ['terminal', () => renderTerminal(r, { color: false })],
    ['HTML', () => renderHtml(r)],
  ] as const) {
    it(`${format}: the rounds' method, the forecast against what was reached, what set the intervals, the disturbed windows`, () => {
      const text = render()
        .replace(/<[^>]+>/g, '')
        .replace(/&#39;/g, "'");
      expect(text).toContain('time-sliced: every target of a round loaded in the same seconds, in alternating slots of 50 ms');
      expect(text).toContain("about ±13.1% before the run (the method's typical noise), ±9.2% from this run's own noise after its first blocks; reached ±");
      // Reached: the median over the ratios to the reference (what the forecast is of), not over every headline.
      const ratios = r.summaries.filter((x) => x.target !== r.design.reference && x.relativeRps?.halfWidth != null).map((x) => x.relativeRps!.halfWidth!);
      expect(ratios.length).toBeGreaterThan(0);
      expect(text).toContain(`; reached ${fmtHalfWidth(median(ratios))} (median over the ${ratios.length} ratios to ${r.design.reference})`);
      expect(text).toContain(
        "set by the host, window by window (a round's log-ratio SD 11.8% within a block: 94% of a block median's variance), with 4 blocks of 3 rounds (Student's t 1.6× a normal quantile); most help: twice the --budget, or half as many pairs (about ±8.1%)",
      );
      expect(text).toContain('2 of 120 disturbed by the host beyond steal (1 with another process on the measured cores, 1 with the loader running slow), kept in the estimates');
    });
  }

  it('a measured forecast is said with the range of its record, and the report says whether what was reached fell inside it', () => {
    const ratios = r.summaries.filter((x) => x.target !== r.design.reference && x.relativeRps?.halfWidth != null).map((x) => x.relativeRps!.halfWidth!);
    const reached = median(ratios);
    // The noise model's figure whose range (its record's bias and spread) is centred on what was reached, and on 3× it.
    const centredOn = (x: number) => x * Math.exp(DEFAULTS.forecast.record.logBias);
    for (const [said, where] of [
      [centredOn(reached), 'inside'],
      [centredOn(3 * reached), 'outside'],
    ] as const) {
      const run = slicedRun();
      const likely = likelyRange(said);
      run.design.budgetPlan!.measuredForecast = { ...forecast('measured', said), likely };
      const text = renderMarkdown(run);
      // Said as the range's centre, then the range, then the model's own figure.
      const centre = Math.sqrt(likely.low * likely.high);
      expect(centre).toBeCloseTo(where === 'inside' ? reached : 3 * reached, 9);
      expect(text).toContain(
        `${fmtHalfWidth(centre)} (80% range from its record: ${fmtHalfWidth(likely.low)} to ${fmtHalfWidth(likely.high)}; the measured noise alone prices ${fmtHalfWidth(said)}) from this run's own noise after its first blocks`,
      );
      expect(text).toContain(`(median over the ${ratios.length} ratios to ${r.design.reference}), ${where} the range`);
    }
  });

  it('the forecast before the run is said with its own record, and judged when no measured one follows it', () => {
    const ratios = r.summaries.filter((x) => x.target !== r.design.reference && x.relativeRps?.halfWidth != null).map((x) => x.relativeRps!.halfWidth!);
    const reached = median(ratios);
    const { priorRecord } = DEFAULTS.forecast;
    for (const [said, where] of [
      [reached * Math.exp(priorRecord.logBias), 'inside'],
      [reached, 'outside'],
    ] as const) {
      const run = slicedRun();
      const likely = likelyRange(said, priorRecord);
      run.design.budgetPlan!.forecast = { ...forecast('prior', said), likely };
      delete run.design.budgetPlan!.measuredForecast;
      const text = renderMarkdown(run);
      expect(text).toContain(
        `about ${fmtHalfWidth(Math.sqrt(likely.low * likely.high))} (80% range from its record: ${fmtHalfWidth(likely.low)} to ${fmtHalfWidth(likely.high)}; the method's typical noise alone prices ${fmtHalfWidth(said)}) before the run; reached`,
      );
      expect(text).toContain(`ratios to ${r.design.reference}), ${where} the range`);
    }
  });

  it('HTML: a chart of every window per scenario, the disturbed ones ringed with what disturbed them', () => {
    const html = renderHtml(r);
    expect(html).toContain('Every window: req/s ÷ the target&#39;s median in its block (rings: disturbed by the host beyond steal)');
    expect(html).toContain('disturbed: another process used 20% of the measured cores');
    expect(html).toContain('disturbed: the loader ran slow');
  });

  it('an older result says none of it (its reports stay as they were)', () => {
    const old = renderMarkdown(loadFixture());
    expect(old).not.toContain('time-sliced');
    expect(old).not.toContain('before the run');
    expect(old).not.toContain('disturbed by the host beyond steal');
  });
});
