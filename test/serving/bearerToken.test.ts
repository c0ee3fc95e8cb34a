// bearerToken: the token of an Authorization field, as the API's keys and the metrics token read it.
import { describe, expect, it } from 'vitest';
import { bearerToken } from '../../src/serving/bearerToken.js';

describe('bearerToken', () => {
  it('reads the token after a case-insensitive scheme and spaces', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer   abc ')).toBe('abc');
    expect(bearerToken('Bearerabc')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
