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

/** A Standard Webhooks secret is this prefix and the base64 of the HMAC key, of the sizes it allows. */
const WEBHOOK_SECRET_PREFIX = 'whsec_';
const MIN_WEBHOOK_KEY_BYTES = 24;
const MAX_WEBHOOK_KEY_BYTES = 64;
/** Every key signs every delivery: enough for a rotation, and a signature header of bounded length. */
export const MAX_WEBHOOK_KEYS = 8;
/** Padded base64 of the standard alphabet, as `base64` and every Standard Webhooks library write it. */
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The webhook subscribers, signing secrets, delivery and upkeep of the outbox (docs/configuration.md). */
@Environment()
export class WebhookEnvironment {
  @IsOptional()
  @VariableRule('isSubscriberList', (value) => subscriberProblems(parseListEnv(value)))
  WEBHOOK_URLS?: string;

  @IsOptional()
  @VariableRule('isWebhookSecretList', webhookSecretProblems)
  WEBHOOK_SECRET?: string;

  @IntegerVariable(100, 60_000)
  WEBHOOK_TIMEOUT_MS = 5_000;

  @IntegerVariable(1, 100)
  WEBHOOK_MAX_ATTEMPTS = 10;

  @IntegerVariable(10, 3_600_000)
  WEBHOOK_BACKOFF_BASE_MS = 1_000;

  @IntegerVariable(10, 86_400_000)
  WEBHOOK_BACKOFF_MAX_MS = 300_000;

  @IntegerVariable(1, 256)
  WEBHOOK_SUBSCRIBER_CONCURRENCY = 16;

  @IntegerVariable(1, 1_000)
  WEBHOOK_CIRCUIT_FAILURES = 5;

  @IntegerVariable(10, 60_000)
  WEBHOOK_POLL_INTERVAL_MS = 1_000;

  @IntegerVariable(3_000, 86_400_000)
  WEBHOOK_SUBSCRIBER_LEASE_MS = 90_000;

  @IntegerVariable(0)
  WEBHOOK_RETENTION_MS = 604_800_000;

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
    subscribers: parseListEnv(env.WEBHOOK_URLS).map(parseSubscriber),
    /** One signature per key: a receiver moves to a new key while the old one still verifies. */
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

/** Over TLS, or plain HTTP to this machine only; an invalid URL is the list rule's to refuse. */
function isEncryptedOrLocal(entry: string): boolean {
  return URL.parse(entry)?.protocol !== 'http:' || isLoopbackUrl(entry);
}

/**
 * The HMAC key of a `whsec_<base64>` secret, or undefined. The base64 must encode back to itself:
 * a secret copied with a character lost or changed is refused rather than becoming another key.
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
