// The breaking-change guard against the released v1.0.0 contract: each kind of break is caught, changes
// that keep old clients working are not, and a new major version lets a break through.
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call --
   the cases edit OpenAPI documents freely; typing every node would bury what each case changes. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { breakingChanges, judge } from '../../scripts/breaking-changes.mjs';

type Json = Record<string, any>;
const root = fileURLToPath(new URL('../..', import.meta.url));
const RELEASED_PATH = join(root, 'scripts/released/openapi-v1.0.0.yaml');
const released = parse(readFileSync(RELEASED_PATH, 'utf8')) as Json;

/** A copy of `base` (the released contract unless given) changed by `change`. */
function changed(change: (document: Json) => void, base: Json = released): Json {
  const copy = structuredClone(base);
  change(copy);
  return copy;
}

const paths = (document: Json) => document.paths as Json;
const schemas = (document: Json) => document.components.schemas as Json;
const listOrders = (document: Json) => paths(document)['/store/orders'].get as Json;
const cancelOrder = (document: Json) => paths(document)['/store/orders/{orderId}'].delete as Json;

/** The released contract plus what it lacks to show some breaks: a second method, request enums. */
const extended = changed((document) => {
  paths(document)['/store/orders/{orderId}'].get = {
    operationId: 'getOrder',
    parameters: [{ $ref: '#/components/parameters/OrderId' }],
    responses: { '200': { description: 'The order.' } },
  };
  listOrders(document).parameters.push({
    name: 'state',
    in: 'query',
    required: false,
    schema: { type: 'string', enum: ['pending', 'shipped'] },
  });
  schemas(document).SendMessageRequest.properties.channel = { type: 'string', enum: ['email', 'sms'] };
  document.components.securitySchemes.apiKey = { type: 'apiKey', in: 'header', name: 'X-Api-Key' };
});

const breaks: [string, Json, (document: Json) => void][] = [
  ['a removed path', released, (document) => delete paths(document)['/pets/{petId}']],
  ['a removed operation', extended, (document) => delete paths(document)['/store/orders/{orderId}'].get],
  ['a removed response', released, (document) => delete cancelOrder(document).responses['409']],
  [
    'a removed optional response field',
    released,
    (document) => delete schemas(document).Order.properties.shipDate,
  ],
  [
    'a removed required response field',
    released,
    (document) => {
      delete schemas(document).Message.properties.createdAt;
      schemas(document).Message.required = ['id', 'message', 'status'];
    },
  ],
  [
    'a request field narrowed from string to integer',
    released,
    (document) => {
      schemas(document).SendMessageRequest.properties.message = { type: 'integer' };
    },
  ],
  [
    'a shorter maxLength on a request field',
    released,
    (document) => {
      schemas(document).SendMessageRequest.properties.message.maxLength = 5000;
    },
  ],
  [
    'a path parameter narrowed from int64 to int32',
    released,
    (document) => {
      document.components.parameters.OrderId.schema.format = 'int32';
    },
  ],
  [
    'a higher minimum on a path parameter',
    released,
    (document) => {
      document.components.parameters.OrderId.schema.minimum = 10;
    },
  ],
  [
    'a request enum narrowed (query)',
    extended,
    (document) => {
      listOrders(document).parameters.at(-1).schema.enum = ['pending'];
    },
  ],
  [
    'a request enum narrowed (body)',
    extended,
    (document) => {
      schemas(document).SendMessageRequest.properties.channel.enum = ['email'];
    },
  ],
  [
    'a response enum widened',
    released,
    (document) => {
      schemas(document).Message.properties.status.enum = ['queued', 'delivered'];
    },
  ],
  [
    'a new required query parameter',
    released,
    (document) => {
      listOrders(document).parameters.push({
        name: 'store',
        in: 'query',
        required: true,
        schema: { type: 'string' },
      });
    },
  ],
  [
    'a new required body field',
    released,
    (document) => {
      schemas(document).SendMessageRequest.properties.channel = { type: 'string' };
      schemas(document).SendMessageRequest.required = ['message', 'channel'];
    },
  ],
  [
    'an optional header made required',
    released,
    (document) => {
      listOrders(document).parameters[0].required = true;
    },
  ],
  [
    'the global security scheme changed',
    extended,
    (document) => {
      document.security = [{ apiKey: [] }];
    },
  ],
  [
    'one operation switched to another scheme',
    extended,
    (document) => {
      cancelOrder(document).security = [{ apiKey: [] }];
    },
  ],
  [
    'an operation needing a second credential',
    extended,
    (document) => {
      cancelOrder(document).security = [{ bearerAuth: [], apiKey: [] }];
    },
  ],
  [
    'the bearer scheme redefined as basic',
    released,
    (document) => {
      document.components.securitySchemes.bearerAuth = { type: 'http', scheme: 'basic' };
    },
  ],
  [
    'a public operation now secured',
    changed((document) => (cancelOrder(document).security = [])),
    (document) => {
      delete cancelOrder(document).security;
    },
  ],
];

const compatible: [string, (document: Json) => void][] = [
  ['nothing', () => undefined],
  [
    'an optional query parameter',
    (document) => {
      listOrders(document).parameters.push({
        name: 'verbose',
        in: 'query',
        required: false,
        schema: { type: 'boolean' },
      });
    },
  ],
  [
    'a new path',
    (document) => {
      paths(document)['/store/inventory'] = structuredClone(paths(document)['/store/orders']);
      paths(document)['/store/inventory'].get.operationId = 'getInventory';
    },
  ],
  [
    'an optional response field',
    (document) => {
      schemas(document).Order.properties.note = { type: 'string' };
    },
  ],
  [
    'an optional request field',
    (document) => {
      schemas(document).SendMessageRequest.properties.subject = { type: 'string' };
    },
  ],
  [
    'a longer maxLength on a request field',
    (document) => {
      schemas(document).SendMessageRequest.properties.message.maxLength = 20000;
    },
  ],
  [
    'a new documented response',
    (document) => {
      cancelOrder(document).responses['429'] = structuredClone(cancelOrder(document).responses['409']);
    },
  ],
  [
    'descriptions and examples reworded',
    (document) => {
      document.info.description = 'Reworded.';
      document.components.responses.BadRequest.description = 'Reworded.';
      schemas(document).Order.properties.id.example = 7;
    },
  ],
  [
    'an unused security scheme',
    (document) => {
      document.components.securitySchemes.apiKey = { type: 'apiKey', in: 'header', name: 'X-Api-Key' };
    },
  ],
  [
    'a minor version',
    (document) => {
      document.info.version = '1.1.0';
    },
  ],
];

describe('the breaking-change guard', () => {
  it.each(breaks)('catches %s', (_name, base, change) => {
    const findings = breakingChanges(base, changed(change, base));
    expect(findings.length).toBeGreaterThan(0);
    expect(judge(base, changed(change, base)).ok).toBe(false);
  });

  it.each(compatible)('lets through %s', (_name, change) => {
    expect(breakingChanges(released, changed(change))).toEqual([]);
  });

  it('lets a break through when the major version goes up', () => {
    const v2 = changed((document) => {
      delete paths(document)['/pets/{petId}'];
      document.info.version = '2.0.0';
    });
    expect(judge(released, v2)).toMatchObject({ ok: true, majorBumped: true });
  });

  it('reports the v2 contract against v1 as breaking, which its major version allows', () => {
    const v1 = parse(readFileSync(join(root, 'openapi.yaml'), 'utf8')) as Json;
    const v2 = parse(readFileSync(join(root, 'openapi.v2.yaml'), 'utf8')) as Json;
    const verdict = judge(v1, v2);
    expect(verdict).toMatchObject({ ok: true, majorBumped: true });
    const where = verdict.findings.map((finding: { where: string }) => finding.where);
    expect(where).toContain('paths//pets/{petId}/get');
    expect(where.some((path: string) => path.startsWith('paths//store/orders/get/responses/200'))).toBe(true);
  });

  it('guards v2 against its own release: a break from 2.0.0 without a new major version fails', () => {
    const command = (...args: string[]) =>
      spawnSync(process.execPath, [join(root, 'scripts/check-breaking.mjs'), ...args], { encoding: 'utf8' });
    // Each contract against the newest release of its own major version.
    expect(command().stdout).toMatch(/No breaking change from 1\.\d+\.\d+ → 1\.\d+\.\d+\./);
    expect(command().stdout).toMatch(/No breaking change from 2\.\d+\.\d+ → 2\.\d+\.\d+\./);
    const v2 = join(root, 'scripts/released/openapi-v2.0.0.yaml');
    const folder = mkdtempSync(join(tmpdir(), 'store-orders-breaking-'));
    try {
      const broken = join(folder, 'openapi.v2.yaml');
      const document = parse(readFileSync(v2, 'utf8')) as Json;
      document.info.version = '2.1.0';
      delete cancelOrder(document).responses['409'];
      writeFileSync(broken, stringify(document));
      const result = command(v2, broken);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('2.0.0 → 2.1.0 without a new major version');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('runs as a command: openapi.yaml passes; a break fails with exit 1 and names it', () => {
    const command = (...args: string[]) =>
      spawnSync(process.execPath, [join(root, 'scripts/check-breaking.mjs'), ...args], { encoding: 'utf8' });
    expect(command().status).toBe(0);

    const folder = mkdtempSync(join(tmpdir(), 'store-orders-breaking-'));
    try {
      const broken = join(folder, 'openapi.yaml');
      writeFileSync(broken, stringify(changed((document) => delete cancelOrder(document).responses['409'])));
      const result = command(RELEASED_PATH, broken);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('responses/409');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
