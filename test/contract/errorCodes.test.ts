// The server's table of error codes and the contracts' are one table: every code the server can answer is
// documented with its status, by the contract of v1 or v2 or both, and every documented code is one the
// server has, with the same status in both.
import { describe, expect, it } from 'vitest';
import { apiError, ERROR_STATUS, type ErrorCode } from '../../src/contract/errorBody.js';
import { type ApiVersion, contractPath, loadContract } from '../../src/contract/document.js';

function documentedCodes(version: ApiVersion): Record<string, number> {
  const { document } = loadContract(contractPath(version));
  const schema = document.components?.schemas?.Error as { description?: string };
  const rows = [...(schema.description ?? '').matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)];
  return Object.fromEntries(rows.map(([, code, status]) => [code as string, Number(status)]));
}

describe('the error-code table', () => {
  it('is the tables openapi.yaml and openapi.v2.yaml document on the Error schema, both ways, with the same statuses', () => {
    const v1 = documentedCodes('v1');
    const v2 = documentedCodes('v2');
    expect(Object.keys(v1).length).toBeGreaterThan(20);
    expect(Object.keys(v2).length).toBeGreaterThan(20);
    expect({ ...v1, ...v2 }).toEqual({ ...ERROR_STATUS });
    for (const [code, status] of Object.entries(v1)) if (code in v2) expect([code, v2[code]]).toEqual([code, status]);
  });

  it('has the codes of pages in v2 only, and the codes of pets in v1 only', () => {
    const v1 = documentedCodes('v1');
    const v2 = documentedCodes('v2');
    for (const code of ['invalid_cursor', 'cursor_mismatch', 'limit_out_of_range']) {
      expect([code, code in v1, code in v2]).toEqual([code, false, true]);
    }
    expect(['pet_not_found' in v1, 'pet_not_found' in v2]).toEqual([true, false]);
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
