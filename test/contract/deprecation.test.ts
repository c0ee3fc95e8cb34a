import { describe, expect, it } from 'vitest';
import { deprecationPolicies, refuseAfterSunset } from '../../src/contract/deprecation.js';
import { type ContractOperation, loadContract, operationsOf } from '../../src/contract/document.js';

function operation(extra: Record<string, unknown>): ContractOperation {
  return {
    operationId: 'oldThing',
    method: 'get',
    path: '/old',
    definition: { responses: {}, deprecated: true, ...extra },
  };
}

describe('deprecation policies', () => {
  it('are read from openapi.yaml for every deprecated operation, and only those', () => {
    const policies = deprecationPolicies(operationsOf(loadContract().document));
    expect([...policies.keys()]).toEqual(['getPetById']);
    expect(policies.get('getPetById')?.sunsetAt?.toISOString()).toBe('2027-06-30T23:59:59.000Z');
  });

  it('work for any operation marked deprecated, with RFC 9745, RFC 8594 and RFC 8288 headers', () => {
    const policies = deprecationPolicies([
      operation({
        'x-deprecated-at': '2025-03-01T12:00:00Z',
        'x-sunset': '2026-01-01T00:00:00+01:00',
        externalDocs: { url: 'https://docs.example.org/old' },
      }),
    ]);
    expect(policies.get('oldThing')?.headers).toEqual({
      Deprecation: `@${Date.parse('2025-03-01T12:00:00Z') / 1000}`,
      Sunset: 'Wed, 31 Dec 2025 23:00:00 GMT',
      Link: '<https://docs.example.org/old>; rel="deprecation"; type="text/html", <https://docs.example.org/old>; rel="sunset"; type="text/html"',
    });
  });

  it('send no Sunset and never 410 when there is no sunset', () => {
    const policy = deprecationPolicies([operation({ 'x-deprecated-at': '2025-03-01T12:00:00Z' })]).get(
      'oldThing',
    );
    expect(policy?.headers).toEqual({ Deprecation: `@${Date.parse('2025-03-01T12:00:00Z') / 1000}` });
    expect(refuseAfterSunset(policy, new Date('2100-01-01'))).toBeUndefined();
  });

  it('answer 410 only strictly after the sunset instant', () => {
    const policy = deprecationPolicies([
      operation({ 'x-deprecated-at': '2025-01-01T00:00:00Z', 'x-sunset': '2026-01-01T00:00:00Z' }),
    ]).get('oldThing');
    expect(refuseAfterSunset(policy, new Date('2026-01-01T00:00:00Z'))).toBeUndefined();
    expect(refuseAfterSunset(policy, new Date('2026-01-01T00:00:00.001Z'))).toEqual({
      status: 410,
      body: { code: 'gone', message: 'oldThing was removed at its sunset, 2026-01-01T00:00:00.000Z', status: 410 },
    });
  });

  it.each([
    [{}, 'x-deprecated-at'],
    [{ 'x-deprecated-at': 'soon' }, 'x-deprecated-at'],
    [{ 'x-deprecated-at': '2025-01-01T00:00:00' }, 'time zone'],
    [{ 'x-deprecated-at': '2025-01-01T00:00:00Z', 'x-sunset': 20270101 }, 'x-sunset'],
  ])('refuse a contract with %o at start', (extra, message) => {
    expect(() => deprecationPolicies([operation(extra)])).toThrow(message);
  });
});
