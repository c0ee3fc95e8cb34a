// Request bodies reach the pipeline unparsed: body.ts reads and judges them once the caller is known.
// Fastify would refuse a malformed Content-Type (415) before any route runs, which would answer before
// authentication, so the header is hidden from it; body.ts reads the client's own from the raw headers.
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Every body reaches the handler as its stream; `hideContentType` hides each request's before Fastify reads it. */
export function takeBodiesUnparsed(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
}

export function hideContentType(request: FastifyRequest): void {
  // Deleting a field that is not there would still make the headers object a slower dictionary.
  if ('content-type' in request.headers) delete request.headers['content-type'];
}
