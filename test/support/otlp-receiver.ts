import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

import protobuf from 'protobufjs';

/** OTLP's span kinds (SPAN_KIND_*). */
export const SpanKind = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;

/** A span as received, its attributes and its resource's as plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
  readonly links: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>;
  readonly status: { readonly code?: number; readonly message?: string };
  readonly resource: Record<string, unknown>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

interface KeyValue {
  key: string;
  value: AnyValue;
}

interface ExportTraceServiceRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: KeyValue[];
        links?: Array<{ traceId: string; spanId: string }>;
        status?: { code?: number; message?: string };
      }>;
    }>;
  }>;
}

/**
 * The part of OTLP's `ExportTraceServiceRequest` the tests read, with the
 * field numbers of opentelemetry-proto's `trace.proto`, `common.proto` and
 * `resource.proto`.
 */
const OTLP_TRACES = protobuf.Root.fromJSON({
  nested: {
    ExportTraceServiceRequest: {
      fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } },
    },
    ResourceSpans: {
      fields: {
        resource: { type: 'Resource', id: 1 },
        scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
      },
    },
    Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
    ScopeSpans: { fields: { spans: { rule: 'repeated', type: 'Span', id: 2 } } },
    Span: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        parentSpanId: { type: 'bytes', id: 4 },
        name: { type: 'string', id: 5 },
        kind: { type: 'int32', id: 6 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
        links: { rule: 'repeated', type: 'Link', id: 13 },
        status: { type: 'Status', id: 15 },
      },
    },
    Link: { fields: { traceId: { type: 'bytes', id: 1 }, spanId: { type: 'bytes', id: 2 } } },
    Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
    KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
    AnyValue: {
      fields: {
        stringValue: { type: 'string', id: 1 },
        boolValue: { type: 'bool', id: 2 },
        intValue: { type: 'int64', id: 3 },
        doubleValue: { type: 'double', id: 4 },
        arrayValue: { type: 'ArrayValue', id: 5 },
      },
    },
    ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
  },
}).lookupType('ExportTraceServiceRequest');

/** A protobuf payload as its JSON encoding reads: ids in hex, int64s as strings, absent fields left out. */
function fromProtobuf(body: Buffer): ExportTraceServiceRequest {
  const decoded = OTLP_TRACES.toObject(OTLP_TRACES.decode(body), { longs: String, bytes: String });
  return JSON.parse(JSON.stringify(decoded), (key, value: unknown) =>
    ['traceId', 'spanId', 'parentSpanId'].includes(key) && typeof value === 'string'
      ? Buffer.from(value, 'base64').toString('hex')
      : value,
  ) as ExportTraceServiceRequest;
}

/**
 * An OTLP/HTTP trace receiver on loopback, as a collector would run one: it
 * takes `POST /v1/traces` in protobuf (`http/protobuf`) or JSON (`http/json`),
 * and keeps each payload as sent and each span, decoded, with the encodings
 * it came in.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every payload's text (protobuf's strings are in it as they are), to look for what must never be exported. */
  readonly payloads: string[] = [];
  /** Each payload's content type, in order. */
  readonly contentTypes: string[] = [];
  private server?: Server;

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks);
        const payload = request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
        const type = request.headers['content-type']?.split(';')[0].trim() ?? '';
        if (request.method !== 'POST' || request.url !== '/v1/traces') {
          response.writeHead(404).end();
        } else if (type === 'application/x-protobuf') {
          this.received(type, payload.toString('latin1'), fromProtobuf(payload));
          response.writeHead(200, { 'Content-Type': type }).end();
        } else if (type === 'application/json') {
          const text = payload.toString();
          this.received(type, text, JSON.parse(text) as ExportTraceServiceRequest);
          response.writeHead(200, { 'Content-Type': type }).end('{}');
        } else {
          response.writeHead(415).end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  private received(type: string, text: string, request: ExportTraceServiceRequest): void {
    this.contentTypes.push(type);
    this.payloads.push(text);
    this.spans.push(...decode(request));
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }
}

function decode(request: ExportTraceServiceRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap(({ resource, scopeSpans }) =>
    (scopeSpans ?? []).flatMap(({ spans }) =>
      (spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
        attributes: values(span.attributes),
        links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
        status: span.status ?? {},
        resource: values(resource?.attributes),
      })),
    ),
  );
}

function values(attributes: KeyValue[] = []): Record<string, unknown> {
  return Object.fromEntries(attributes.map(({ key, value }) => [key, valueOf(value)]));
}

function valueOf(value: AnyValue): unknown {
  if (value.intValue !== undefined) {
    return Number(value.intValue);
  }
  if (value.arrayValue !== undefined) {
    return (value.arrayValue.values ?? []).map(valueOf);
  }
  return value.stringValue ?? value.boolValue ?? value.doubleValue;
}
