import { Ajv, type ErrorObject } from 'ajv';
import { contractA } from './contract-a.js';
import { contractError, validationError, type ContractError } from './errors.js';
import { jsonDepthError } from './json-depth.js';

/**
 * Ajv options every validator of the contract must use (Fastify's built-in Ajv gets them too):
 * all errors (so `fields` lists every failing property) and no type coercion (Fastify's default
 * `coerceTypes: 'array'` would turn `"name": 1` into `"1"` and accept it).
 */
export const ajvOptions = { allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: false } as const;

// Compiled once at module load: validation is on the hot path of four scenarios.
const validateUser = new Ajv(ajvOptions).compile(contractA.validationSchema);

/**
 * Maps Ajv errors to the contract: a body that is not an object is a 400 (it is not a payload at
 * all); anything else is a 422 listing the failing top-level property names, sorted.
 */
export function errorFromAjv(errors: readonly Pick<ErrorObject, 'instancePath' | 'keyword' | 'params'>[]): ContractError {
  const fields = new Set<string>();
  for (const e of errors) {
    if (e.instancePath === '' && e.keyword === 'type') return contractError('bad_request');
    if (e.keyword === 'required') fields.add(String((e.params as { missingProperty?: unknown }).missingProperty));
    else fields.add(decodePointer(e.instancePath.split('/')[1] ?? ''));
  }
  return validationError([...fields].sort());
}

const decodePointer = (segment: string): string => segment.replaceAll('~1', '/').replaceAll('~0', '~');

/** True for a plain JSON object (not an array, not null). */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates a parsed body against the contract schema (routes with the `validate` step): 400 for
 * a non-object or a body nested deeper than `limits.jsonDepth`, then Ajv's 422.
 *
 * @returns `undefined` when valid, else the 400 / 422 to send.
 */
export function validateUserBody(body: unknown): ContractError | undefined {
  const e = requireObjectBody(body);
  if (e) return e;
  return validateUser(body) ? undefined : errorFromAjv(validateUser.errors ?? []);
}

/**
 * For routes with `parse` but no `validate` (json-post): any JSON object is accepted, up to
 * `limits.jsonDepth` levels of nesting (deeper → 400, see `jsonDepthError`).
 */
export function requireObjectBody(body: unknown): ContractError | undefined {
  return isJsonObject(body) ? jsonDepthError(body) : contractError('bad_request');
}
