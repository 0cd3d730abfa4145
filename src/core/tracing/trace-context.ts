import { type Context, propagation, ROOT_CONTEXT, type SpanContext, trace } from '@opentelemetry/api';

/**
 * The W3C `traceparent` that travels with a message (a webhook event), or null; written by the
 * registered propagator, so that with tracing off nothing is made at all.
 */
export function traceparentOf(from: Context | undefined): string | null {
  if (!from || !trace.getSpanContext(from)) {
    return null;
  }
  const carrier: { traceparent?: string } = {};
  propagation.inject(from, carrier);
  return carrier.traceparent ?? null;
}

/** The span context a stored `traceparent` names, for a span link; undefined when none or unreadable. */
export function spanContextOf(traceparent: string | null | undefined): SpanContext | undefined {
  if (!traceparent) {
    return undefined;
  }
  return trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
}
