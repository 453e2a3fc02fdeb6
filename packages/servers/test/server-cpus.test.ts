import { availableParallelism } from 'node:os';
import { describe, expect, test } from 'vitest';
import { decidePinning } from '@benchsuite/sdk';
import { parseCpuList, serverCpus, SERVER_CPUS_ENV } from '../src/server-cpus.js';

describe('serverCpus: the cores a server target will run on', () => {
  test('BENCHSUITE_SERVER_CPUS wins: a comma list, ranges allowed, duplicates dropped', () => {
    expect(serverCpus({ [SERVER_CPUS_ENV]: '0' })).toEqual([0]);
    expect(serverCpus({ [SERVER_CPUS_ENV]: '0,1' })).toEqual([0, 1]);
    expect(serverCpus({ [SERVER_CPUS_ENV]: ' 2-4, 7 ,3' })).toEqual([2, 3, 4, 7]);
  });

  test('a malformed list is an error naming the variable', () => {
    for (const bad of ['a', '1,', '3-1', '-1', '0;1']) expect(() => parseCpuList(bad), bad).toThrow(SERVER_CPUS_ENV);
  });

  test("without it: the server cores of the SDK's default pinning, else every usable core", () => {
    const pinning = decidePinning('auto');
    const expected = pinning.enabled ? pinning.serverCpus : Array.from({ length: availableParallelism() }, (_, i) => i);
    expect(serverCpus({})).toEqual(expected);
    expect(serverCpus({ [SERVER_CPUS_ENV]: '  ' })).toEqual(expected);
  });
});
