// Where a person who opens the server's address, or an API root, is sent: to the reference at /docs and to
// the contracts (each as written and as its OpenAPI 3.1 rendition). `/` answers a small JSON index, outside
// the contracts like /healthz. `/v1`, `/v2` and the same with a trailing slash are no operation, so they
// answer 404 with the Error body, as any unknown path under an API root does, but their message names
// both, and so do RFC 8631 links. `/docs/` redirects to /docs.
import type { FastifyInstance } from 'fastify';
import { type Contract, CONTRACT_DOCUMENTS } from '../contract/document.js';
import { apiError } from '../contract/errorBody.js';
import { readOnlyRoute } from '../serving/methods.js';
import { send } from '../serving/reply.js';
import { VERSION } from '../version.js';

const DOCS = '/docs';
const DOCS_LINK = `<${DOCS}>; rel="service-doc"; type="text/html"`;

/** A contract's files: as written (OpenAPI 3.0, first), as JSON, then its OpenAPI 3.1 rendition likewise. */
function contractFiles({ root }: Contract): string[] {
  return CONTRACT_DOCUMENTS.map(({ name }) => `${root}/${name}`);
}

/** RFC 8631: the documentation for people, and the descriptions for programs. */
function linksTo(contracts: readonly Contract[]): string {
  const descriptions = contracts.flatMap(({ root }) =>
    CONTRACT_DOCUMENTS.map(({ name, type }) => `<${root}/${name}>; rel="service-desc"; type="${type}"`),
  );
  return [DOCS_LINK, ...descriptions].join(', ');
}

/**
 * `api` and `contract` name v1, as they did before v2 was served; `versions` names every version's root
 * and contract files.
 */
function indexOf(contracts: readonly Contract[]) {
  const [first] = contracts as [Contract];
  return {
    name: 'store-orders',
    version: VERSION,
    api: first.root,
    docs: DOCS,
    contract: contractFiles(first),
    versions: contracts.map((contract) => ({ api: contract.root, contract: contractFiles(contract) })),
  };
}

/** `contracts` oldest first, as the index lists them. */
export function registerPointers(app: FastifyInstance, contracts: readonly Contract[]): void {
  const index = indexOf(contracts);
  const links = linksTo(contracts);
  readOnlyRoute(app, '/', (_request, reply) => reply.header('Link', links).send(index));
  for (const contract of contracts) {
    const [yaml, yaml31] = CONTRACT_DOCUMENTS.filter(({ type }) => type === 'application/yaml').map(
      ({ name }) => `${contract.root}/${name}`,
    );
    const noOperation = apiError(
      'not_found',
      `${contract.root} is the API root, not an operation: its operations are described at ${DOCS} and in ${yaml} (OpenAPI 3.1: ${yaml31})`,
      { Link: linksTo([contract]) },
    );
    for (const url of [contract.root, `${contract.root}/`]) {
      app.all(url, (_request, reply) => send(reply, noOperation));
    }
  }
  // The reference has one address; a trailing slash would be another path, and a 404.
  readOnlyRoute(app, `${DOCS}/`, (_request, reply) => reply.redirect(DOCS, 301));
}
