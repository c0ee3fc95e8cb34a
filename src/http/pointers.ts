// Where a person who opens the server's address, or the API root, is sent: to the reference at /docs and
// to the contract. `/` answers a small JSON index, outside the contract like /healthz. `/v1` and `/v1/`
// are no operation, so they answer 404 with the Error body, as any unknown path under the API root does,
// but their message names both, and so do RFC 8631 links. `/docs/` redirects to /docs.
import type { FastifyInstance } from 'fastify';
import { API_ROOT } from '../contract/document.js';
import { apiError } from '../contract/errorBody.js';
import { VERSION } from '../version.js';
import { readOnlyRoute } from './methods.js';
import { send } from './reply.js';

const DOCS = '/docs';
const CONTRACT_YAML = `${API_ROOT}/openapi.yaml`;
const CONTRACT_JSON = `${API_ROOT}/openapi.json`;

/** RFC 8631: the documentation for people, and the description for programs. */
const LINKS = [
  `<${DOCS}>; rel="service-doc"; type="text/html"`,
  `<${CONTRACT_YAML}>; rel="service-desc"; type="application/yaml"`,
  `<${CONTRACT_JSON}>; rel="service-desc"; type="application/json"`,
].join(', ');

export const INDEX = {
  name: 'store-orders',
  version: VERSION,
  api: API_ROOT,
  docs: DOCS,
  contract: [CONTRACT_YAML, CONTRACT_JSON],
} as const;

const API_ROOT_IS_NO_OPERATION = apiError(
  'not_found',
  `${API_ROOT} is the API root, not an operation: its operations are described at ${DOCS} and in ${CONTRACT_YAML}`,
  { Link: LINKS },
);

export function registerPointers(app: FastifyInstance): void {
  readOnlyRoute(app, '/', (_request, reply) => reply.header('Link', LINKS).send(INDEX));
  for (const url of [API_ROOT, `${API_ROOT}/`]) {
    app.all(url, (_request, reply) => send(reply, API_ROOT_IS_NO_OPERATION));
  }
  // The reference has one address; a trailing slash would be another path, and a 404.
  readOnlyRoute(app, `${DOCS}/`, (_request, reply) => reply.redirect(DOCS, 301));
}
