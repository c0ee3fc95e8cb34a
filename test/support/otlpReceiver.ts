// An OpenTelemetry collector's OTLP/HTTP traces receiver on a loopback port, as far as the tests need one:
// it takes `POST /v1/traces` in either encoding (JSON, or protobuf read by the small reader below), records
// every span with its resource's attributes, and answers as the test says: accepted, refused (503), or never.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a span without a parent. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 2 server, 3 client. */
  kind: number;
  /** OTLP's status code: 2 is an error. */
  statusCode: number;
  attributes: Record<string, string | number | boolean>;
  resource: Record<string, string | number | boolean>;
}

export type CollectorAnswer = 'accept' | 'refuse' | 'hang';

export interface OtlpReceiver {
  /** The base endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** The content types of the requests received, in order. */
  contentTypes: string[];
  answer: CollectorAnswer;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver: Omit<OtlpReceiver, 'endpoint' | 'close'> = { spans: [], contentTypes: [], answer: 'accept' };
  const hanging = new Set<ServerResponse>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (receiver.answer === 'hang') {
        hanging.add(response);
        return;
      }
      if (receiver.answer === 'refuse') {
        response.writeHead(503).end();
        return;
      }
      const type = request.headers['content-type'] ?? '';
      receiver.contentTypes.push(type);
      const body = Buffer.concat(chunks);
      receiver.spans.push(...(type.includes('json') ? fromJson(body) : fromProtobuf(body)));
      response.writeHead(200, { 'Content-Type': type }).end(type.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

interface JsonValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface JsonKeyValue {
  key: string;
  value: JsonValue;
}
interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  status?: { code?: number };
  attributes?: JsonKeyValue[];
}
interface JsonRequest {
  resourceSpans: { resource?: { attributes?: JsonKeyValue[] }; scopeSpans: { spans: JsonSpan[] }[] }[];
}

function fromJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString()) as JsonRequest;
  return request.resourceSpans.flatMap(({ resource, scopeSpans }) =>
    scopeSpans.flatMap(({ spans }) =>
      spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        statusCode: span.status?.code ?? 0,
        attributes: jsonAttributes(span.attributes),
        resource: jsonAttributes(resource?.attributes),
      })),
    ),
  );
}

function jsonAttributes(list: JsonKeyValue[] = []): Record<string, string | number | boolean> {
  return Object.fromEntries(
    list.map(({ key, value }) => [key, value.stringValue ?? value.boolValue ?? value.doubleValue ?? Number(value.intValue)]),
  );
}

/** A protobuf message's fields, by number: each a varint (as a number) or length-delimited bytes. */
function fields(bytes: Buffer): Map<number, (number | Buffer)[]> {
  const found = new Map<number, (number | Buffer)[]>();
  let at = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at++] as number;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const key = varint();
    const [number, wire] = [Math.floor(key / 8), key % 8];
    let value: number | Buffer;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const length = varint();
      value = bytes.subarray(at, (at += length));
    } else if (wire === 1) value = bytes.subarray(at, (at += 8));
    else if (wire === 5) value = bytes.subarray(at, (at += 4));
    else throw new Error(`protobuf wire type ${wire} is not OTLP's`);
    found.set(number, [...(found.get(number) ?? []), value]);
  }
  return found;
}

const messages = (of: Map<number, (number | Buffer)[]>, number: number) => (of.get(number) ?? []) as Buffer[];

/** ExportTraceServiceRequest: resource_spans 1 → (resource 1, scope_spans 2 → spans 2). */
function fromProtobuf(body: Buffer): ReceivedSpan[] {
  return messages(fields(body), 1).flatMap((resourceSpans) => {
    const outer = fields(resourceSpans);
    const [resource] = messages(outer, 1);
    const resourceAttributes = resource ? protobufAttributes(messages(fields(resource), 1)) : {};
    return messages(outer, 2).flatMap((scopeSpans) =>
      messages(fields(scopeSpans), 2).map((spanBytes) => {
        const span = fields(spanBytes);
        const hex = (number: number) => messages(span, number)[0]?.toString('hex') ?? '';
        const [status] = messages(span, 15);
        return {
          traceId: hex(1),
          spanId: hex(2),
          parentSpanId: hex(4),
          name: messages(span, 5)[0]?.toString() ?? '',
          kind: (span.get(6)?.[0] as number | undefined) ?? 0,
          statusCode: status ? ((fields(status).get(3)?.[0] as number | undefined) ?? 0) : 0,
          attributes: protobufAttributes(messages(span, 9)),
          resource: resourceAttributes,
        };
      }),
    );
  });
}

/** KeyValue: key 1, value 2 → AnyValue (string 1, bool 2, int 3, double 4). */
function protobufAttributes(list: Buffer[]): Record<string, string | number | boolean> {
  return Object.fromEntries(
    list.map((keyValue): [string, string | number | boolean] => {
      const pair = fields(keyValue);
      const key = messages(pair, 1)[0]?.toString() ?? '';
      const value = fields(messages(pair, 2)[0] ?? Buffer.alloc(0));
      const text = messages(value, 1)[0];
      if (text) return [key, text.toString()];
      if (value.has(2)) return [key, value.get(2)?.[0] === 1];
      if (value.has(3)) return [key, value.get(3)?.[0] as number];
      const double = messages(value, 4)[0];
      return [key, double ? double.readDoubleLE() : ''];
    }),
  );
}
