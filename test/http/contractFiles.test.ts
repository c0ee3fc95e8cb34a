// The files each version serves of its contract under its root, without a key: the contract as written
// (OpenAPI 3.0) and its OpenAPI 3.1 rendition (generated/, by `npm run generate`), each as YAML, the file's
// very text, and as JSON, that text parsed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { API_VERSIONS, CONTRACT_FILES, RENDITION_FILES } from '../../src/contract/document.js';
import { useServer } from '../support/server.js';

const t = useServer();

const fileText = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

interface Document {
  openapi: string;
  info: { version: string };
  paths: object;
  webhooks?: { message?: unknown };
  'x-webhooks'?: { message?: unknown };
}

async function served(path: string): Promise<{ yamlText: string; document: Document }> {
  const yaml = await fetch(`${t.server.baseUrl}${path}.yaml`);
  expect(yaml.status).toBe(200);
  expect(yaml.headers.get('content-type')).toMatch(/^application\/yaml/);
  const json = await fetch(`${t.server.baseUrl}${path}.json`);
  expect(json.status).toBe(200);
  expect(json.headers.get('content-type')).toMatch(/^application\/json/);
  return { yamlText: await yaml.text(), document: (await json.json()) as Document };
}

describe.each(API_VERSIONS)('under /%s', (version) => {
  it.each([
    ['openapi', CONTRACT_FILES[version], /^3\.0\.\d+$/],
    ['openapi.3.1', RENDITION_FILES[version], /^3\.1\.\d+$/],
  ])('serves %s.yaml as %s holds it, and .json as its parse', async (name, file, openapi) => {
    const { yamlText, document } = await served(`/${version}/${name}`);
    expect(yamlText).toBe(fileText(file));
    expect(document).toEqual(parse(yamlText));
    expect(document.openapi).toMatch(openapi);
  });

  it('serves as OpenAPI 3.1 the same contract, its message webhook in `webhooks` where 3.0 has `x-webhooks`', async () => {
    const contract = await served(`/${version}/openapi`);
    const rendition = await served(`/${version}/openapi.3.1`);
    expect(rendition.document.info).toEqual(contract.document.info);
    expect(Object.keys(rendition.document.paths)).toEqual(Object.keys(contract.document.paths));
    expect(contract.document['x-webhooks']?.message).toBeDefined();
    expect(rendition.document['x-webhooks']).toBeUndefined();
    expect(rendition.document.webhooks?.message).toMatchObject({ post: { operationId: 'deliverMessage' } });
    expect(rendition.yamlText).toMatch(/^# The OpenAPI 3\.1 rendition of /);
  });
});
