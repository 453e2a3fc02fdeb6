import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

/** 1-based line of the first line of `file` containing `text` (where a profiler says a function starts). */
export function lineOf(file: string, text: string): number {
  const i = readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text));
  if (i < 0) throw new Error(`${text} not in ${file}`);
  return i + 1;
}

/**
 * Send GET requests one after another over one keep-alive connection until `maxRequests` were
 * answered or `maxMs` passed (a bound on the load, not a measurement). Returns how many were answered.
 */
export async function hammer(url: string, o: { maxRequests: number; maxMs: number }): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const deadline = performance.now() + o.maxMs;
  let done = 0;
  try {
    while (done < o.maxRequests && performance.now() < deadline) {
      await new Promise<void>((resolve, reject) => {
        const req = request(url, { agent }, (res) => {
          res.resume();
          res.once('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
        });
        req.once('error', reject);
        req.end();
      });
      done++;
    }
  } finally {
    agent.destroy();
  }
  return done;
}
