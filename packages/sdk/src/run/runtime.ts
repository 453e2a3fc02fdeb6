/**
 * The old name of `server-process.ts`, kept only for `run/methods/` while another change to that
 * folder is under way: its two imports move to `../server-process.js`, then this file goes.
 */
export { PhaseError, type StartedTarget } from './server-process.js';
