// While the server stops, each answer closes its connection: a kept-alive socket would otherwise hold the
// stop open until keepAliveTimeout. Answers are told so where they are sent (reply.ts, and the read-only
// routes of methods.ts), not by a hook every request would run.
import type { FastifyInstance, FastifyReply } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Set once the server begins to close. */
    stopping: boolean;
  }
}

export function closeConnectionsWhenStopping(app: FastifyInstance): void {
  app.decorate('stopping', false);
  app.addHook('preClose', (done) => {
    app.stopping = true;
    done();
  });
}

/** `Connection: close` on the answer, once its server is stopping. */
export function closeIfStopping(reply: FastifyReply): void {
  if (reply.server.stopping) reply.header('connection', 'close');
}
