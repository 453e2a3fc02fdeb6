import { defineCommand } from '../_cli.js';
import { availableSuites, loadConfig, validateConfig } from '../_config.js';
import { EXIT } from '../_errors.js';

/** `benchsuite list`: suites, their scenarios and targets. */
export const listCommand = defineCommand({
  name: 'list',
  summary: 'list suites, their scenarios and targets',
  flags: {
    config: { type: 'value', value: 'FILE', parse: (r: string) => r, help: 'config file', default: './benchsuite.config.ts, .mts, .js or .mjs' },
  },
  examples: [['benchsuite list', 'built-in suites, and those of ./benchsuite.config.ts']],
  exitCodes: [
    [EXIT.ok, 'listed'],
    [EXIT.usage, 'bad usage or config (every problem is listed, each naming its field)'],
  ],
  async run({ flags }, io) {
    const loaded = await loadConfig(flags.config);
    const { suites, defaultSuite } = availableSuites(loaded ? validateConfig(loaded.raw, loaded.file) : undefined);
    for (const [name, s] of Object.entries(suites)) {
      io.stdout(`${name}${name === defaultSuite ? ' (default)' : ''}\n  scenarios: ${s.scenarios.map((x) => x.name).join(', ')}\n  targets:   ${s.targets.map((x) => x.name).join(', ')}\n`);
    }
    return EXIT.ok;
  },
});
