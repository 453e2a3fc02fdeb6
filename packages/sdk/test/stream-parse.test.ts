// The streaming kind's parsing and definitions, without load: SSE framing, and what a stream
// scenario may and may not say.
import { describe, expect, it } from 'vitest';
import { DEFAULTS, parseScenario, parseSseEvents, streamSpecSchema } from '../src/index.js';
import { streamPlan } from '../src/stream/kind.js';

describe('parseSseEvents', () => {
  it('splits complete events, names them (message when unnamed) and keeps the partial rest', () => {
    const { names, rest } = parseSseEvents('event: a\ndata: 1\n\ndata: 2\n\n: a comment\n\nevent: b\r\ndata: 3\r\n\r\nevent: c\ndata: 4');
    expect(names).toEqual(['a', 'message', 'b']);
    expect(rest).toBe('event: c\ndata: 4');
    // The rest completes once the next chunk brings the blank line.
    expect(parseSseEvents(`${rest}\n\n`)).toEqual({ names: ['c'], rest: '' });
  });
  it('gives nothing for an incomplete event', () => {
    expect(parseSseEvents('event: x\ndata: {"a":')).toEqual({ names: [], rest: 'event: x\ndata: {"a":' });
  });
});

describe('a stream scenario definition', () => {
  const base = { name: 's', request: { method: 'POST', path: '/v1/messages', body: '{}' }, expect: { status: 200 } };
  it('takes the defaults of DEFAULTS.stream', () => {
    const s = parseScenario({ ...base, kind: 'stream' });
    expect(s.kind).toBe('stream');
    const spec = streamSpecSchema.parse(s.stream ?? {});
    expect(spec.streams).toEqual([...DEFAULTS.stream.streams]);
    expect(spec.deltaEvent).toBe(DEFAULTS.stream.deltaEvent);
  });
  it('rejects a stream block on an http scenario, and several requests on a stream one', () => {
    expect(() => parseScenario({ ...base, stream: {} })).toThrow(/only a scenario with kind "stream" takes a stream block/);
    expect(() => parseScenario({ name: 's', kind: 'stream', expect: { status: 200 }, requests: [{ path: '/a' }, { path: '/b' }] })).toThrow(/a stream scenario sends one request/);
    expect(() => parseScenario({ ...base, kind: 'stream', stream: { streams: [0] } })).toThrow();
  });
  it('scales every phase down for a short window, never up', () => {
    const s = parseScenario({ ...base, kind: 'stream', stream: { cancel: {}, backpressure: {} } });
    const full = streamPlan(s, { windowSec: DEFAULTS.windowSec });
    expect(full.durationSec).toBe(DEFAULTS.stream.durationSec);
    const quick = streamPlan(s, { windowSec: DEFAULTS.windowSec / 4 });
    expect(quick.durationSec).toBeCloseTo(DEFAULTS.stream.durationSec / 4);
    expect(quick.cancel!.count).toBe(DEFAULTS.stream.cancel.count / 4);
    expect(quick.backpressure!.durationSec).toBeGreaterThanOrEqual(2);
    expect(streamPlan(s, { windowSec: DEFAULTS.windowSec * 3 }).durationSec).toBe(DEFAULTS.stream.durationSec);
  });
});
