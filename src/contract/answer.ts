// An answer, before it goes on the wire: what every operation, check and error of the server produces.

export interface Answer {
  status: number;
  /** The answer's own headers; the server adds X-Request-Id, Cache-Control and Content-Type. */
  headers?: Record<string, string>;
  /** A JSON value, a streamed array (streamedArray.ts), or JSON text already serialized (a Buffer). */
  body?: unknown;
}

/** `answer` with `headers` under its own: the answer's own win where both name a field. */
export function withHeaders(answer: Answer, headers: Record<string, string> | undefined): Answer {
  return headers ? { ...answer, headers: { ...headers, ...answer.headers } } : answer;
}
