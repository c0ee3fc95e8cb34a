// Conditional GET on its own: the ETag of an answer, and If-None-Match matching (RFC 9110 §13.1.2).
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { StreamedArray } from '../../src/contract/streamedArray.js';
import { conditionalGet, entityTag, matchesIfNoneMatch, supportsConditionalGet } from '../../src/http/conditional.js';

const list = Object.freeze([Object.freeze({ id: 1, petId: 2, quantity: 1 })]);

describe('conditionalGet', () => {
  it('tags a 200 with a strong ETag over its JSON text, and hands the text on', () => {
    const answer = conditionalGet({ status: 200, body: list, headers: { RateLimit: 'r' } }, undefined);
    const text = Buffer.from(JSON.stringify(list));
    expect(answer).toEqual({ status: 200, headers: { RateLimit: 'r', etag: entityTag(text) }, body: text });
    expect(answer.headers?.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
  });

  it('gives equal bodies equal tags and different bodies different ones', () => {
    const tagOf = (body: unknown) => conditionalGet({ status: 200, body }, undefined).headers?.etag;
    expect(tagOf([{ id: 1 }])).toBe(tagOf([{ id: 1 }]));
    expect(tagOf([{ id: 1 }])).not.toBe(tagOf([{ id: 2 }]));
    expect(tagOf([])).not.toBe(tagOf([{ id: 1 }]));
  });

  it('answers 304 with the tag, the other headers and no body when the client has it', () => {
    const etag = conditionalGet({ status: 200, body: list }, undefined).headers?.etag as string;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      expect(conditionalGet({ status: 200, body: list, headers: { RateLimit: 'r' } }, ifNoneMatch)).toEqual({
        status: 304,
        headers: { RateLimit: 'r', etag },
      });
    }
    expect(conditionalGet({ status: 200, body: list }, '"other"').status).toBe(200);
  });

  it('tags a streamed array by its version, before any chunk is read', () => {
    let opened = false;
    const stream: StreamedArray = {
      streamed: true,
      version: 'v7',
      open: () => {
        opened = true;
        return Readable.from([]);
      },
    };
    expect(conditionalGet({ status: 200, body: stream }, undefined)).toEqual({
      status: 200,
      headers: { etag: '"v7"' },
      body: stream,
    });
    expect(conditionalGet({ status: 200, body: stream }, '"v7"')).toEqual({ status: 304, headers: { etag: '"v7"' } });
    expect(opened).toBe(false);
  });

  it('leaves every other answer alone', () => {
    const refusal = { status: 404, body: { code: 'not_found', message: 'x', status: 404 } };
    expect(conditionalGet(refusal, '*')).toBe(refusal);
    const empty = { status: 200 };
    expect(conditionalGet(empty, '*')).toBe(empty);
  });
});

describe('matchesIfNoneMatch', () => {
  it('compares weakly, in a list, with spaces, and never matches a missing header', () => {
    expect(matchesIfNoneMatch(undefined, '"a"')).toBe(false);
    expect(matchesIfNoneMatch(' "b" ,  W/"a" ', '"a"')).toBe(true);
    expect(matchesIfNoneMatch('"ab"', '"a"')).toBe(false);
    expect(matchesIfNoneMatch(' * ', '"a"')).toBe(true);
  });
});

describe('supportsConditionalGet', () => {
  it('is true only for an operation whose 200 documents an ETag and which documents a 304', () => {
    const withTag = { '200': { description: 'ok', headers: { ETag: { schema: { type: 'string' as const } } } } };
    expect(supportsConditionalGet({ responses: { ...withTag, '304': { description: 'same' } } })).toBe(true);
    expect(supportsConditionalGet({ responses: withTag })).toBe(false);
    expect(supportsConditionalGet({ responses: { '200': { description: 'ok' }, '304': { description: 'same' } } })).toBe(false);
  });
});
