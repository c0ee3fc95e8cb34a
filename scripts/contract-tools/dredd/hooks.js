// Dredd's hooks for the contract-tools stage (scripts/contract-tools.mjs). They leave the contract as it is
// and fix how Dredd reads it: Dredd 14 reads OpenAPI 3 through an experimental parser
// (@apielements/openapi3-parser), which lacks four things its OpenAPI 2 reader does or that OpenAPI says.
// Dredd require()s a hookfile, and hands it its hooks as the module 'hooks'.
/* eslint-disable @typescript-eslint/no-require-imports */
const fs = require('node:fs');
const hooks = require('hooks');
const yaml = require('js-yaml');

// 1. Dredd tests only the first 2xx answer of each operation when it reads OpenAPI 2 and skips the others,
// since one request cannot bring about every documented status (its TransactionRunner). For OpenAPI 3 it
// sends the same request once for every status, `default` included (as a 200 with the error body), so the
// same rule is applied here.
const tested = new Set();
hooks.beforeEach((transaction, done) => {
  const operation = `${transaction.request.method} ${transaction.origin.resourceName}`;
  const status = Number(transaction.expected.statusCode);
  if (status < 200 || status > 299 || tested.has(operation)) transaction.skip = true;
  else tested.add(operation);
  done();
});

// 2. The parser sends every header parameter, one without an example as an empty value
// (`Idempotency-Key:`), which its schema does not admit. A header the document gives no value for is
// left out, as the other tools leave out an optional parameter.
hooks.beforeEach((transaction, done) => {
  for (const [name, value] of Object.entries(transaction.request.headers)) {
    if (value === '') delete transaction.request.headers[name];
  }
  done();
});

// 3. The parser ignores a Header Object's `required` and expects every documented header; a header the
// contract marks `required: false` (Idempotent-Replayed, sent only on a replay) is not expected here.
const documents = new Map();
function documentOf(filename) {
  if (!documents.has(filename)) documents.set(filename, yaml.safeLoad(fs.readFileSync(filename, 'utf8')));
  return documents.get(filename);
}
function resolve(document, node) {
  let resolved = node;
  while (resolved && typeof resolved.$ref === 'string') {
    resolved = resolved.$ref
      .replace(/^#\//, '')
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((parent, part) => parent?.[part], document);
  }
  return resolved;
}
function optionalHeaders(transaction) {
  const document = documentOf(transaction.origin.filename);
  const operation = document.paths?.[transaction.origin.resourceName]?.[transaction.request.method.toLowerCase()];
  const response = resolve(document, operation?.responses?.[transaction.expected.statusCode]);
  return Object.entries(response?.headers ?? {})
    .filter(([, header]) => resolve(document, header)?.required !== true)
    .map(([name]) => name.toLowerCase());
}

// 4. Gavel compares Content-Type as an exact string, so `application/json; charset=utf-8` fails against the
// contract's `application/json`. The media type must still be the documented one; its parameters are
// RFC 9110's to add.
const mediaType = (value) => String(value).split(';')[0].trim().toLowerCase();

hooks.beforeEachValidation((transaction, done) => {
  const expected = transaction.expected.headers ?? {};
  const optional = optionalHeaders(transaction);
  for (const name of Object.keys(expected)) {
    if (optional.includes(name.toLowerCase())) delete expected[name];
  }
  const contentType = Object.keys(expected).find((name) => name.toLowerCase() === 'content-type');
  const actual = transaction.real?.headers?.['content-type'];
  if (contentType && actual && mediaType(actual) === mediaType(expected[contentType])) expected[contentType] = actual;
  done();
});
