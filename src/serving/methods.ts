// Which methods a path has, for the `Allow` header of a 405, on the contract's paths and on the server's
// own read-only paths (probes, the contract's files, the API reference, /metrics).
import type { FastifyInstance, onSendHookHandler, RouteHandlerMethod } from 'fastify';
import type { ContractOperation } from '../contract/document.js';
import { apiError, type ErrorAnswer } from '../contract/errorBody.js';
import { send } from './reply.js';
import { closeIfStopping } from './stopping.js';

export type AllowedMethods = (path: string) => string[];

export function allowedMethodsOf(operations: ContractOperation[]): AllowedMethods {
  const templates = new Map<string, { pattern: RegExp; methods: string[] }>();
  for (const { path, method } of operations) {
    let entry = templates.get(path);
    if (!entry) {
      const pattern = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      entry = { pattern: new RegExp(`^${pattern}$`), methods: [] };
      templates.set(path, entry);
    }
    entry.methods.push(method.toUpperCase());
  }
  return (path) => [...templates.values()].find(({ pattern }) => pattern.test(path))?.methods ?? [];
}

export const NO_SUCH_PATH = apiError('not_found', 'No such path');

export function methodNotAllowed(method: string, allowed: string[]): ErrorAnswer<405> {
  const allow = allowed.join(', ');
  return apiError('method_not_allowed', `${method} is not allowed here; use ${allow}`, { Allow: allow });
}

const READ_ONLY = ['GET', 'HEAD'];

const closeWhenStoppingHook: onSendHookHandler = (_request, reply, payload, done) => {
  closeIfStopping(reply);
  done(null, payload);
};

/**
 * A path of the server's own, outside the contract: GET, HEAD answered as GET without its body (the two
 * methods every general-purpose server supports, RFC 9110 §9.1), and 405 with `Allow` for any other
 * method, as the contract's paths answer.
 */
export function readOnlyRoute(app: FastifyInstance, url: string, handler: RouteHandlerMethod): void {
  // Its answers are not sent by send(), which tells each answer that the server is stopping.
  app.get(url, { exposeHeadRoute: true, onSend: closeWhenStoppingHook }, handler);
  app.route({
    method: app.supportedMethods.filter((method) => !READ_ONLY.includes(method)),
    url,
    handler: (request, reply) => send(reply, methodNotAllowed(request.method, READ_ONLY)),
  });
}
