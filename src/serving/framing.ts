// Message framing Node's parser lets through but HTTP/1.1 does not: a missing or repeated Host, and transfer
// codings other than chunked. Judged on every request of every listener, before routing, as a malformed
// request would be.
import type { IncomingMessage } from 'node:http';
import { apiError, type ErrorAnswer } from '../contract/errorBody.js';
import { notImplemented } from './errors.js';
import { sentFields } from './rawHeaders.js';

export function framingError(request: IncomingMessage): ErrorAnswer | undefined {
  // The fields as sent: Node's parsed headers drop or join repeated ones.
  const { hosts, codings } = sentFields(request);
  // RFC 9112 §3.2: an HTTP/1.1 request needs exactly one Host; HTTP/1.0 may leave it out.
  const needsHost = request.httpVersion !== '1.0';
  if (hosts > 1 || (needsHost && hosts === 0)) {
    return apiError('bad_request', 'A request must carry exactly one Host field', {
      Connection: 'close',
    });
  }
  // RFC 9112 §6.1: Node decodes chunked alone, and refuses chunked not sent last; any other coding
  // (gzip, chunked) would be read as if it were plain.
  if (codings?.some((value) => value.split(',').some(otherCoding))) {
    return notImplemented('A transfer coding other than chunked');
  }
  return undefined;
}

function otherCoding(coding: string): boolean {
  return !['', 'chunked'].includes(coding.trim().toLowerCase());
}
