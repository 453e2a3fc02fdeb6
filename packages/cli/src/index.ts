export { main } from './main.js';
export { runCommand, runFlags } from './commands/run.js';
