// Part of the build: openapi.yaml parsed once here, and openapi.v2.yaml likewise (dist/openapi.v2.*), and
// each one's OpenAPI 3.1 rendition (generated/openapi.3.1.yaml into dist/openapi.3.1.*), so that the server
// reads JSON at start instead of parsing YAML. dist/openapi.json is the document exactly as GET /v1/openapi.json serves it;
// dist/openapi.yaml.sha256 names the YAML it came from, so a server whose openapi.yaml was edited after the
// build parses the YAML again rather than use a stale copy (src/contract/document.ts).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { builtName, SERVED_DOCUMENTS } from './contracts.mjs';

const target = new URL('../dist/', import.meta.url);
mkdirSync(target, { recursive: true });
for (const file of SERVED_DOCUMENTS) {
  const name = builtName(file);
  const yamlText = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
  writeFileSync(new URL(`${name}.json`, target), JSON.stringify(parse(yamlText)));
  writeFileSync(new URL(`${name}.yaml.sha256`, target), createHash('sha256').update(yamlText).digest('hex'));
}
