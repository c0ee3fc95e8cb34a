// The server's table of error codes and the contract's are one table: every code the server can answer is
// documented with its status, and every documented code is one the server has.
import { describe, expect, it } from 'vitest';
import { apiError, ERROR_STATUS, type ErrorCode } from '../../src/contract/errorBody.js';
import { loadContract } from '../../src/contract/document.js';

function documentedCodes(): Record<string, number> {
  const { document } = loadContract();
  const schema = document.components?.schemas?.Error as { description?: string };
  const rows = [...(schema.description ?? '').matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)];
  return Object.fromEntries(rows.map(([, code, status]) => [code as string, Number(status)]));
}

describe('the error-code table', () => {
  it('is the table openapi.yaml documents on the Error schema, both ways, with the same statuses', () => {
    const documented = documentedCodes();
    expect(Object.keys(documented).length).toBeGreaterThan(20);
    expect(documented).toEqual({ ...ERROR_STATUS });
  });

  it('gives apiError its status, in the body as on the wire', () => {
    for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
      const answer = apiError(code, 'why', { 'Retry-After': '1' });
      expect(answer).toEqual({
        status: ERROR_STATUS[code],
        body: { code, message: 'why', status: ERROR_STATUS[code] },
        headers: { 'Retry-After': '1' },
      });
    }
  });
});
