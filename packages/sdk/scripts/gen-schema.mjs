// Generates schema/result.schema.json from the zod result schema (the single source of truth).
import { mkdirSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { resultSchema, RESULT_SCHEMA_VERSION } from '../dist/result-schema.js';

const json = z.toJSONSchema(resultSchema, { target: 'draft-2020-12' });
json.$id = `https://benchsuite.dev/schema/result-v${RESULT_SCHEMA_VERSION}.json`;
json.title = 'benchsuite result';
mkdirSync(new URL('../schema/', import.meta.url), { recursive: true });
writeFileSync(new URL('../schema/result.schema.json', import.meta.url), `${JSON.stringify(json, null, 2)}\n`);
