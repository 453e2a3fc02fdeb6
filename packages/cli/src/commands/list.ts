import { defineCommand } from 'citty';
import { availableSuites, loadConfig } from '../_config.js';

/** `benchsuite list`: suites, their scenarios and targets. */
export const listCommand = defineCommand({
  meta: { name: 'list', description: 'list suites, scenarios and targets' },
  args: { config: { type: 'string', description: 'config file' } },
  async run({ args }) {
    const loaded = await loadConfig(args.config);
    const { suites, defaultSuite } = availableSuites(loaded?.config);
    for (const [name, s] of Object.entries(suites)) {
      process.stdout.write(`${name}${name === defaultSuite ? ' (default)' : ''}\n  scenarios: ${s.scenarios.map((x) => x.name).join(', ')}\n  targets:   ${s.targets.map((x) => x.name).join(', ')}\n`);
    }
    return 0;
  },
});
