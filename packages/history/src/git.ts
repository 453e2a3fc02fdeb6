import { execFileSync } from 'node:child_process';

const git = (args: string[], cwd: string) => {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim() || null;
  } catch {
    return null;
  }
};

/**
 * The commit and branch of the git work tree at `cwd`, when there is one: `history add` records
 * them beside a run (a detached HEAD, as CI checks out, has no branch: null).
 */
export function gitFacts(cwd = process.cwd()): { commit: string | null; branch: string | null } {
  const commit = git(['rev-parse', 'HEAD'], cwd);
  const branch = commit ? git(['symbolic-ref', '--short', '-q', 'HEAD'], cwd) : null;
  return { commit, branch };
}
