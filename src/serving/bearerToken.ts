// The bearer scheme of `Authorization` (RFC 6750 §2.1), read the same way by the API's keys and the
// metrics token.

/** The token of an `Authorization: Bearer <token>` header; the scheme name is case-insensitive (RFC 9110). */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^bearer +([^ ]+) *$/i.exec(header);
  return match?.[1];
}
