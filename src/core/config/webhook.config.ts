import { registerAs, type ConfigType } from '@nestjs/config';
import { IsOptional } from 'class-validator';

import {
  entriesThatAreNot,
  Environment,
  IntegerVariable,
  isLoopbackUrl,
  parseListEnv,
  readEnvironment,
  VariableRule,
} from './environment.js';
import { parseSubscriber, subscriberProblems } from '../webhooks/webhook-subscribers.js';

/** A Standard Webhooks secret is this prefix and the base64 of the HMAC key. */
const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** The key sizes the Standard Webhooks specification allows. */
const MIN_WEBHOOK_KEY_BYTES = 24;
const MAX_WEBHOOK_KEY_BYTES = 64;
/** Every key signs every delivery: enough for a rotation, and a signature header of bounded length. */
export const MAX_WEBHOOK_KEYS = 8;
/** Padded base64 of the standard alphabet, as `base64` and every Standard Webhooks library write it. */
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The webhook subscribers, the signing secrets, delivery and upkeep of the outbox. */
@Environment()
export class WebhookEnvironment {
  /**
   * Subscribers told about every event; unset: no outbox row is written at
   * all. Credentials in an entry are sent as Basic authorization.
   */
  @IsOptional()
  @VariableRule('isSubscriberList', (value) => subscriberProblems(parseListEnv(value)))
  WEBHOOK_URLS?: string;

  @IsOptional()
  @VariableRule('isWebhookSecretList', webhookSecretProblems)
  WEBHOOK_SECRET?: string;

  /** One delivery attempt's time limit. */
  @IntegerVariable(100, 60_000)
  WEBHOOK_TIMEOUT_MS = 5_000;

  /** Attempts before an event is given up as dead. */
  @IntegerVariable(1, 100)
  WEBHOOK_MAX_ATTEMPTS = 10;

  /** The pause after the n-th failure is about base × 2^(n-1), at most max, with jitter. */
  @IntegerVariable(10, 3_600_000)
  WEBHOOK_BACKOFF_BASE_MS = 1_000;

  @IntegerVariable(10, 86_400_000)
  WEBHOOK_BACKOFF_MAX_MS = 300_000;

  /**
   * Attempts in flight to one subscriber, per instance: a subscriber that
   * stalls holds this many and no more, and the others go on.
   */
  @IntegerVariable(1, 256)
  WEBHOOK_SUBSCRIBER_CONCURRENCY = 16;

  /**
   * Failed attempts in a row after which an instance stops sending to the
   * subscriber for a pause (its circuit opens), then tries one event.
   */
  @IntegerVariable(1, 1_000)
  WEBHOOK_CIRCUIT_FAILURES = 5;

  /** How often the outbox is looked at for due events (a new plant also wakes it). */
  @IntegerVariable(10, 60_000)
  WEBHOOK_POLL_INTERVAL_MS = 1_000;

  /**
   * How long a subscriber is still taken as configured after the last
   * instance configured with it stopped renewing it: then its pending events
   * are marked unsubscribed. Each instance renews its own every third of it.
   */
  @IntegerVariable(3_000, 86_400_000)
  WEBHOOK_SUBSCRIBER_LEASE_MS = 90_000;

  /** How long delivered and dead events are kept; 0: for ever. */
  @IntegerVariable(0)
  WEBHOOK_RETENTION_MS = 604_800_000;

  /** How often each instance deletes the events past their retention. */
  @IntegerVariable(1_000, 86_400_000)
  WEBHOOK_CLEANUP_INTERVAL_MS = 600_000;

  static crossCheck(env: Readonly<Record<string, unknown>>): string[] {
    const problems: string[] = [];
    if (env.WEBHOOK_URLS && !env.WEBHOOK_SECRET) {
      problems.push('WEBHOOK_URLS needs WEBHOOK_SECRET, to sign what is sent');
    }
    if (env.NODE_ENV === 'production') {
      // Positions, not the URLs: one may carry credentials.
      const plain = entriesThatAreNot(env.WEBHOOK_URLS, isEncryptedOrLocal);
      if (plain) {
        problems.push(
          `WEBHOOK_URLS must list https:// URLs with NODE_ENV=production (http:// only to loopback); ${plain}`,
        );
      }
    }
    return problems;
  }
}

export const webhookConfig = registerAs('webhook', () => {
  const env = readEnvironment(WebhookEnvironment);
  return {
    /** Only what may be stored or shown (`key`) is ever written; the credentials stay in memory. */
    subscribers: parseListEnv(env.WEBHOOK_URLS).map(parseSubscriber),
    /**
     * The HMAC keys of WEBHOOK_SECRET's `whsec_` secrets (validated already):
     * every delivery carries one signature per key, so that a receiver can
     * move to a new key while the old one still verifies.
     */
    signingKeys: parseListEnv(env.WEBHOOK_SECRET).map((entry) => decodeWebhookSecret(entry)!),
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    maxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
    backoffBaseMs: env.WEBHOOK_BACKOFF_BASE_MS,
    backoffMaxMs: env.WEBHOOK_BACKOFF_MAX_MS,
    subscriberConcurrency: env.WEBHOOK_SUBSCRIBER_CONCURRENCY,
    circuitFailures: env.WEBHOOK_CIRCUIT_FAILURES,
    pollIntervalMs: env.WEBHOOK_POLL_INTERVAL_MS,
    subscriberLeaseMs: env.WEBHOOK_SUBSCRIBER_LEASE_MS,
    retentionMs: env.WEBHOOK_RETENTION_MS,
    cleanupIntervalMs: env.WEBHOOK_CLEANUP_INTERVAL_MS,
  };
});

export type WebhookConfig = ConfigType<typeof webhookConfig>;

/**
 * Whether a delivery to the URL is safe to send in production: over TLS, or
 * over plain HTTP to this machine only (a receiver in the same pod or host).
 * Invalid URLs are refused by the list's own rule.
 */
function isEncryptedOrLocal(entry: string): boolean {
  return URL.parse(entry)?.protocol !== 'http:' || isLoopbackUrl(entry);
}

/**
 * The HMAC key of a `whsec_<base64>` secret, or undefined when the entry is
 * not one. The base64 must be canonical (it encodes back to itself), so that
 * a secret copied with a character lost or changed is refused rather than
 * silently becoming another key.
 */
export function decodeWebhookSecret(entry: string): Buffer | undefined {
  if (!entry.startsWith(WEBHOOK_SECRET_PREFIX)) {
    return undefined;
  }
  const encoded = entry.slice(WEBHOOK_SECRET_PREFIX.length);
  if (encoded.length === 0 || !BASE64_PATTERN.test(encoded)) {
    return undefined;
  }
  const key = Buffer.from(encoded, 'base64');
  return key.toString('base64') === encoded ? key : undefined;
}

/** What is wrong with each secret of the list, by position: a secret is never echoed. */
function webhookSecretProblems(value: unknown): string[] {
  const entries = parseListEnv(value);
  if (entries.length === 0) {
    return ['WEBHOOK_SECRET must list one or more secrets, separated by commas'];
  }
  if (entries.length > MAX_WEBHOOK_KEYS) {
    return [`WEBHOOK_SECRET must list at most ${MAX_WEBHOOK_KEYS} secrets`];
  }
  return entries.flatMap((entry, index) => {
    const position = `WEBHOOK_SECRET entry ${index + 1}`;
    if (!entry.startsWith(WEBHOOK_SECRET_PREFIX)) {
      // Most likely a secret of the signatures before Standard Webhooks: its bytes can stay the key.
      return [
        `${position} is not a Standard Webhooks secret (${WEBHOOK_SECRET_PREFIX} and the base64 of the key); ` +
          `to keep the key of a plain secret, write ${WEBHOOK_SECRET_PREFIX} followed by ` +
          `the output of: printf %s "$OLD_SECRET" | base64 | tr -d '\\n' (see docs/webhooks.md)`,
      ];
    }
    const key = decodeWebhookSecret(entry);
    if (!key) {
      return [`${position} is not valid padded base64 after ${WEBHOOK_SECRET_PREFIX}`];
    }
    if (key.length < MIN_WEBHOOK_KEY_BYTES || key.length > MAX_WEBHOOK_KEY_BYTES) {
      return [`${position} must encode a key of ${MIN_WEBHOOK_KEY_BYTES} to ${MAX_WEBHOOK_KEY_BYTES} bytes`];
    }
    return [];
  });
}
