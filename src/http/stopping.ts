// While the server stops, each answer closes its connection: a kept-alive socket would otherwise hold the
// stop open until keepAliveTimeout.
import type { FastifyInstance } from 'fastify';

export function closeConnectionsWhenStopping(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });
}
