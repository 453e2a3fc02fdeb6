// The client-bound rule (window-resources.ts) on fixed readings. No process starts here.
import { describe, expect, it } from 'vitest';
import { isClientBound } from '../src/index.js';
import { zeroResources } from './_helpers.js';

describe('isClientBound', () => {
  const r = (over: Record<string, number>) => zeroResources(over);
  it('flags a loader whose one core is saturated although the mean over its cores is low', () => {
    // autocannon on one core of four: that core 97% busy, the four cores' mean 24%.
    expect(isClientBound(r({ loaderBusiestCore: 0.97, loaderCoreBusy: 0.24, loaderThreadBusy: 0.24 }))).toBe(true);
  });
  it('flags a loader process that uses its threads fully, whatever the cores say', () => {
    expect(isClientBound(r({ loaderBusiestCore: 0.5, loaderCoreBusy: 0.5, loaderThreadBusy: 0.95 }))).toBe(true);
  });
  it('does not flag headroom, and honours the threshold', () => {
    expect(isClientBound(r({ loaderBusiestCore: 0.85, loaderCoreBusy: 0.85, loaderThreadBusy: 0.85 }))).toBe(false);
    expect(isClientBound(r({ loaderBusiestCore: 0.85, loaderThreadBusy: 0.1 }), 0.8)).toBe(true);
  });
});
