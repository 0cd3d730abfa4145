import { secondsFrom, type ThrottlerStorageRecord } from './rate-limit.storage.js';

/**
 * draft-ietf-httpapi-ratelimit-headers-10: `RateLimit-Policy: "token";q=100;w=60` is the limit (q requests
 * per w seconds), `RateLimit: "token";r=42;t=17` what is left of it (r requests, whole again in t seconds).
 */
export const RATE_LIMIT_POLICY_FIELD = 'RateLimit-Policy';
export const RATE_LIMIT_FIELD = 'RateLimit';

export type RateLimitFields = Readonly<
  Record<typeof RATE_LIMIT_POLICY_FIELD | typeof RATE_LIMIT_FIELD, string>
>;

export function rateLimitFields(
  policy: string,
  limit: number,
  windowMs: number,
  record: ThrottlerStorageRecord,
): RateLimitFields {
  return {
    [RATE_LIMIT_POLICY_FIELD]: `"${policy}";q=${limit};w=${secondsFrom(windowMs)}`,
    [RATE_LIMIT_FIELD]: record.isBlocked
      ? `"${policy}";r=0;t=${record.timeToBlockExpire}`
      : `"${policy}";r=${Math.max(0, limit - record.totalHits)};t=${record.timeToExpire}`,
  };
}

/** A blocked key's hits are not counted meanwhile. */
export function blockedFields(
  policy: string,
  limit: number,
  windowMs: number,
  seconds: number,
): RateLimitFields {
  return rateLimitFields(policy, limit, windowMs, {
    totalHits: limit,
    timeToExpire: seconds,
    isBlocked: true,
    timeToBlockExpire: seconds,
  });
}
