import { contractA, type ErrorCode } from './contract-a.js';

/** A contract error ready to send: status plus the JSON body. */
export interface ContractError {
  status: number;
  body: { error: ErrorCode; fields?: string[] };
}

/**
 * The one error shape of Contract A.
 *
 * @example
 * contractError('unauthorized') // { status: 401, body: { error: 'unauthorized' } }
 */
export function contractError(code: ErrorCode): ContractError {
  return { status: contractA.errors[code], body: { error: code } };
}

/** 422 with the sorted names of the failing properties. */
export function validationError(fields: readonly string[]): ContractError {
  return { status: contractA.errors.validation_failed, body: { error: 'validation_failed', fields: [...fields] } };
}

/** The error code for a status the frameworks raise themselves (413 from a body limit…); unknown → `internal_error`. */
export function errorCodeForStatus(status: number): ErrorCode {
  for (const [code, s] of Object.entries(contractA.errors)) if (s === status) return code as ErrorCode;
  return 'internal_error';
}
