import type { Reporter, TestModule } from 'vitest/node';

/**
 * Lists, after vitest's summary, why tests were skipped. The default reporter only counts skipped
 * tests; a test or suite that names its reason as `… (skipped: <reason>)` (the house convention for
 * a missing tool: chromium, wrk, a working `python3 -m venv`) is grouped here under that reason, so
 * a fresh machine's `npm test` says what it did not check and why.
 */
export default class SkipReasons implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const byReason = new Map<string, number>();
    const unnamed: string[] = [];
    for (const mod of testModules) {
      for (const test of mod.children.allTests('skipped')) {
        if (test.options.mode === 'todo') continue;
        const reason = /\(skipped: (.+?)\)(?: > |$)/.exec(test.fullName)?.[1];
        if (reason) byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
        else unnamed.push(`${test.project.name}: ${test.fullName}`);
      }
    }
    if (!byReason.size && !unnamed.length) return;
    const lines = ['', ' Skipped, by reason:'];
    for (const [reason, n] of byReason) lines.push(`   ${String(n).padStart(3)} × ${reason}`);
    for (const name of unnamed.slice(0, 10)) lines.push(`     1 × ${name}`);
    if (unnamed.length > 10) lines.push(`     … and ${unnamed.length - 10} more skipped without a named reason`);
    process.stdout.write(`${lines.join('\n')}\n\n`);
  }
}
