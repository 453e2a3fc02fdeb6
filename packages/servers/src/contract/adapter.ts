import type { Server } from 'node:http';
import type { ContractAConfig } from './config.js';

/**
 * Fairness manifest: which ecosystem piece a target uses for each concern, recorded in the
 * target's metadata so that a reader of the results sees what was compared.
 */
export interface FairnessManifest {
  [concern: string]: string;
  router: string;
  bodyParser: string;
  validation: string;
  compression: string;
  cors: string;
}

/** What every `src/adapters/<name>.ts` exports; `serve.ts` loads exactly one of them. */
export interface ContractAAdapterModule {
  manifest: FairnessManifest;
  /** Builds the server (not listening yet); `serve.ts` owns listen and shutdown. */
  createServer(config: ContractAConfig): Promise<Server>;
}
