// CoV verdicts (issue 18), the thresholds a result records (issue 17) and the loader-bound flag
// judged by the server, on fixed inputs with hand-computed answers. Pure: no process starts.
import { describe, expect, it } from 'vitest';
import { blockCov, covBand, DEFAULTS, pairVerdict, runVerdict, thresholdsOf, type VerdictBand } from '../src/index.js';
import { bottlenecks, type WindowResources } from '../src/window-resources.js';

const bands = DEFAULTS.covBands;

describe('covBand: < 3% Excellent, 3–5% Acceptable, 5–10% Noisy, > 10% Unreliable', () => {
  it('puts each CoV in its band, boundaries included where the bands say', () => {
    expect(covBand(0, bands)).toBe('excellent');
    expect(covBand(0.0299, bands)).toBe('excellent');
    expect(covBand(0.03, bands)).toBe('acceptable');
    expect(covBand(0.0499, bands)).toBe('acceptable');
    expect(covBand(0.05, bands)).toBe('noisy');
    expect(covBand(0.1, bands)).toBe('noisy');
    expect(covBand(0.1001, bands)).toBe('unreliable');
    // The bands are data: a result that recorded others is judged by them.
    expect(covBand(0.04, { excellent: 0.05, acceptable: 0.08, noisy: 0.2 })).toBe('excellent');
  });
});

describe('blockCov and pairVerdict', () => {
  it('blockCov: sample SD (n − 1) ÷ mean of the per-block figures', () => {
    // 0.9, 1.0, 1.1: mean 1, SD √((0.01 + 0 + 0.01) / 2) = 0.1 → CoV 0.1.
    expect(blockCov([0.9, 1.0, 1.1])).toBeCloseTo(0.1, 12);
    // 0.98, 1.02: mean 1, SD √(0.0008 / 1) = 0.028284 → 2.83%.
    expect(blockCov([0.98, 1.02])).toBeCloseTo(0.0282843, 6);
    expect(blockCov([1])).toBeNull();
  });

  it('judges the per-block medians of the headline figure, and the windows within blocks; the word is the blocks’', () => {
    // Block medians 0.98 and 1.02 (CoV 2.83%, Excellent); windows 6% (Noisy).
    const v = pairVerdict(
      [
        [0.9, 0.98, 1.5],
        [1.02, 0.5, 1.1],
      ],
      0.06,
      bands,
    )!;
    expect(v.band).toBe('excellent');
    expect(v.basis).toBe('blocks');
    expect(v.blocks!.cov).toBeCloseTo(0.0282843, 6);
    expect(v.windows).toEqual({ cov: 0.06, band: 'noisy' });
  });

  it('with one block, the windows give the word; with nothing to judge there is no verdict', () => {
    expect(pairVerdict([[1, 1.1, 0.9]], 0.12, bands)).toEqual({ band: 'unreliable', basis: 'windows', blocks: null, windows: { cov: 0.12, band: 'unreliable' } });
    expect(pairVerdict([[1]], null, bands)).toBeNull();
  });
});

describe('runVerdict: the band that at least 90% of the pairs reach or beat', () => {
  const many = (counts: Partial<Record<VerdictBand, number>>): VerdictBand[] => Object.entries(counts).flatMap(([b, n]) => Array<VerdictBand>(n).fill(b as VerdictBand));

  it('counts the pairs per band and names the worst', () => {
    // 20 pairs: 90% = 18. Excellent 10, then Acceptable reaches 17, Noisy 19 ≥ 18 → Noisy.
    const v = runVerdict(many({ excellent: 10, acceptable: 7, noisy: 2, unreliable: 1 }), 0.9)!;
    expect(v).toEqual({ band: 'noisy', share: 0.9, pairs: { excellent: 10, acceptable: 7, noisy: 2, unreliable: 1 }, worst: 'unreliable' });
  });

  it('one unreliable pair in 45 does not sink the run; in fewer than 10 pairs the worst decides', () => {
    // 45 pairs: 90% = 40.5 → 41; Excellent 30 + Acceptable 14 = 44 ≥ 41 → Acceptable.
    expect(runVerdict(many({ excellent: 30, acceptable: 14, unreliable: 1 }), 0.9)!.band).toBe('acceptable');
    // 5 pairs: 4.5 → 5: all of them.
    expect(runVerdict(many({ excellent: 4, noisy: 1 }), 0.9)!.band).toBe('noisy');
    expect(runVerdict(many({ excellent: 9, acceptable: 1 }), 0.9)!.band).toBe('excellent');
    expect(runVerdict([], 0.9)).toBeNull();
  });
});

describe('thresholdsOf: the values a result recorded, DEFAULTS only for those it lacks', () => {
  it('keeps recorded values and fills the missing ones', () => {
    const t = thresholdsOf({ clientBoundBusy: 0.8, covBands: { excellent: 0.01, acceptable: 0.02, noisy: 0.04 } });
    expect(t.clientBoundBusy).toBe(0.8);
    expect(t.covBands).toEqual({ excellent: 0.01, acceptable: 0.02, noisy: 0.04 });
    expect(t.serverSaturatedShare).toBe(DEFAULTS.serverSaturatedShare);
    expect(t.loaderBound).toEqual(DEFAULTS.loaderBound);
    expect(thresholdsOf(undefined).verdictShare).toBe(DEFAULTS.verdictShare);
  });
});

describe('loader-bound, judged by the server', () => {
  const r = (o: Partial<WindowResources>): WindowResources => ({
    serverCpuSeconds: 0.8,
    serverPeakRssBytes: 1,
    serverProcesses: 1,
    loaderCpuSeconds: 0.5,
    loaderCoreBusy: 0.5,
    loaderBusiestCore: 0.5,
    loaderThreadBusy: 0.5,
    cpuSteal: 0,
    serverCoreShare: 0.99,
    serviceCpuSeconds: 0,
    serviceBusy: 0,
    samples: 8,
    ...o,
  });
  const flag = (o: Partial<WindowResources>, sampledServer = true) => bottlenecks(r(o), { sampledServer, clientBound: false }).loaderBound;

  it('flags a server under 97% of its cores while the loader core was over 80% busy', () => {
    // autocannon on a fresh machine: server at 85% of its core, loader at 96%.
    expect(flag({ serverCoreShare: 0.85, loaderBusiestCore: 0.96, loaderThreadBusy: 0.96, loaderCpuSeconds: 0.77 })).toBe(true);
    // the loader process per thread is enough on a many-core loader side.
    expect(flag({ serverCoreShare: 0.9, loaderBusiestCore: 0.5, loaderThreadBusy: 0.85 })).toBe(true);
  });

  it('does not flag a saturated server, an idle loader, a server it did not start, or a backend that leads', () => {
    expect(flag({ serverCoreShare: 0.98, loaderBusiestCore: 0.96 })).toBe(false);
    expect(flag({ serverCoreShare: 0.6, loaderBusiestCore: 0.53, loaderThreadBusy: 0.53 })).toBe(false);
    expect(flag({ serverCoreShare: 0.85, loaderBusiestCore: 0.96 }, false)).toBe(false);
    expect(flag({ serverCoreShare: 0.85, loaderBusiestCore: 0.96, serviceCpuSeconds: 0.9, serviceBusy: 0.95 })).toBe(false);
  });

  it('flags a backend that leads on a saturated loader core only while the server had room', () => {
    const backend = (o: Partial<WindowResources>, sampledServer = true) => bottlenecks(r(o), { sampledServer, clientBound: false }).backendBound;
    // A slow backend beside wrk on the loader's core: the proxy in front of it waits.
    expect(backend({ serverCoreShare: 0.1, loaderBusiestCore: 1, serviceCpuSeconds: 0.67, serviceBusy: 0.85, loaderCpuSeconds: 0.02 })).toBe(true);
    // A cheap backend behind a proxy that used its whole core: the proxy set the rate.
    expect(backend({ serverCoreShare: 0.98, loaderBusiestCore: 0.93, serviceCpuSeconds: 0.26, serviceBusy: 0.44, loaderCpuSeconds: 0.11 })).toBe(false);
    expect(backend({ serverCoreShare: 0.6, serverBusiestThread: 0.99, loaderBusiestCore: 0.93, serviceCpuSeconds: 0.26, loaderCpuSeconds: 0.11 })).toBe(false);
    // A server it did not start says nothing of its room; a backend saturated on its own is flagged whatever the server.
    expect(backend({ serverCoreShare: 0.98, loaderBusiestCore: 0.93, serviceCpuSeconds: 0.26, loaderCpuSeconds: 0.11 }, false)).toBe(true);
    expect(backend({ serverCoreShare: 0.98, serviceCpuSeconds: 0.6, serviceBusy: 0.95 })).toBe(true);
  });

  it('uses the thresholds it is given', () => {
    const t = { backendBoundBusy: 0.9, serverSaturatedShare: 0.7, loaderBound: { serverShare: 0.8, loaderBusy: 0.9 } };
    expect(bottlenecks(r({ serverCoreShare: 0.85, loaderBusiestCore: 0.96 }), { sampledServer: true, clientBound: false }, t).loaderBound).toBe(false);
    expect(bottlenecks(r({ serverCoreShare: 0.75, loaderBusiestCore: 0.96 }), { sampledServer: true, clientBound: false }, t).loaderBound).toBe(true);
  });
});
