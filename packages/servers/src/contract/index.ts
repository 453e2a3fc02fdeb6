/**
 * Contract A as framework-free data and functions: every adapter wires these and adds nothing
 * observable of its own.
 */
export { contractA, contractAFile, JSON_CONTENT_TYPE, paths, type ContractA, type ContractScenario } from './contract-a.js';
export { loadContractAConfig, testDelayMs, type ContractAConfig } from './config.js';
export { contractError, errorCodeForStatus, type ContractError } from './errors.js';
export { isAuthorized, unauthorizedHeaders } from './auth.js';
export { ajvOptions, errorFromAjv, validateUserBody, requireObjectBody } from './validation.js';
export { jsonDepthError } from './json-depth.js';
export { computeEtag, isNotModified } from './etag.js';
export { createRateLimiter, type RateLimiter, type RateLimiterOptions, type RateLimitResult } from './rate-limit.js';
export { acceptsJson, acceptsGzip, jsonRequestError, corsHeaders, preflightHeaders } from './negotiation.js';
export { matchRoute, notRouted, pathnameOf, queryOf, hasMalformedEscape, isMalformedPath, unroutedRawPath } from './routing.js';
export { healthBody, pingBody, userWithQueryJson, authUserBody, createdUserBody, cachedUser, cacheControl } from './payloads.js';
export { answerClientError } from './client-error.js';
export { readJsonBody } from './read-json-body.js';
export type { ContractAAdapterModule, FairnessManifest } from './adapter.js';
