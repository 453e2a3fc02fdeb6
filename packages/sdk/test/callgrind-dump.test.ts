import { describe, expect, it } from 'vitest';
import { dumpCost } from '../src/instructions/callgrind.js';

// A callgrind dump in its compressed-name format: `fn=` the function whose costs follow, `cfn=` a
// callee, `calls=` a call whose inclusive cost is on the next line.
const DUMP = `version: 1
events: Ir
fn=(1) main
0 100
cfn=(2) v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace, v8::internal::GarbageCollectionReason, v8::GCCallbackFlags)
calls=2 0
0 5000
cfn=(3) handleRequest
calls=10 0
0 700
fn=(3)
0 600
cfn=(2)
calls=1 0
0 2500
fn=(2)
0 4000
cfn=(4) v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace, v8::internal::GarbageCollectionReason, v8::GCCallbackFlags)::inner
calls=1 0
0 3500
totals: 8400
`;

describe('dumpCost', () => {
  it("takes the total and the collections' inclusive cost from calls made outside them", () => {
    // From main (5,000) and from handleRequest (2,500); the call inside a collection is not counted again.
    expect(dumpCost(DUMP)).toEqual({ total: 8400, collections: 7500 });
  });
  it('counts no collections in a dump without them', () => {
    expect(dumpCost('events: Ir\nfn=(1) main\n0 10\ntotals: 10\n')).toEqual({ total: 10, collections: 0 });
  });
  it('says what is wrong with a dump without a totals line', () => {
    expect(() => dumpCost('events: Ir\n')).toThrow(/no totals line/);
  });
});
