import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

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
 * An OTLP/HTTP trace receiver on loopback, as a collector would run one: it
 * takes `POST /v1/traces` in JSON (`http/json`), and keeps each payload as
 * sent and each span, decoded.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every payload's text, to look for what must never be exported. */
  readonly payloads: string[] = [];
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
        const text = (request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString();
        if (request.method !== 'POST' || request.url !== '/v1/traces') {
          response.writeHead(404).end();
        } else if (!request.headers['content-type']?.startsWith('application/json')) {
          response.writeHead(415).end();
        } else {
          this.payloads.push(text);
          this.spans.push(...decode(JSON.parse(text) as ExportTraceServiceRequest));
          response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
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
