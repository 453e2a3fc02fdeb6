import type { FairnessManifest } from '../contract/adapter.js';

/** The idiomatic Hono target's pieces; `hono-lean` starts from them. */
const honoManifest = {
  router: 'hono@4 default router (SmartRouter)',
  server: '@hono/node-server@2',
  bodyParser: 'hono validator("json") + hono bodyLimit (1 MiB)',
  validation: 'ajv@8 (shared) inside hono validator',
  compression: 'hono compress (CompressionStream, threshold 0, gzip only)',
  cors: 'hono cors',
  auth: 'shared isAuthorized',
  etag: 'shared computeEtag / isNotModified',
  rateLimit: 'shared fixed-window limiter',
  negotiation: 'shared acceptsJson',
  timeout: 'hono timeout (503 HTTPException)',
  notFound: 'app.notFound + shared notRouted (404/405)',
  contractEdges: 'shared raw-path check middleware (escaped, dot and backslash paths → 400/404 as sent); JSON 400 from the app errorHandler; shared JSON depth limit',
} as const satisfies FairnessManifest;

/**
 * Fairness manifests of the Node targets: which piece each one uses per concern. Kept in a
 * framework-free file so that `node-targets.ts` can read them without loading five frameworks;
 * each adapter re-exports its own entry as `manifest`.
 */
export const manifests = {
  'node-http': {
    router: 'shared matchRoute over the contract route table',
    bodyParser: 'shared readJsonBody (1 MiB)',
    validation: 'ajv@8 (shared, compiled once)',
    compression: 'node:zlib gzipSync',
    cors: 'headers written by hand (contract values)',
    auth: 'shared isAuthorized (timingSafeEqual)',
    etag: 'shared computeEtag / isNotModified',
    rateLimit: 'shared fixed-window limiter',
    negotiation: 'shared acceptsJson',
    timeout: 'setTimeout per request',
    notFound: 'shared notRouted (404/405)',
  },
  express: {
    router: 'express@5 router (strict, case-sensitive)',
    bodyParser: 'express.json (body-parser@2, limit 1 MiB, inflate off)',
    validation: 'ajv@8 (shared, compiled once)',
    compression: 'compression@1 (threshold 0, gzip only)',
    cors: 'cors@2',
    auth: 'shared isAuthorized (timingSafeEqual)',
    etag: 'shared computeEtag / isNotModified (express etag off)',
    rateLimit: 'shared fixed-window limiter',
    negotiation: 'shared acceptsJson',
    timeout: 'middleware with setTimeout (connect-timeout style)',
    notFound: 'shared notRouted (404/405)',
  },
  fastify: {
    router: 'fastify@5 (find-my-way)',
    bodyParser: 'fastify built-in JSON parser (bodyLimit 1 MiB)',
    validation: 'fastify built-in ajv@8 (route body schema; errors mapped to 400/422)',
    compression: '@fastify/compress@9 (threshold 0, gzip only)',
    cors: '@fastify/cors@11 (per-route config)',
    serializer: 'fastify default (JSON.stringify, no response schema)',
    auth: 'shared isAuthorized in an onRequest hook',
    etag: 'shared computeEtag / isNotModified',
    rateLimit: 'shared fixed-window limiter in an onRequest hook',
    negotiation: 'shared acceptsJson in an onRequest hook',
    timeout: 'onRequest hook with setTimeout',
    notFound: 'setNotFoundHandler + shared notRouted (404/405)',
    contractEdges:
      'clientErrorHandler answering parser errors as node:http does (shared answerClientError); rewriteUrl sends escaped/dot paths to the not-found handler; shared JSON depth limit in a preValidation hook',
  },
  hono: honoManifest,
  'hono-lean': {
    ...honoManifest,
    bodyParser:
      'hono validator("json") on @hono/node-server\'s direct body read; 1 MiB check from the node IncomingMessage ' +
      '(Content-Length; a chunked body is read capped into incoming.rawBody), no hono bodyLimit',
    variantOf: 'hono',
    differs:
      'only the body-size check: hono bodyLimit reads c.req.raw.body, which makes @hono/node-server build a web-stream ' +
      'Request and read every JSON body through it; this check never touches the web Request',
  },
  koa: {
    router: '@koa/router@15 (strict, sensitive)',
    bodyParser: 'shared readJsonBody (koa has no built-in parser; 1 MiB)',
    validation: 'ajv@8 (shared, compiled once)',
    compression: 'koa-compress@5 (threshold 0, gzip only)',
    cors: '@koa/cors@5',
    auth: 'shared isAuthorized',
    etag: 'shared computeEtag / isNotModified',
    rateLimit: 'shared fixed-window limiter',
    negotiation: 'shared acceptsJson',
    timeout: 'middleware racing next() with setTimeout',
    notFound: 'last middleware + shared notRouted (404/405)',
    contractEdges:
      'outer middleware maps unexpected errors to the JSON internal_error body; app.silent (no per-request stderr); Accept-Encoding reduced to gzip-or-identity before koa-compress; shared JSON depth limit',
  },
} as const satisfies Record<string, FairnessManifest>;

/** Names of the Node targets of Contract A. */
export type NodeTargetName = keyof typeof manifests;

/** The names, in display order. */
export const nodeTargetNames = Object.keys(manifests) as NodeTargetName[];
