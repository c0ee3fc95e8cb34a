// The /docs page: Scalar's API reference over the served contract, with nothing fetched from elsewhere.
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
  // Four operations: every tag open shows all of them at once.
  defaultOpenAllTags: true,
  // Its button opens Scalar's hosted client on another host.
  hideClientButton: true,
  // A download would carry the servers added below; the contract itself is at /v1/openapi.yaml.
  documentDownloadType: 'none',
} as const;

/**
 * Loads the served contract and starts Scalar on it. The contract's servers are the production, staging
 * and quickstart hosts and the default local address, for the whole document and again for sendMessage;
 * "Try it" must call the server that serves this page, wherever it listens, so that server is put first
 * in each list (the first is the one selected).
 */
export const INIT_SCRIPT = `'use strict';
fetch('/v1/openapi.json')
  .then((response) => response.json())
  .then((contract) => {
    const here = { url: location.origin + '/v1', description: 'This server' };
    const withHere = (servers) => [here, ...(servers || []).filter((server) => server.url !== here.url)];
    contract.servers = withHere(contract.servers);
    for (const pathItem of Object.values(contract.paths)) {
      if (pathItem.servers) pathItem.servers = withHere(pathItem.servers);
      for (const operation of Object.values(pathItem)) {
        if (operation && operation.servers) operation.servers = withHere(operation.servers);
      }
    }
    Scalar.createApiReference('#app', { content: contract, ...${JSON.stringify(SCALAR_CONFIGURATION)} });
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
