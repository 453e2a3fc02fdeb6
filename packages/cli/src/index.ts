export { main } from './main.js';
export { runCommand } from './commands/run.js';
export { summaryText } from './_summary.js';
