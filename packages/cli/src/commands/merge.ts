import { readFile } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { mergeK6, summariesIn, type SourcedSummary } from '@benchsuite/sdk';
import { defineCommand } from '../_cli.js';
import { EXIT, UsageError } from '../_errors.js';
import { parseThresholdFlag, ValueError } from '../_values.js';
import { runExitCode, writeOutputs } from './run.js';

const text = (raw: string) => {
  if (!raw.trim()) throw new ValueError('expected a value, got ""');
  return raw;
};

/** `benchsuite merge`: N k6 runners' outputs (a distributed run) as one result document. */
export const mergeCommand = defineCommand({
  name: 'merge',
  summary: "merge k6 runners' outputs (benchsuite export k6 on the k6-operator) into one result",
  positionals: [{ name: 'runner-output', help: 'files holding the runners\' "@@BS {…}" summary lines (kubectl logs of each runner)', required: true, variadic: true }],
  flags: {
    out: { type: 'value', short: 'o', value: 'DIR', parse: text, help: 'write results.json, report.md and report.html here', default: 'print the result JSON on stdout' },
    reference: { type: 'value', value: 'NAME', parse: text, help: 'target the relative figures are measured against', default: 'node-http when present, else the first target' },
    threshold: { type: 'value', value: 'EXPR', parse: parseThresholdFlag, repeatable: true, help: 'pass/fail checks on the merged figures, e.g. p99<50ms,errors<0.1%' },
  },
  examples: [
    ['benchsuite merge runner-*.log -o merged/', 'one result (and its reports) from every runner of every TestRun'],
    ['benchsuite merge runner-*.log --threshold "p99<50ms,errors<0.1%" > merged.json', 'the merged result on stdout; exit 99 when a threshold fails'],
  ],
  exitCodes: [
    [EXIT.ok, 'merged (and every threshold held)'],
    [EXIT.usage, "bad usage, a file that cannot be read or holds no runner summary, or runners that are not one whole run (a log given twice, a runner's segment missing)"],
    [EXIT.threshold, 'a threshold failed'],
  ],
  async run({ flags, positionals }, io) {
    const summaries: SourcedSummary[] = [];
    const problems: string[] = [];
    for (const file of positionals) {
      let textIn: string;
      try {
        textIn = await readFile(file, 'utf8');
      } catch (err) {
        problems.push(`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
        continue;
      }
      try {
        const found = summariesIn(textIn);
        if (!found.length) problems.push(`${file}: no runner summary (expected a line starting with "@@BS {" from a script of benchsuite export k6)`);
        summaries.push(...found.map((s) => ({ ...s, source: file })));
      } catch (err) {
        problems.push(`${file}: ${(err as Error).message}`);
      }
    }
    if (problems.length) throw new UsageError(problems);
    let result: ReturnType<typeof mergeK6>;
    try {
      result = mergeK6({ summaries, sources: positionals, ...(flags.reference ? { reference: flags.reference } : {}), ...(flags.threshold ? { thresholds: flags.threshold } : {}) });
    } catch (err) {
      throw new UsageError((err as Error).message.split('\n'));
    }
    const pairs = result.summaries.map((s) => `${s.scenario} × ${s.target}: ${s.requests} requests`).join('; ');
    io.stderr(`merged ${summaries.length} runner summaries: ${pairs}\n`);
    if (flags.out) {
      const dir = resolve(flags.out);
      await mkdir(dir, { recursive: true });
      const files = await writeOutputs(result, dir, io);
      io.stderr(`results: ${files.join('\n         ')}\n`);
    } else io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    for (const t of result.thresholds ?? []) io.stderr(`threshold ${t.expression} on ${t.scenario} × ${t.target}: ${t.pass ? 'passed' : 'FAILED'} (measured ${t.measured ?? 'nothing'})\n`);
    return runExitCode(result);
  },
});
