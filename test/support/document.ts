// openapi.yaml as the tests read it: parsed once, with `$ref`s followed on demand.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export type Json = Record<string, unknown>;

export const document = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as Json;

export const escapePointer = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** Follows `$ref`s inside the document; returns the object and the JSON pointer it lives at. */
export function resolve(node: unknown, pointer: string): { node: Json; pointer: string } {
  let current = node as Json;
  let at = pointer;
  while (typeof current.$ref === 'string') {
    at = current.$ref.slice(1);
    current = at
      .split('/')
      .slice(1)
      .reduce<unknown>(
        (value, token) => (value as Json)[token.replace(/~1/g, '/').replace(/~0/g, '~')],
        document,
      ) as Json;
  }
  return { node: current, pointer: at };
}
