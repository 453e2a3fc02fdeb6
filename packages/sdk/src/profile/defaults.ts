import { DEFAULTS } from '../defaults.js';

/** The profilers' defaults; their home is `DEFAULTS.profile` (one place for every default). */
export const PROFILE_DEFAULTS = DEFAULTS.profile;
