// The hand-written contracts, one per major version, each with the types generated from it.
export const CONTRACTS = [
  { major: 1, document: 'openapi.yaml', types: 'generated/openapi.d.ts' },
  { major: 2, document: 'openapi.v2.yaml', types: 'generated/openapi.v2.d.ts' },
];
