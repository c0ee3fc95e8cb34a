// The /docs page: Scalar's API reference over both served contracts, v2 first, with nothing fetched from elsewhere.
import { CONTRACT_DOCUMENTS } from '../contract/document.js';
import { ASSETS_PATH, type DocsAssets } from './assets.js';

/**
 * Scalar's configuration. Every option that would reach another host is off: users read these docs
 * offline and behind firewalls, and the page's Content-Security-Policy would refuse such requests anyway.
 */
export const SCALAR_CONFIGURATION = {
  authentication: { preferredSecurityScheme: 'bearerAuth' },
  // The default fonts come from Scalar's font CDN; the system's fonts are used instead.
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  // Three or four operations per version: every tag open shows all of them at once.
  defaultOpenAllTags: true,
  // Its button opens Scalar's hosted client on another host.
  hideClientButton: true,
  // A download would carry the servers added below; each contract itself is at /v2/openapi.yaml and /v1/openapi.yaml.
  documentDownloadType: 'none',
} as const;

/** The versions the page shows, in the order of Scalar's document selector; the first is the default. */
export const DOCS_VERSIONS = [
  { root: '/v2', title: 'API v2' },
  { root: '/v1', title: 'API v1' },
] as const;

/**
 * The paragraph that opens a version's introduction on the page: links to each file its contract is served
 * as, OpenAPI 3.0 (as written) and 3.1 (its rendition), YAML and JSON.
 */
export function contractLinks(root: string): string {
  const files = (openapi: string) =>
    CONTRACT_DOCUMENTS.filter((document) => document.openapi === openapi)
      .map(({ name, type }) => `[${type === 'application/json' ? 'JSON' : 'YAML'}](${root}/${name})`)
      .join(', ');
  return `This contract as a file: OpenAPI 3.0 ${files('3.0')}; OpenAPI 3.1 ${files('3.1')}.`;
}

/**
 * Loads each served contract and starts Scalar on all of them, one document per version (its multi-document
 * `sources`), v2 selected, each introduction opened by links to its contract's files (contractLinks).
 * Two changes make "Try it" useful on this server:
 * - The contracts' servers are the production and staging hosts and the default local address (no operation
 *   lists servers of its own: test/contract/servers.test.ts); "Try it" must call the server that serves this
 *   page, wherever it listens, so that server's root for the version (`/v2` or `/v1`) is put first in the
 *   list (the first is the one selected).
 * - Scalar sends every parameter that has an example, optional ones included: v2's listOrders would go out
 *   with its example cursor and every example filter, which together match no order of a server but the
 *   examples' (`store-orders init --examples`). An optional parameter's example
 *   is kept, as an example Scalar leaves unticked (`x-disabled`), so that "Try it" sends the required
 *   parameters only until the user ticks more.
 */
export const INIT_SCRIPT = `'use strict';
const versions = ${JSON.stringify(DOCS_VERSIONS)};
const contractLinks = ${JSON.stringify(Object.fromEntries(DOCS_VERSIONS.map(({ root }) => [root, contractLinks(root)])))};
const optionalUnticked = (parameter) => {
  if (!parameter || parameter.required || !('example' in parameter)) return;
  parameter.examples = { default: { value: parameter.example, 'x-disabled': true } };
  delete parameter.example;
};
const forThisServer = (contract, root) => {
  const here = { url: location.origin + root, description: 'This server' };
  const withHere = (servers) => [here, ...(servers || []).filter((server) => server.url !== here.url)];
  contract.servers = withHere(contract.servers);
  contract.info.description = contractLinks[root] + '\\n\\n' + (contract.info.description || '');
  for (const pathItem of Object.values(contract.paths)) {
    (pathItem.parameters || []).forEach(optionalUnticked);
    for (const operation of Object.values(pathItem)) {
      if (!operation || typeof operation !== 'object' || Array.isArray(operation)) continue;
      (operation.parameters || []).forEach(optionalUnticked);
    }
  }
  Object.values((contract.components || {}).parameters || {}).forEach(optionalUnticked);
  return contract;
};
const load = ({ root }) =>
  fetch(root + '/openapi.json').then((response) => {
    if (!response.ok) throw new Error(root + '/openapi.json answered ' + response.status);
    return response.json();
  });
Promise.all(versions.map(load))
  .then((contracts) => {
    const sources = versions.map(({ root, title }, index) => ({
      title,
      slug: root.slice(1),
      content: forThisServer(contracts[index], root),
      default: index === 0,
    }));
    Scalar.createApiReference('#app', { sources, ...${JSON.stringify(SCALAR_CONFIGURATION)} });
  })
  .catch((error) => {
    document.getElementById('app').textContent = 'The API contract could not be loaded: ' + error.message;
  });
`;

/**
 * Scripts only from this server. Styles also inline: parts of Scalar write style elements and attributes
 * that a nonce does not cover (tried: Chromium then refuses them). Images may be data: URLs, like the
 * empty icon that keeps the browser from asking for /favicon.ico.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function docsPage(assets: DocsAssets): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Store Orders API reference</title>
    <link rel="icon" href="data:,">
  </head>
  <body>
    <div id="app"></div>
    <script src="${ASSETS_PATH}/${assets.renderer.name}"></script>
    <script src="${ASSETS_PATH}/${assets.init.name}"></script>
  </body>
</html>
`;
}
