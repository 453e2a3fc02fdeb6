export {
  contractA,
  contractAFile,
  loadContractAConfig,
  createRateLimiter,
  type RateLimiter,
  type RateLimiterOptions,
  type RateLimitResult,
  computeEtag,
  isNotModified,
  isAuthorized,
  type ContractA,
  type ContractAConfig,
  type ContractAAdapterModule,
  type FairnessManifest,
} from './contract/index.js';
export { contractAScenarios, contractAScenariosByName, learnEtag, type ContractAScenarioName } from './contract-a-scenarios.js';
export { nodeTargets, contractATargets, installedVersion, serveScript, type NodeTargetName } from './node-targets.js';
export { manifests as contractAManifests, nodeTargetNames } from './adapters/manifests.js';
export { gatewayScenarios, gatewayMessageText, gatewayMessagesBody, gatewayApiKey, gatewayModelId } from './gateway-scenarios.js';
export {
  gatewayTargets,
  fastifyGateway,
  fastapi1w,
  fastapi1wHttpxDefaults,
  fastapi1wAiohttp,
  fastapiNw,
  fastapiWorkers,
  hummingbirdGateway,
  gatewayUpstreamPoolSize,
  gatewayServerCpus,
} from './gateway-targets.js';
export { serverCpus, parseCpuList, SERVER_CPUS_ENV } from './server-cpus.js';
export { stubBackendService, stubBackendMain, createStubBackend, type StubBackendOptions, type StubBackendStats } from './stub-backend/index.js';
export { createFastifyGateway, type FastifyGatewayOptions } from './gateway/fastify-gateway.js';
export { contractB, contractBPath, readGatewayConfig, type ContractB, type GatewayConfig } from './gateway/contract.js';
export { ensureFastapiVenv, ensureVenv, fastapiDir, type EnsureFastapiVenvOptions, type FastapiVenvResult, type EnsureVenvOptions, type VenvResult } from './gateway/fastapi-venv.js';
export { buildHummingbird, hummingbirdBinary, hummingbirdUnavailableReason } from './gateway/hummingbird-build.js';
export { contractC, contractCFile, renderPage as contractCPage, type ContractC } from './contract-c/contract-c.js';
export {
  pythonScenarios,
  pythonTargets,
  nodeHttpC,
  pythonFastapi1w,
  pythonFastapiNw,
  pythonFastapiWorkers,
  pythonLitestar,
  pythonHttpServer,
  pythonWebDir,
  ensurePythonWebVenv,
} from './python-suite.js';
