// The server's own read-only paths beside the API: the health and readiness probes, and the contract it
// serves, as written (YAML) and as JSON.
import type { FastifyInstance } from 'fastify';
import { API_ROOT, type Contract } from '../contract/document.js';
import { apiError } from '../contract/errorBody.js';
import type { Store } from '../store/store.js';
import { VERSION } from '../version.js';
import { readOnlyRoute } from './methods.js';
import { send } from './reply.js';

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

export function registerContractFiles(app: FastifyInstance, contract: Contract): void {
  readOnlyRoute(app, `${API_ROOT}/openapi.yaml`, (_request, reply) =>
    reply.type('application/yaml').send(contract.yamlText),
  );
  readOnlyRoute(app, `${API_ROOT}/openapi.json`, (_request, reply) =>
    reply.type('application/json').send(contract.jsonText),
  );
}
