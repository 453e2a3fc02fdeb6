/**
 * Contract A as framework-free data and functions: every adapter wires these and adds nothing
 * observable of its own.
 */
export { contractA, contractAFile, JSON_CONTENT_TYPE, paths, route, type ContractA, type ContractRoute, type ContractScenario, type ErrorCode, type RouteStep } from './contract-a.js';
export { loadContractAConfig, testDelayMs, type ContractAConfig } from './config.js';
export { contractError, validationError, errorCodeForStatus, type ContractError } from './errors.js';
export { isAuthorized, unauthorizedHeaders } from './auth.js';
export { ajvOptions, errorFromAjv, isJsonObject, validateUserBody, requireObjectBody } from './validation.js';
export { jsonDepth, jsonDepthError } from './json-depth.js';
export { computeEtag, isNotModified } from './etag.js';
export { createRateLimiter, type RateLimiter, type RateLimiterOptions, type RateLimitResult } from './rate-limit.js';
export { acceptsJson, acceptsGzip, jsonRequestError, corsHeaders, preflightHeaders } from './negotiation.js';
export { matchRoute, notRouted, pathnameOf, queryOf, hasMalformedEscape, isMalformedPath, unroutedRawPath, type RouteMatch, type RoutingError } from './routing.js';
export { healthBody, pingBody, parseQuery, userWithQueryJson, authUserBody, createdUserBody, cachedUser, cacheControl, type CachedUser } from './payloads.js';
export { answerClientError, clientErrorResponse } from './client-error.js';
export { readJsonBody, type ReadJsonBodyOptions, type ReadJsonBodyResult } from './read-json-body.js';
export type { ContractAAdapterModule, FairnessManifest } from './adapter.js';
