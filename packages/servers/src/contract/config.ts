import { contractA } from './contract-a.js';

/** Runtime settings of a Contract A server, read from the environment (names in `contractA.env`). */
export interface ContractAConfig {
  /** Requests per window and client on the rate-limited route (`RATE_LIMIT_MAX`, default 50). */
  rateLimitMax: number;
  /** Rate-limit window in ms (`RATE_LIMIT_WINDOW_MS`, default 10000). */
  rateLimitWindowMs: number;
  /** Budget of the production-stack route before it answers 503 (`HANDLER_TIMEOUT_MS`, default 30000). */
  handlerTimeoutMs: number;
  /** Test hooks on (`CONTRACT_A_TEST_HOOKS=1`): the stack route honours `x-test-delay-ms`. Never on in a benchmark. */
  testHooks: boolean;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

/**
 * Reads the server settings from `env`, falling back to the contract's defaults.
 * Throws on a malformed value: a server that silently ignores a typo measures the wrong thing.
 *
 * @example
 * loadContractAConfig({ RATE_LIMIT_MAX: '5' }).rateLimitMax // 5
 */
export function loadContractAConfig(env: NodeJS.ProcessEnv = process.env): ContractAConfig {
  const { limits, env: names, testHooks } = contractA;
  return {
    rateLimitMax: positiveInt(env, names.rateLimitMax, limits.rateLimit.max),
    rateLimitWindowMs: positiveInt(env, names.rateLimitWindowMs, limits.rateLimit.windowMs),
    handlerTimeoutMs: positiveInt(env, names.handlerTimeoutMs, limits.handlerTimeoutMs),
    testHooks: env[names.testHooks] === testHooks.enabledValue,
  };
}

/**
 * Test hook: milliseconds the stack handler should sleep, from the `x-test-delay-ms` header.
 * Always 0 unless `config.testHooks` is on; lets the parity test provoke the 503 timeout.
 */
export function testDelayMs(config: ContractAConfig, header: string | string[] | undefined | null): number {
  if (!config.testHooks || typeof header !== 'string') return 0;
  const ms = Number(header);
  return Number.isInteger(ms) && ms > 0 ? ms : 0;
}
