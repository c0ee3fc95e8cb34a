// The server's own read-only paths beside the API: the health and readiness probes, and the contracts it
// serves, as written (YAML) and as JSON, and likewise their OpenAPI 3.1 renditions.
import type { FastifyInstance } from 'fastify';
import { CONTRACT_DOCUMENTS, type ServedContract, textOf } from '../contract/document.js';
import { apiError } from '../contract/errorBody.js';
import { readOnlyRoute } from '../serving/methods.js';
import { send } from '../serving/reply.js';
import type { Store } from '../store/store.js';
import { VERSION } from '../version.js';

const NOT_READY = apiError('service_unavailable', 'The database is not answering');

export function registerProbes(app: FastifyInstance, store: Store): void {
  // The version lets an operator see which release answers, behind a load balancer say.
  readOnlyRoute(app, '/healthz', () => ({ status: 'ok', version: VERSION }));
  readOnlyRoute(app, '/readyz', async (_request, reply) => {
    let ready = false;
    try {
      ready = await store.isReady();
    } catch {
      // A database that throws is as unready as one that answers no.
    }
    return ready ? { status: 'ready' } : send(reply, NOT_READY);
  });
}

/** Each version's contract under its own root: /v1/openapi.yaml, /v2/openapi.3.1.json and so on. */
export function registerContractFiles(app: FastifyInstance, contracts: readonly ServedContract[]): void {
  for (const contract of contracts) {
    for (const document of CONTRACT_DOCUMENTS) {
      const text = textOf(contract, document);
      readOnlyRoute(app, `${contract.root}/${document.name}`, (_request, reply) => reply.type(document.type).send(text));
    }
  }
}
