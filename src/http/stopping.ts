// While the server stops, each answer closes its connection: a kept-alive socket would otherwise hold the
// stop open until keepAliveTimeout.
import type { FastifyInstance, FastifyReply } from 'fastify';

/** What each answer of `app` does, as it is sent: `Connection: close` once the app is stopping. */
export function closeConnectionsWhenStopping(app: FastifyInstance): (reply: FastifyReply) => void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  return (reply) => {
    if (closing) reply.header('Connection', 'close');
  };
}
