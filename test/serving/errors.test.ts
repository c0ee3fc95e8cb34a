import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { errorCodes } from 'fastify';
import { describe, expect, it } from 'vitest';
import { apiError } from '../../src/contract/errorBody.js';
import { ApiError, errorAnswerFor } from '../../src/serving/errors.js';
import { TEST_BACKENDS } from '../support/storeBackends.js';

/** How the store reports a driver's failure: SQLite's reading of its own errors, in its test entry. */
const { storeErrorFor } = TEST_BACKENDS.sqlite;

describe('errorAnswerFor', () => {
  it('maps a write refused because another process holds the lock, as the store reports it, to 503 with Retry-After', () => {
    const folder = mkdtempSync(join(tmpdir(), 'store-orders-busy-'));
    const holder = new Database(join(folder, 'x.db'));
    holder.exec('CREATE TABLE t (x)');
    holder.exec('BEGIN IMMEDIATE');
    const writer = new Database(join(folder, 'x.db'), { timeout: 0 });
    let thrown: unknown;
    try {
      writer.prepare('INSERT INTO t VALUES (1)').run();
    } catch (error) {
      thrown = error;
    } finally {
      writer.close();
      holder.close();
      rmSync(folder, { recursive: true, force: true });
    }
    expect(errorAnswerFor(storeErrorFor(thrown)).answer).toEqual(
      apiError('service_unavailable', 'The database is busy; retry shortly', { 'Retry-After': '1' }),
    );
    // Above the store, a driver's own error is a bug like any other.
    expect(errorAnswerFor(thrown).answer.status).toBe(500);
  });

  it.each([
    [new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), 413, 'payload_too_large'],
    [new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), 400, 'unsupported_content_type'],
    [new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), 400, 'invalid_json'],
    [new errorCodes.FST_ERR_BAD_URL('/%zz'), 400, 'bad_request'],
  ])("maps Fastify's %s to %i %s", (error, status, code) => {
    const { answer, expected } = errorAnswerFor(error);
    expect(expected).toBe(true);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ code, status });
  });

  it('passes an ApiError through unchanged', () => {
    const answer = apiError('gone', 'removed');
    expect(errorAnswerFor(new ApiError(answer))).toEqual({ answer, expected: true });
  });

  it('turns anything else into a generic 500 that reveals nothing', () => {
    for (const error of [
      new TypeError('x is undefined at secret.ts:12'),
      'a string',
      undefined,
      { statusCode: 500 },
    ]) {
      const { answer, expected } = errorAnswerFor(error);
      expect(expected).toBe(false);
      expect(answer.body).toEqual({
        code: 'internal_error',
        message: 'An unexpected error occurred',
        status: 500,
      });
    }
  });
});
