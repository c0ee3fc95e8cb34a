// Node keeps only the first of repeated `Authorization` and `Content-Type` fields and drops the rest
// silently. A request that sends either twice is ambiguous, so the raw list decides. The fields the server
// reads from that list are gathered in one pass per request, the first time any of them is asked for
// (the framing check, before routing).
import type { IncomingMessage } from 'node:http';

/** The fields of a request as sent, repeated ones counted: Node's parsed headers drop or join them. */
export interface SentFields {
  hosts: number;
  /** Every Transfer-Encoding value, in order; undefined when none was sent. */
  codings: string[] | undefined;
  /** The one value sent; undefined when the field is absent or sent more than once. */
  authorization: string | undefined;
  /** The one value sent; undefined when the field is absent or sent more than once. */
  contentType: string | undefined;
}

const SENT = Symbol('fields as sent');

interface Gathered extends IncomingMessage {
  [SENT]?: SentFields;
}

export function sentFields(request: IncomingMessage): SentFields {
  return ((request as Gathered)[SENT] ??= gathered(request.rawHeaders));
}

/** Whether a raw field's name is `name` (lower case), in any case. */
function isField(field: string, name: string): boolean {
  // The length first: most fields are told apart without a lower-case copy of their name.
  return field.length === name.length && field.toLowerCase() === name;
}

function gathered(rawHeaders: readonly string[]): SentFields {
  const sent: SentFields = { hosts: 0, codings: undefined, authorization: undefined, contentType: undefined };
  let authorizations = 0;
  let contentTypes = 0;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const field = rawHeaders[i] as string;
    const value = rawHeaders[i + 1] as string;
    if (isField(field, 'host')) sent.hosts += 1;
    else if (isField(field, 'authorization')) {
      authorizations += 1;
      sent.authorization = value;
    } else if (isField(field, 'content-type')) {
      contentTypes += 1;
      sent.contentType = value;
    } else if (isField(field, 'transfer-encoding')) (sent.codings ??= []).push(value);
  }
  if (authorizations > 1) sent.authorization = undefined;
  if (contentTypes > 1) sent.contentType = undefined;
  return sent;
}
