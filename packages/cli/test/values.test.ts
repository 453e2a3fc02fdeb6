import { describe, expect, it } from 'vitest';
import { formatSeconds, parseConnections, parseDuration, parseFraction, parseInteger, parseNames, parseRange, ValueError } from '../src/_values.js';

describe('parseDuration: seconds from text with units', () => {
  it.each([
    ['10s', 10],
    ['500ms', 0.5],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['2m', 120],
    ['20min', 1200],
    ['1h', 3600],
    ['1m30s', 90],
    [' 3S ', 3],
  ])('%s → %d s', (raw, sec) => expect(parseDuration(raw)).toBeCloseTo(sec, 9));
  it.each(['10x', '', 's', '1.2.3', '-1s', '10 s', 'ten'])('refuses %j, saying what a duration looks like', (raw) => {
    expect(() => parseDuration(raw)).toThrow(ValueError);
    expect(() => parseDuration(raw)).toThrow(/expected a duration like 10s, 500ms/);
  });
  it('refuses zero where a positive duration is needed, and allows it where not', () => {
    expect(() => parseDuration('0s', { exclusive: true })).toThrow(/over 0 s/);
    expect(parseDuration('0')).toBe(0);
  });
});

describe('parseFraction: a share from 2% or 0.02', () => {
  it.each([
    ['2%', 0.02],
    ['0.02', 0.02],
    ['0.5%', 0.005],
    ['100%', 1],
    ['1', 1],
  ])('%s → %d', (raw, f) => expect(parseFraction(raw)).toBeCloseTo(f, 12));
  it('refuses a bare number over 1 instead of guessing 2% or 200%', () => {
    expect(() => parseFraction('2')).toThrow('"2" would be 200%; write 2% or 0.02');
  });
  it.each(['0', '0%', '101%', '-1%', 'abc', ''])('refuses %j', (raw) => expect(() => parseFraction(raw)).toThrow(ValueError));
});

describe('whole numbers, ranges, names and connections', () => {
  it('parseInteger keeps negatives (seeds) and refuses fractions and text', () => {
    expect(parseInteger('-7')).toBe(-7);
    expect(() => parseInteger('1.5')).toThrow(/whole number/);
    expect(() => parseInteger('0', { min: 1 })).toThrow('expected a whole number ≥ 1, got "0"');
  });
  it('parseRange reads MIN or MIN,MAX and refuses MAX below MIN', () => {
    expect(parseRange('5')).toEqual({ min: 5 });
    expect(parseRange('5,20')).toEqual({ min: 5, max: 20 });
    expect(() => parseRange('5,3')).toThrow('MAX must be at least MIN');
    expect(() => parseRange('0')).toThrow('MIN must be at least 1');
    expect(() => parseRange('1,2,3')).toThrow(/MIN or MIN,MAX/);
  });
  it('parseNames splits a comma list and refuses empty names', () => {
    expect(parseNames('a, b')).toEqual(['a', 'b']);
    expect(() => parseNames('a,,b')).toThrow(/comma list/);
  });
  it('parseConnections gives one number or a stepped list', () => {
    expect(parseConnections('50')).toBe(50);
    expect(parseConnections('10,50,100')).toEqual([10, 50, 100]);
    expect(() => parseConnections('10,0')).toThrow(/≥ 1/);
  });
  it('formatSeconds prints what users type', () => {
    expect([0.25, 1, 90, 1080, 3600].map(formatSeconds)).toEqual(['250ms', '1s', '1m30s', '18m', '1h']);
  });
});
