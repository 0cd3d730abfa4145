import { context, propagation, SpanKind, SpanStatusCode } from '@opentelemetry/api';

import { spanContextOf } from '../tracing/trace-context.js';
import { tracer } from '../tracing/tracer.js';
import {
  signWebhook,
  WEBHOOK_EVENT_TYPE_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from './webhook-signature.js';
import type { ClaimedDelivery } from './webhook-deliveries.repository.js';
import { describeError } from './webhook-subscribers.js';

export interface Attempt {
  /** Without credentials: those are in `authorization`. */
  readonly url: string;
  readonly authorization?: string;
  /** The subscriber as logs, spans and metrics name it: never its credentials or query. */
  readonly label: string;
  readonly signingKeys: readonly Uint8Array[];
  readonly timeoutMs: number;
}

/**
 * Answers why the attempt failed, if it did. Its span's context goes with the request, and it links
 * to the change that stored the event, as OpenTelemetry's messaging conventions link consumer to producer.
 */
export function sendWebhook(delivery: ClaimedDelivery, attempt: Attempt): Promise<string | undefined> {
  const target = URL.parse(attempt.url);
  const attributes = {
    'http.request.method': 'POST',
    'url.full': attempt.label,
    'server.address': target?.hostname,
    'server.port': target ? Number(target.port) || (target.protocol === 'https:' ? 443 : 80) : undefined,
    'webhook.event.id': delivery.eventId,
    'webhook.event.type': delivery.eventType,
    'webhook.attempt': delivery.attempts,
  };
  const producer = spanContextOf(delivery.traceparent);
  return tracer.startActiveSpan(
    `webhook ${delivery.eventType}`,
    { kind: SpanKind.CLIENT, attributes, links: producer ? [{ context: producer }] : [] },
    async (span) => {
      let failure: string | undefined;
      try {
        const timestamp = Math.floor(Date.now() / 1000);
        const headers: Record<string, string> = {
          'Content-Type': 'application/json',
          [WEBHOOK_ID_HEADER]: delivery.eventId,
          [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
          [WEBHOOK_SIGNATURE_HEADER]: signWebhook(
            attempt.signingKeys,
            delivery.eventId,
            timestamp,
            delivery.payload,
          ),
          [WEBHOOK_EVENT_TYPE_HEADER]: delivery.eventType,
          ...(attempt.authorization && { Authorization: attempt.authorization }),
        };
        propagation.inject(context.active(), headers);
        const response = await fetch(attempt.url, {
          method: 'POST',
          headers,
          body: delivery.payload,
          redirect: 'manual',
          signal: AbortSignal.timeout(attempt.timeoutMs),
        });
        await response.body?.cancel();
        span.setAttribute('http.response.status_code', response.status);
        failure = response.ok ? undefined : `HTTP ${response.status}`;
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        // The failure is stored, logged and traced: a URL in a message goes no further than its origin and path.
        failure = cause ?? describeError(error);
      }
      if (failure !== undefined) {
        span.setStatus({ code: SpanStatusCode.ERROR }).setAttribute('error.type', failure);
      }
      span.end();
      return failure;
    },
  );
}
