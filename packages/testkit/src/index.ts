/**
 * @benchsuite/testkit — what the packages' tests share (never published): a server process
 * started on PORT=0 and awaited by its `listening on` line, one request on a fresh connection, a
 * scratch folder. A tiny server and a tiny design live with the SDK's tests (`sdk/test/_helpers.ts`).
 */
export { startListening, type RunningProcess, type StartOptions } from './process.js';
export { request, type TestRequest, type TestResponse } from './http.js';
export { scratch } from './scratch.js';
