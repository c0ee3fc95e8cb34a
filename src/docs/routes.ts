// Serves the API reference at /docs, off the /v1 API: no key, and every asset from this server.
import type { FastifyInstance } from 'fastify';
import { readOnlyRoute } from '../serving/methods.js';
import { ASSETS_PATH, type DocsAssets, loadDocsAssets } from './assets.js';
import { CONTENT_SECURITY_POLICY, docsPage, INIT_SCRIPT } from './page.js';

const SECURITY_HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

export function registerDocs(app: FastifyInstance): void {
  let assets: DocsAssets | undefined;
  const loaded = () => (assets ??= loadDocsAssets(INIT_SCRIPT));

  readOnlyRoute(app, '/docs', (_request, reply) =>
    reply
      .headers(SECURITY_HEADERS)
      // Revalidated on every visit, so that a new version of the server brings its new asset names.
      .header('Cache-Control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(docsPage(loaded())),
  );

  readOnlyRoute(app, `${ASSETS_PATH}/:name`, async (request, reply) => {
    const asset = loaded().byName.get((request.params as { name: string }).name);
    // Answered as any unknown path is, by the app's not-found handler.
    if (!asset) return reply.callNotFound();
    reply
      .headers(SECURITY_HEADERS)
      // The name changes with the content, so a copy never goes stale.
      .header('Cache-Control', 'public, max-age=31536000, immutable')
      .header('Vary', 'Accept-Encoding')
      .type(asset.contentType);
    if (!acceptsGzip(request.headers['accept-encoding'])) return reply.send(asset.body);
    return reply.header('Content-Encoding', 'gzip').send(await asset.gzipped());
  });
}

/** True unless the client did not offer gzip or refused it with q=0 (RFC 9110 section 12.5.3). */
function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined) return false;
  return acceptEncoding.split(',').some((coding) => {
    const [name = '', ...parameters] = coding.split(';').map((part) => part.trim().toLowerCase());
    if (name !== 'gzip' && name !== '*') return false;
    return !parameters.some((parameter) => /^q=0(\.0{0,3})?$/.test(parameter));
  });
}
