// The hand-written contracts, one per major version, each with what `npm run generate` makes of it
// (scripts/generate.mjs): its types, its OpenAPI 3.1 rendition, and the rendition's types.
import { basename } from 'node:path';

export const CONTRACTS = [
  {
    major: 1,
    document: 'openapi.yaml',
    types: 'generated/openapi.d.ts',
    rendition: 'generated/openapi.3.1.yaml',
    renditionTypes: 'generated/openapi.3.1.d.ts',
  },
  {
    major: 2,
    document: 'openapi.v2.yaml',
    types: 'generated/openapi.v2.d.ts',
    rendition: 'generated/openapi.v2.3.1.yaml',
    renditionTypes: 'generated/openapi.v2.3.1.d.ts',
  },
];

/** The YAML files the server serves, each contract and its rendition, in that order. */
export const SERVED_DOCUMENTS = CONTRACTS.flatMap(({ document, rendition }) => [document, rendition]);

/** The name of the JSON that the build makes of a served YAML file in dist/, and of its digest: `openapi.v2.3.1`. */
export const builtName = (file) => basename(file, '.yaml');
