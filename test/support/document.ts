// The contracts as the tests read them, openapi.yaml (v1) and openapi.v2.yaml: parsed once, with `$ref`s
// followed on demand.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Scope } from '../../src/store/vocabulary.js';

export type Json = Record<string, unknown>;

const parsed = (file: string) => parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')) as Json;

/** v1's contract. */
export const document = parsed('openapi.yaml');
export const documents = { v1: document, v2: parsed('openapi.v2.yaml') } as const;
export type Version = keyof typeof documents;

export const escapePointer = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** Follows `$ref`s inside `within`; returns the object and the JSON pointer it lives at. */
export function resolve(node: unknown, pointer: string, within: Json = document): { node: Json; pointer: string } {
  let current = node as Json;
  let at = pointer;
  while (typeof current.$ref === 'string') {
    at = current.$ref.slice(1);
    current = at
      .split('/')
      .slice(1)
      .reduce<unknown>(
        (value, token) => (value as Json)[token.replace(/~1/g, '/').replace(/~0/g, '~')],
        within,
      ) as Json;
  }
  return { node: current, pointer: at };
}

/** The scope `operationId` needs in `version`'s contract (its `x-required-scope`); none where any valid key may call it. */
export function requiredScope(version: Version, operationId: string): Scope | undefined {
  for (const item of Object.values(documents[version].paths as Record<string, Json>)) {
    for (const operation of Object.values(item) as Json[]) {
      if (operation.operationId === operationId) return operation['x-required-scope'] as Scope | undefined;
    }
  }
  return undefined;
}
