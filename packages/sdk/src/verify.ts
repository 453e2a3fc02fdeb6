import { isDeepStrictEqual } from 'node:util';
import type { RequestSpec, Scenario } from './scenario.js';
import type { VerifyOutcome } from './result-schema.js';

/** What a single request answered, decoded (fetch undoes gzip/br). */
export interface Observed {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export async function send(baseUrl: string, r: RequestSpec, timeoutMs = 10_000): Promise<Observed> {
  const res = await fetch(baseUrl + r.path, {
    method: r.method,
    headers: r.headers,
    ...(r.body !== undefined ? { body: r.body } : {}),
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = await res.text();
  return { status: res.status, headers: Object.fromEntries(res.headers), body };
}

const show = (v: unknown) => JSON.stringify(v);

/** Index of the first character where two texts differ (the shorter one's length when one is a prefix). */
const firstDifference = (a: string, b: string): number => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

/**
 * Check one scenario's requests against a running target, as TechEmpower's verify step does:
 * status among the expected ones, the exact JSON body or body text when the scenario gives one,
 * and the named headers. Returns a readable diff when it does not match.
 */
export async function verifyScenario(baseUrl: string, scenario: Scenario, requests: readonly RequestSpec[], target: string): Promise<VerifyOutcome> {
  const expected = Array.isArray(scenario.expect.status) ? scenario.expect.status : [scenario.expect.status];
  const problems: string[] = [];
  for (const r of requests) {
    let obs: Observed;
    try {
      obs = await send(baseUrl, r);
    } catch (err) {
      return { scenario: scenario.name, target, ok: false, reason: `${r.method} ${r.path}: request failed: ${(err as Error).message}` };
    }
    const where = `${r.method} ${r.path}`;
    if (!expected.includes(obs.status)) problems.push(`${where}\n  status: expected ${expected.join(' or ')}, got ${obs.status}`);
    if (scenario.expect.json !== undefined && obs.status !== 304 && obs.status !== 204) {
      let actual: unknown;
      try {
        actual = JSON.parse(obs.body);
      } catch {
        actual = undefined;
      }
      if (!isDeepStrictEqual(actual, scenario.expect.json)) {
        problems.push(`${where}\n  body:\n  - expected ${show(scenario.expect.json)}\n  + received ${actual === undefined ? JSON.stringify(obs.body.slice(0, 300)) : show(actual)}`);
      }
    }
    if (scenario.expect.text !== undefined && obs.status !== 304 && obs.status !== 204 && obs.body !== scenario.expect.text) {
      const at = firstDifference(obs.body, scenario.expect.text);
      problems.push(`${where}\n  body text differs at character ${at}:\n  - expected ${show(scenario.expect.text.slice(at, at + 80))}\n  + received ${show(obs.body.slice(at, at + 80))}`);
    }
    for (const [name, value] of Object.entries(scenario.expect.headers ?? {})) {
      const got = obs.headers[name.toLowerCase()];
      if (got !== value) problems.push(`${where}\n  header ${name}:\n  - expected ${show(value)}\n  + received ${got === undefined ? '(absent)' : show(got)}`);
    }
  }
  if (!problems.length) return { scenario: scenario.name, target, ok: true };
  const first = problems[0]!.split('\n');
  return { scenario: scenario.name, target, ok: false, reason: `${first[0]}: ${first[1]?.trim()}`, diff: problems.join('\n') };
}
