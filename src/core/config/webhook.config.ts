import { registerAs, type ConfigType } from '@nestjs/config';

import { parseListEnv, readEnvironment } from './environment.js';

export const webhookConfig = registerAs('webhook', () => {
  const env = readEnvironment();
  return {
    /** Subscribers told about every new plant; none: no outbox row is written at all. */
    urls: parseListEnv(env.WEBHOOK_URLS),
    secret: env.WEBHOOK_SECRET ?? '',
    /** One delivery attempt's time limit. */
    timeoutMs: env.WEBHOOK_TIMEOUT_MS ?? 5_000,
    /** Attempts before an event is given up as dead. */
    maxAttempts: env.WEBHOOK_MAX_ATTEMPTS ?? 10,
    /** The pause after the n-th failure is about base × 2^(n-1), at most max, with jitter. */
    backoffBaseMs: env.WEBHOOK_BACKOFF_BASE_MS ?? 1_000,
    backoffMaxMs: env.WEBHOOK_BACKOFF_MAX_MS ?? 300_000,
    /** How often the outbox is looked at for due events (a new plant also wakes it). */
    pollIntervalMs: env.WEBHOOK_POLL_INTERVAL_MS ?? 1_000,
  };
});

export type WebhookConfig = ConfigType<typeof webhookConfig>;
