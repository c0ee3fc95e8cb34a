// Breaking changes between two OpenAPI 3.0 documents. api-smart-diff does the structural diff and its
// classification; two rules of our own cover what it gets wrong for this contract:
// - it calls removing an optional response field non-breaking, but clients may read it;
// - it does not compare who can call an operation: global security, a scheme's definition, or one
//   requirement becoming several.
// Its findings under components/ are dropped: every `$ref` is resolved, so a schema change is reported
// again at each operation that uses it, while a components-only view misjudges unused or text-only edits.
import { isDeepStrictEqual } from 'node:util';
import { apiCompare } from 'api-smart-diff';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * @typedef {{ rule: string, where: string, message: string }} Finding
 * @typedef {Record<string, string[]>} SecurityRequirement
 */

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const at = (value, ...keys) => keys.reduce((node, key) => (isObject(node) ? node[key] : undefined), value);

/** @returns {Finding[]} */
function structuralFindings(before, after) {
  const findings = [];
  for (const diff of apiCompare(before, after).diffs) {
    if (diff.path[0] === 'components') continue;
    const where = diff.path.join('/');
    const removesResponseField =
      diff.action === 'remove' && diff.path.includes('responses') && diff.path.at(-2) === 'properties';
    if (diff.type === 'breaking' || removesResponseField) {
      findings.push({
        rule: removesResponseField ? 'response-field-removed' : `${diff.action}`,
        where,
        message: diff.description ?? where,
      });
    }
  }
  return findings;
}

/** A scheme as it affects callers; its prose does not. */
function schemeDefinition(document, name) {
  const definition = at(document, 'components', 'securitySchemes', name);
  if (!isObject(definition)) return undefined;
  const rest = { ...definition };
  delete rest.description;
  delete rest.bearerFormat;
  return rest;
}

/** @returns {SecurityRequirement[]} Alternatives; an empty requirement means anyone may call. */
function effectiveSecurity(document, operation) {
  const requirements = at(operation, 'security') ?? at(document, 'security') ?? [];
  return Array.isArray(requirements) && requirements.length > 0 ? requirements : [{}];
}

/** Can a caller who met `had` in `before` also meet `need` in `after`? */
function stillMeets(before, had, after, need) {
  return Object.entries(need).every(([name, scopes]) => {
    const hadScopes = had[name];
    return (
      hadScopes !== undefined &&
      isDeepStrictEqual(schemeDefinition(before, name), schemeDefinition(after, name)) &&
      scopes.every((scope) => hadScopes.includes(scope))
    );
  });
}

/** @returns {Finding[]} */
function securityFindings(before, after) {
  const findings = [];
  for (const [path, item] of Object.entries(at(before, 'paths') ?? {})) {
    for (const method of METHODS) {
      const was = at(item, method);
      const now = at(after, 'paths', path, method);
      // A removed operation is already reported by the structural diff.
      if (!isObject(was) || !isObject(now)) continue;
      const alternativesNow = effectiveSecurity(after, now);
      for (const had of effectiveSecurity(before, was)) {
        if (!alternativesNow.some((need) => stillMeets(before, had, after, need))) {
          findings.push({
            rule: 'security-changed',
            where: `${method.toUpperCase()} ${path}`,
            message: `callers with ${JSON.stringify(had)} can no longer call it; it now needs one of ${JSON.stringify(alternativesNow)}`,
          });
        }
      }
    }
  }
  return findings;
}

/** @returns {Finding[]} Every change from `before` that can break a client written against it. */
export function breakingChanges(before, after) {
  return [...structuralFindings(before, after), ...securityFindings(before, after)];
}

const majorOf = (document) => Number(/^(\d+)\./.exec(String(at(document, 'info', 'version')))?.[1] ?? NaN);

/**
 * The verdict on `current` against a released contract: breaking changes fail unless the major version
 * went up.
 * @returns {{ ok: boolean, findings: Finding[], majorBumped: boolean }}
 */
export function judge(released, current) {
  const findings = breakingChanges(released, current);
  const majorBumped = majorOf(current) > majorOf(released);
  return { ok: findings.length === 0 || majorBumped, findings, majorBumped };
}
