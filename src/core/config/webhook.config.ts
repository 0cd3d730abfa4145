import { registerAs, type ConfigType } from '@nestjs/config';

import { decodeWebhookSecret, parseListEnv, readEnvironment } from './environment.js';

export const webhookConfig = registerAs('webhook', () => {
  const env = readEnvironment();
  return {
    /** Subscribers told about every event; none: no outbox row is written at all. */
    urls: parseListEnv(env.WEBHOOK_URLS),
    /**
     * The HMAC keys of WEBHOOK_SECRET's `whsec_` secrets (validated already):
     * every delivery carries one signature per key, so that a receiver can
     * move to a new key while the old one still verifies.
     */
    signingKeys: parseListEnv(env.WEBHOOK_SECRET).map((entry) => decodeWebhookSecret(entry)!),
    /** One delivery attempt's time limit. */
    timeoutMs: env.WEBHOOK_TIMEOUT_MS ?? 5_000,
    /** Attempts before an event is given up as dead. */
    maxAttempts: env.WEBHOOK_MAX_ATTEMPTS ?? 10,
    /** The pause after the n-th failure is about base × 2^(n-1), at most max, with jitter. */
    backoffBaseMs: env.WEBHOOK_BACKOFF_BASE_MS ?? 1_000,
    backoffMaxMs: env.WEBHOOK_BACKOFF_MAX_MS ?? 300_000,
    /** How often the outbox is looked at for due events (a new plant also wakes it). */
    pollIntervalMs: env.WEBHOOK_POLL_INTERVAL_MS ?? 1_000,
    /** How long delivered and dead events are kept; 0: for ever. */
    retentionMs: env.WEBHOOK_RETENTION_MS ?? 7 * 24 * 3_600_000,
    /** How often each instance deletes the events past their retention. */
    cleanupIntervalMs: env.WEBHOOK_CLEANUP_INTERVAL_MS ?? 600_000,
  };
});

export type WebhookConfig = ConfigType<typeof webhookConfig>;
