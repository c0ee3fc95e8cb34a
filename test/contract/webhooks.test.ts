// The message delivery as the contracts describe it (`x-webhooks` in openapi.yaml and openapi.v2.yaml, and
// so `webhooks` in their OpenAPI 3.1 renditions), held against real deliveries: a server process delivers
// to a receiver on loopback, and each header field and body that arrives matches the schemas of the 3.1
// renditions, which the receiver's generated types (generated/openapi.3.1.d.ts and openapi.v2.3.1.d.ts)
// come from; the body checked is then the generated type, and the receiver's own type is that type.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { parse } from 'yaml';
import type { webhooks as WebhooksV1 } from '../../generated/openapi.3.1.js';
import type { webhooks as WebhooksV2 } from '../../generated/openapi.v2.3.1.js';
import { API_VERSIONS, type ApiVersion, RENDITION_FILES } from '../../src/contract/document.js';
import { runCliInProcess } from '../support/commandLine.js';
import { type ServerProcess, spawnServer } from '../support/processes.js';
import { type DeliveredMessage, type Receiver, startReceiver, until } from '../support/receiver.js';
import { type ScratchDatabase, scratchDatabase, SERVER_BACKEND } from '../support/storeBackends.js';

type MessageDelivery<W extends WebhooksV1 | WebhooksV2> = W['message']['post'];
type Body<W extends WebhooksV1 | WebhooksV2> = MessageDelivery<W>['requestBody']['content']['application/json'];
type HeaderFields<W extends WebhooksV1 | WebhooksV2> = MessageDelivery<W>['parameters']['header'];

interface Rendition {
  webhooks: { message: { post: { parameters: { name: string; in: string; required?: boolean }[] } } };
}

const renditions = Object.fromEntries(
  API_VERSIONS.map((version) => {
    const text = readFileSync(new URL(`../../${RENDITION_FILES[version]}`, import.meta.url), 'utf8');
    return [version, parse(text) as Rendition];
  }),
) as Record<ApiVersion, Rendition>;

// OpenAPI 3.1's schemas are JSON Schema 2020-12; each rendition is added whole, and read by JSON pointers.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
for (const version of API_VERSIONS) ajv.addSchema(renditions[version], version);

const OPERATION = '/webhooks/message/post';
const bodySchema = <V extends ApiVersion>(version: V) =>
  ajv.compile<Body<{ v1: WebhooksV1; v2: WebhooksV2 }[V]>>({
    $ref: `${version}#${OPERATION}/requestBody/content/application~1json/schema`,
  });
const headerSchema = (version: ApiVersion, index: number): ValidateFunction =>
  ajv.compile({ $ref: `${version}#${OPERATION}/parameters/${index}/schema` });

/** What is wrong with one delivery by `version`'s webhook: its header fields, then its body; none when right. */
function violations(version: ApiVersion, headers: Record<string, unknown>, body: unknown): string[] {
  const problems: string[] = [];
  renditions[version].webhooks.message.post.parameters.forEach((parameter, index) => {
    if (parameter.in !== 'header') problems.push(`${parameter.name} is not a header field`);
    const value = headers[parameter.name];
    if (value === undefined) {
      if (parameter.required) problems.push(`${parameter.name} is missing`);
      return;
    }
    const validate = headerSchema(version, index);
    if (!validate(value)) problems.push(`${parameter.name}: ${ajv.errorsText(validate.errors)} (got ${String(value)})`);
  });
  const validate = bodySchema(version);
  if (!validate(body)) problems.push(`body: ${ajv.errorsText(validate.errors)}`);
  return problems;
}

describe('the message webhook of the OpenAPI 3.1 renditions', () => {
  let database: ScratchDatabase;
  let receiver: Receiver;
  let server: ServerProcess | undefined;

  beforeEach(async () => {
    database = await scratchDatabase(SERVER_BACKEND, 'store-orders-webhooks-');
    receiver = await startReceiver();
  });

  afterEach(async () => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    await server?.finished;
    server = undefined;
    await receiver.close();
    await database.drop();
  });

  it('describes, header fields and body, every delivery a server makes of a message sent through v1 or v2', async () => {
    const env = { DATABASE_URL: database.url };
    server = await spawnServer({ ...env, MESSAGE_WEBHOOK_URL: receiver.url, MESSAGE_WEBHOOK_SECRET: receiver.secret });
    const key = (await runCliInProcess(['keys', 'create', '--account', 'acme'], env)).stdout.trim();
    const sent: string[] = [];
    for (const version of API_VERSIONS) {
      const response = await fetch(`${server.baseUrl}/${version}/messages`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ message: `Hello through ${version}` }),
      });
      expect(response.status).toBe(202);
      sent.push(((await response.json()) as { id: string }).id);
    }
    await until(() => receiver.deliveries.length === sent.length);
    expect(receiver.rejected).toEqual([]);
    expect(receiver.deliveries.map(({ payload }) => payload.id)).toEqual(sent);

    for (const delivery of receiver.deliveries) {
      expect(delivery.headers['content-type']).toBe('application/json');
      const body: unknown = JSON.parse(delivery.body);
      for (const version of API_VERSIONS) {
        expect(violations(version, delivery.headers, body), `${version}: ${delivery.body}`).toEqual([]);
      }
      // The schema checked is the generated type's, so what it passed is that type, as the receiver's is.
      const validate = bodySchema('v2');
      if (!validate(body)) throw new Error(ajv.errorsText(validate.errors));
      const typed: Body<WebhooksV2> = body;
      const fields: HeaderFields<WebhooksV1> = {
        'webhook-id': delivery.webhookId,
        'webhook-timestamp': delivery.timestamp,
        'webhook-signature': delivery.signature,
        traceparent: delivery.traceparent ?? '',
      };
      expect(typed).toEqual(delivery.payload);
      expect(fields['webhook-id']).toBe(typed.id);
    }
  });

  it('is the same in both versions, and the type of the body test/support/receiver.ts receives', () => {
    expect(renditions.v2.webhooks?.message).toEqual(renditions.v1.webhooks?.message);
    expectTypeOf<Body<WebhooksV1>>().toEqualTypeOf<DeliveredMessage>();
    expectTypeOf<Body<WebhooksV2>>().toEqualTypeOf<DeliveredMessage>();
    expectTypeOf<HeaderFields<WebhooksV2>>().toEqualTypeOf<HeaderFields<WebhooksV1>>();
  });

  it('refuses what the server must not send: a field the contract does not name, a second signature, no id, no trace', () => {
    const body: DeliveredMessage = {
      id: 'msg_4fQ7bW1kZr2Xc9dPq0sLmN',
      message: 'Hi',
      status: 'queued',
      createdAt: '2026-11-23T10:15:30.123Z',
      account: 'acme',
    };
    const headers = {
      'webhook-id': body.id,
      'webhook-timestamp': '1795428930',
      'webhook-signature': 'v1,FHo7LHGLGXo0v3OV7JKNL1XBuNSwaoMfjwEDDKtRZxg=',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-53995c3f42cd8ad8-01',
    };
    expect(violations('v1', headers, body)).toEqual([]);
    expect(violations('v1', headers, { ...body, key: 'sok_…' })).toEqual([
      'body: data must NOT have additional properties',
    ]);
    const twoSignatures = { ...headers, 'webhook-signature': `${headers['webhook-signature']} v1,abc=` };
    expect(violations('v1', twoSignatures, body)).toEqual([expect.stringMatching(/^webhook-signature: data must match pattern/)]);
    expect(violations('v2', { ...headers, 'webhook-id': undefined }, body)).toEqual(['webhook-id is missing']);
    expect(violations('v1', { ...headers, traceparent: undefined }, body)).toEqual(['traceparent is missing']);
  });
});
