import { createHmac } from 'node:crypto';

/** The Standard Webhooks headers (https://www.standardwebhooks.com), as its libraries read them. */
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
/**
 * The event's type (`plant.created`). Standard Webhooks puts the type in the
 * body, but the bodies here are the resources themselves (the `plant/webhook`
 * body is a NewPlant), so a receiver of several types tells them apart here.
 */
export const WEBHOOK_EVENT_TYPE_HEADER = 'webhook-event-type';

/**
 * The `webhook-signature` header: for each key, `v1,` and the base64
 * HMAC-SHA256 of the event id, the timestamp (Unix seconds) and the body
 * exactly as sent, joined by dots; several are separated by spaces. Signing
 * the id too means a captured delivery cannot be replayed under another id
 * to get past a receiver's de-duplication. A receiver accepts the delivery
 * when any signature matches one of its keys, so keys rotate without a gap.
 */
export function signWebhook(
  keys: readonly Uint8Array[],
  eventId: string,
  timestamp: number,
  body: string,
): string {
  const signed = `${eventId}.${timestamp}.${body}`;
  return keys.map((key) => `v1,${createHmac('sha256', key).update(signed).digest('base64')}`).join(' ');
}
