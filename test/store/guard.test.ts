// The store's one error channel (src/store/guard.ts): whatever a repository's call does, the store's caller
// sees its failure as a rejected promise of the store's own error, never a throw; and a read on a request's
// way answers at once when the repository did.
import { describe, expect, it } from 'vitest';
import { guardWith } from '../../src/store/guard.js';

class ClassifiedError extends Error {}
const guard = guardWith((error) => new ClassifiedError(`classified: ${(error as Error).message}`));
const thrown = (): number => {
  throw new Error('sync');
};

describe.each(['read', 'call'] as const)('the guard’s %s', (kind) => {
  it('gives a failure thrown at once as a rejected promise of the store’s error, never a throw', async () => {
    let result: unknown;
    expect(() => (result = guard[kind](thrown))).not.toThrow();
    expect(result).toBeInstanceOf(Promise);
    await expect(result).rejects.toThrow(new ClassifiedError('classified: sync'));
  });

  it('gives a rejected answer as a rejection of the store’s error', async () => {
    await expect(guard[kind](() => Promise.reject(new Error('async')))).rejects.toBeInstanceOf(ClassifiedError);
  });

  it('gives an answer that waited as it came', async () => {
    await expect(guard[kind](() => Promise.resolve(7))).resolves.toBe(7);
  });
});

describe('the guard', () => {
  it('gives a read’s answer there at once, at once, and any other call’s as a promise', async () => {
    expect(guard.read(() => 7)).toBe(7);
    const called = guard.call(() => 7);
    expect(called).toBeInstanceOf(Promise);
    await expect(called).resolves.toBe(7);
  });
});
