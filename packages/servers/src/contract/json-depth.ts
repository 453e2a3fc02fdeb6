import { contractA } from './contract-a.js';
import { contractError, type ContractError } from './errors.js';

/**
 * Nesting depth of a parsed JSON value, capped: how many arrays and objects enclose its deepest
 * value, counting the value itself (`{}` and `[]` are 1, `{"a":[1]}` is 2, a string is 0).
 * Stops and returns `max + 1` as soon as the cap is passed, so the walk never goes deeper than
 * the limit it checks.
 *
 * Iterative on purpose: the input is exactly a value that may be too deep for the call stack.
 * `JSON.parse` in V8 is iterative and accepts any depth, but `JSON.stringify` (every server
 * echoes the body) throws a RangeError a few thousand levels down.
 *
 * @example
 * jsonDepth({ a: [[1]] }, 128) // 3
 */
export function jsonDepth(value: unknown, max: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 1;
  // Parallel stacks of containers and their depths: no allocation per visited value.
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop() as object;
    const depth = depths.pop() as number;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child !== 'object' || child === null) continue;
      if (depth + 1 > max) return max + 1;
      if (depth + 1 > deepest) deepest = depth + 1;
      nodes.push(child as object);
      depths.push(depth + 1);
    }
  }
  return deepest;
}

/**
 * The contract's depth check of a parsed request body: 400 `bad_request` when it nests deeper
 * than `limits.jsonDepth` (128), else `undefined`. It runs after the framework's own JSON parser
 * and before validation; `requireObjectBody` and `validateUserBody` call it, and Fastify (whose
 * built-in Ajv replaces `validateUserBody`) calls it from a `preValidation` hook.
 *
 * @example
 * jsonDepthError(JSON.parse('{"a":' + '['.repeat(200) + ']'.repeat(200) + '}')) // { status: 400, … }
 */
export function jsonDepthError(body: unknown): ContractError | undefined {
  const max = contractA.limits.jsonDepth;
  return jsonDepth(body, max) > max ? contractError('bad_request') : undefined;
}
