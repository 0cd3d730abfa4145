import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { format } from 'node:util';

import { diag, type DiagLogger, DiagLogLevel } from '@opentelemetry/api';
import { diagLogLevelFromString, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_URL_QUERY } from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';

import type { TracesProtocol } from './tracing-settings.js';

/** Probes and scrapes: frequent, and of no interest in a trace. */
const UNTRACED_PATHS = /^\/(health\/|metrics(\?|$))/;

/**
 * Configured by the OTEL_* variables, with spans for incoming HTTP and pg statements (the handlers'
 * come from `HandlerSpanInterceptor`). Answers the SDK's shutdown, which exports what is buffered.
 */
export function startSdk(logger: Logger, protocol: TracesProtocol): () => Promise<void> {
  // Either reads the endpoint, headers, compression and timeout from the OTEL_* variables itself.
  const exporter = protocol === 'http/json' ? new JsonTraceExporter() : new ProtobufTraceExporter();
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, which the SDK reads, win over this default.
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'plant-store' })),
    traceExporter: new WithoutStatusDescriptions(exporter),
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.test(request.url ?? ''),
        // A query string is request data (a tag, a cursor): the span keeps the path only.
        startIncomingSpanHook: () => ({ [ATTR_URL_QUERY]: undefined }),
        // The service's own outgoing calls use fetch; the exporter's are not to be traced.
        disableOutgoingRequestInstrumentation: true,
      }),
      new PgInstrumentation({
        // Statement texts are recorded (they are parameterised), never their values (enhancedDatabaseReporting).
        enhancedDatabaseReporting: false,
        // Outbox polling and migrations are no request's work: no trace of their own.
        requireParentSpan: true,
        // A span per pooled connection handed out would double the spans for little: waits show as gaps.
        ignoreConnectSpans: true,
      }),
    ],
    // Traces only: metrics stay with Prometheus, logs on standard output.
    metricReaders: [],
    logRecordProcessors: [],
  });
  diag.setLogger(diagnostics(logger), {
    logLevel: diagLogLevelFromString(process.env.OTEL_LOG_LEVEL || undefined) ?? DiagLogLevel.WARN,
    suppressOverrideMessage: true,
  });
  sdk.start();
  // The instrumentation patches node:http as it is required, which the ES modules that make the server never
  // do (they import it): it is required here, before any server exists, rather than left to Express's files.
  createRequire(import.meta.url)('node:http');
  return () => sdk.shutdown();
}

/** Outside any request: an export a request's span set off is not that request's work, nor logged as such. */
function diagnostics(logger: Logger): DiagLogger {
  const log = logger.child({ context: 'OpenTelemetry' });
  const outsideRequests = AsyncLocalStorage.snapshot();
  const writer =
    (level: 'error' | 'warn' | 'info' | 'debug' | 'trace') =>
    (message: string, ...args: unknown[]) =>
      outsideRequests(() => log[level](format(message, ...args)));
  return {
    error: writer('error'),
    warn: writer('warn'),
    info: writer('info'),
    debug: writer('debug'),
    verbose: writer('trace'),
  };
}

/**
 * pg's instrumentation copies PostgreSQL's error message into the status description, and it may quote
 * a value sent with the statement; the status code and `error.type` remain.
 */
class WithoutStatusDescriptions implements SpanExporter {
  constructor(private readonly exporter: SpanExporter) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.exporter.export(
      spans.map((span) =>
        span.status.message === undefined
          ? span
          : // The span with a status of its own; everything else is read through to it.
            (Object.create(span, { status: { value: { code: span.status.code } } }) as ReadableSpan),
      ),
      done,
    );
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }
}
