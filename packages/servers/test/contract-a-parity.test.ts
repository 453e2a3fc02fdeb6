/**
 * Parity of the Node servers of Contract A: every case is sent to all of them; node:http's
 * answer must equal the contract's expectation and every other server's answer must equal
 * node:http's (status, compared headers, decoded body). Servers are the built `dist/serve.js`
 * run as child processes: run `npx tsc -p packages/servers` first.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { groups, parityEnv } from './_contract-a-cases.js';
import { parityReport, sendToAll } from './_helpers-http.js';
import { startServers, stopServers, type RunningServer, type ServerName } from './_helpers-servers.js';

let servers: Record<ServerName, RunningServer> | undefined;

beforeAll(async () => {
  servers = await startServers(parityEnv);
});
afterAll(() => stopServers(servers));

describe.each(groups)('%s', (_group, cases) => {
  test.each(cases)('$name', async ({ request, expect: expected }) => {
    const responses = await sendToAll(servers!, request);
    const report = parityReport(responses, expected);
    if (report.length > 0) expect.fail(`${request.method ?? 'GET'} ${request.path}\n${report.join('\n')}`);
  });
});
