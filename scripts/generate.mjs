// `npm run generate`: every file of generated/ that is made from a contract (scripts/contracts.mjs). For each
// contract: its types (openapi-typescript); its OpenAPI 3.1 rendition, the contract as
// @scalar/openapi-upgrader upgrades it, never edited by hand (openapi-backend validates by the rules of 3.0,
// so the hand-written contract stays 3.0); and the rendition's types, which carry its `webhooks` (the
// contract's `x-webhooks`). check-generated.mjs writes the same files into a scratch folder and compares.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { upgrade } from '@scalar/openapi-upgrader';
import { parse, stringify } from 'yaml';
import { CONTRACTS } from './contracts.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The OpenAPI 3.1 rendition of the contract `document` whose text is `yamlText`, as the file holds it. */
export function renditionOf(document, yamlText) {
  const upgraded = upgrade(parse(yamlText), '3.1');
  const note =
    `# The OpenAPI 3.1 rendition of ${document}, written by \`npm run generate\` (scripts/generate.mjs) with\n` +
    `# @scalar/openapi-upgrader. Do not edit it: edit ${document}, then run \`npm run generate\`.\n`;
  // Quoted as YAML 1.1 needs, so that a 1.1 reader too reads a string such as 2026-11-23T10:15:30.123Z as
  // a string, not a timestamp; and checked to read the same by the rules of 1.2, the server's.
  const text = note + stringify(upgraded, { lineWidth: 0, version: '1.1' });
  for (const version of ['1.1', '1.2']) {
    if (!isDeepStrictEqual(parse(text, { version }), upgraded)) {
      throw new Error(`The rendition of ${document} would not read back the same by the rules of YAML ${version}`);
    }
  }
  return text;
}

/** openapi-typescript's CLI, as `npm run generate` has always run it; its output when it fails. */
function openapiTypescript(input, output) {
  const result = spawnSync(join(root, 'node_modules', '.bin', 'openapi-typescript'), [input, '-o', output], {
    cwd: root,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`openapi-typescript ${input} failed:\n${result.stdout}${result.stderr}`);
}

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/**
 * Writes every generated file under `target` (the repository's root, or a scratch folder), at its path
 * in the repository; answers each file with the contract it comes from.
 */
export function generate(target) {
  const written = [];
  for (const { document, types, rendition, renditionTypes } of CONTRACTS) {
    mkdirSync(dirname(join(target, types)), { recursive: true });
    openapiTypescript(join(root, document), join(target, types));
    write(join(target, rendition), renditionOf(document, readFileSync(join(root, document), 'utf8')));
    openapiTypescript(join(target, rendition), join(target, renditionTypes));
    written.push(...[types, rendition, renditionTypes].map((file) => ({ file, from: document })));
  }
  return written;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    for (const { file, from } of generate(root)) console.log(`${file} from ${from}`);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
