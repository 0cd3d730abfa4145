import { webhooks } from './generated/int64.js';
import { parseJson, type Int64Shape } from './json.js';
import type { NewPlant } from './types.js';

export interface VerifyWebhookOptions {
  /**
   * The subscription's secret, as the service's `WEBHOOK_SECRET` gives it: `whsec_` and the base64 of
   * the HMAC key (the prefix may be left out).
   */
  readonly secret: string;
  /** The delivery's headers: a fetch `Headers`, or Node.js's `request.headers`. */
  readonly headers: Headers | Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The body exactly as received, before any parsing: the signature covers its bytes. */
  readonly rawBody: string | Uint8Array;
  /** How far `webhook-timestamp` may be from now, either way, in seconds: an older delivery may be a replay. */
  readonly toleranceSeconds?: number;
}

/** A delivery that cannot be trusted: a header is missing, its timestamp is too old, or no signature matches. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Any of the webhooks' bodies: which one it is, the `webhook-event-type` header says. */
const WEBHOOK_BODY: Int64Shape = { anyOf: Object.values(webhooks) };

const SECRET_PREFIX = 'whsec_';
const UNIX_SECONDS = /^\d+$/;
const encoder = new TextEncoder();

/**
 * Checks a webhook delivery as the Standard Webhooks specification defines
 * it, and returns its body, the id a bigint: the plant for `plant.created`
 * and `plant.updated`; for `plant.deleted` the id alone, though typed as a
 * plant (`webhook-event-type` tells the events apart).
 * `webhook-signature` holds space-separated `v1,<base64>` signatures (several
 * while the secret is rotated); one must be the HMAC-SHA256, keyed with the
 * secret, of `<webhook-id>.<webhook-timestamp>.<body>`. The same event may be
 * delivered more than once: de-duplicate on `webhook-id`.
 *
 * @throws WebhookVerificationError when the delivery is not genuine or too old.
 * @throws TypeError when the secret is not base64.
 */
export async function verifyWebhook({
  secret,
  headers,
  rawBody,
  toleranceSeconds = 300,
}: VerifyWebhookOptions): Promise<NewPlant> {
  const key = await crypto.subtle.importKey(
    'raw',
    hmacKey(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    throw new WebhookVerificationError(
      'A webhook-id, webhook-timestamp or webhook-signature header is missing',
    );
  }
  if (!UNIX_SECONDS.test(timestamp)) {
    throw new WebhookVerificationError('The webhook-timestamp header is not a time in Unix seconds');
  }
  const skew = Math.floor(Date.now() / 1000) - Number(timestamp);
  if (Math.abs(skew) > toleranceSeconds) {
    throw new WebhookVerificationError(
      `The webhook-timestamp is ${Math.abs(skew)} s in the ${skew > 0 ? 'past' : 'future'}, more than the ${toleranceSeconds} s tolerated`,
    );
  }

  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const signed = concatenate(encoder.encode(`${id}.${timestamp}.`), body);
  for (const signature of signatures.split(' ')) {
    const digest = signature.startsWith('v1,') ? fromBase64(signature.slice('v1,'.length)) : undefined;
    // SubtleCrypto compares an HMAC in constant time, which a byte-by-byte comparison here would not.
    if (digest !== undefined && (await crypto.subtle.verify('HMAC', key, digest, signed))) {
      return parseJson(new TextDecoder().decode(body), WEBHOOK_BODY) as NewPlant;
    }
  }
  throw new WebhookVerificationError('No signature in webhook-signature matches the body and the secret');
}

function header(headers: VerifyWebhookOptions['headers'], name: string): string | undefined {
  if (isHeaders(headers)) {
    return headers.get(name) ?? undefined;
  }
  // Node.js lower-cases the names it receives; a record built by hand may not.
  const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return typeof value === 'string' ? value : value?.join(' ');
}

/** Not `instanceof Headers`: a framework's request may carry its own class, or one from another realm. */
function isHeaders(headers: VerifyWebhookOptions['headers']): headers is Headers {
  return typeof headers.get === 'function';
}

function hmacKey(secret: string): Uint8Array<ArrayBuffer> {
  const key = fromBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  if (key === undefined || key.length === 0) {
    throw new TypeError(`The webhook secret must be ${SECRET_PREFIX} followed by the base64 of the key`);
  }
  return key;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    return Uint8Array.from(atob(text), (character) => character.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function concatenate(first: Uint8Array, second: Uint8Array): Uint8Array<ArrayBuffer> {
  const joined = new Uint8Array(first.length + second.length);
  joined.set(first);
  joined.set(second, first.length);
  return joined;
}
