import { createHmac } from 'node:crypto';

export const WEBHOOK_ID_HEADER = 'Webhook-Id';
export const WEBHOOK_TIMESTAMP_HEADER = 'Webhook-Timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'Webhook-Signature';

/**
 * `v1=` and the hex HMAC-SHA256, keyed with the shared secret, of the
 * timestamp (Unix seconds), a dot, and the body exactly as sent. A receiver
 * recomputes it, compares in constant time, and refuses old timestamps.
 */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
