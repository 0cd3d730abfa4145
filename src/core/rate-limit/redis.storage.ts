import { once } from 'node:events';

import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Counter, Gauge, type Registry } from 'prom-client';

import { FixedWindowThrottlerStorage } from './fixed-window.storage.js';
import { RateLimitStorage, secondsFrom, type ThrottlerStorageRecord } from './rate-limit.storage.js';

export interface RedisSettings {
  /** Credentials included: never logged as it is. */
  readonly url: string;
  readonly timeoutMs: number;
}

/** A connection needs several round trips (TCP, TLS, AUTH, the ready check): more than one command. */
const CONNECT_TIMEOUT_MS = 1_000;
/** How often a Redis that stopped answering while still connected (hung) is asked again. */
const PROBE_INTERVAL_MS = 1_000;
const KEY_PREFIX = 'plant-store:rate-limit:';

/** One hit, as `FixedWindowThrottlerStorage` counts it, atomically. ARGV: window ms, limit, block ms. */
const HIT_SCRIPT = `
local blockMs = redis.call('PTTL', KEYS[2])
if blockMs > 0 then
  return {tonumber(redis.call('GET', KEYS[1]) or 0), redis.call('PTTL', KEYS[1]), 1, blockMs}
end
local hits = redis.call('INCR', KEYS[1])
local windowMs = redis.call('PTTL', KEYS[1])
if windowMs < 0 then
  windowMs = tonumber(ARGV[1])
  redis.call('PEXPIRE', KEYS[1], windowMs)
end
if hits > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  return {hits, windowMs, 1, tonumber(ARGV[3])}
end
return {hits, windowMs, 0, 0}
`;

type HitAnswer = [hits: number, windowMs: number, blocked: 0 | 1, blockMs: number];

interface RateLimitRedis extends Redis {
  rateLimitHit(
    hitsKey: string,
    blockKey: string,
    ttl: number,
    limit: number,
    blockMs: number,
  ): Promise<HitAnswer>;
}

/**
 * The rate-limit counters in Redis, falling back to this instance's memory while Redis is unreachable,
 * slow or hung, rather than failing open (docs/operations.md#shared-rate-limits-redis). Both keys of a
 * hit share a hash tag (the part in braces): on Redis Cluster a script's keys must live in one slot.
 */
export class RedisThrottlerStorage extends RateLimitStorage implements OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private readonly client: RateLimitRedis;
  private readonly location: string;
  private state: 'connecting' | 'up' | 'down' = 'connecting';
  private closing = false;
  /** Made here rather than when an outage begins, so that its log lines carry no request's context. */
  private readonly probe = setInterval(() => this.probeWhileDown(), PROBE_INTERVAL_MS).unref();
  private readonly upGauge: Gauge;
  private readonly uncounted: Counter;
  private readonly fallback = new FixedWindowThrottlerStorage();

  private constructor({ url, timeoutMs }: RedisSettings, registry: Registry) {
    super();
    this.location = withoutCredentials(url);
    this.upGauge = new Gauge({
      name: 'rate_limit_storage_up',
      help: 'Whether Redis, which holds the rate-limit counters, answers (1) or not (0: each instance counts in its own memory)',
      registers: [registry],
    });
    this.uncounted = new Counter({
      name: 'rate_limit_storage_errors_total',
      help: "Rate-limit checks counted in this instance's memory because Redis failed, timed out or was unreachable",
      registers: [registry],
    });
    this.client = new Redis(url, {
      commandTimeout: timeoutMs,
      connectTimeout: CONNECT_TIMEOUT_MS,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // Reconnect for ever, in the background, at least once a second.
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
    }) as RateLimitRedis;
    this.client.defineCommand('rateLimitHit', { numberOfKeys: 2, lua: HIT_SCRIPT });
    this.client.on('ready', () => this.markUp());
    this.client.on('error', (error: Error) => this.markDown(error.message));
    this.client.on('close', () => this.markDown('connection closed'));
  }

  /** Waits for Redis at most the connect timeout: the service starts all the same, counting in memory. */
  static async connect(settings: RedisSettings, registry: Registry): Promise<RedisThrottlerStorage> {
    const storage = new RedisThrottlerStorage(settings, registry);
    await once(storage.client, 'ready', { signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS) }).catch(
      (error: unknown) =>
        storage.markDown(
          error instanceof Error && error.name !== 'AbortError'
            ? error.message
            : `no connection within ${CONNECT_TIMEOUT_MS} ms`,
        ),
    );
    return storage;
  }

  increment(key: string, ttl: number, limit: number, blockDuration: number): Promise<ThrottlerStorageRecord> {
    const hit = () => this.fallback.increment(key, ttl, limit, blockDuration);
    if (this.state !== 'up') {
      return this.inMemory(hit);
    }
    return this.client.rateLimitHit(hitsKeyOf(key), blockKeyOf(key), ttl, limit, blockDuration).then(
      ([totalHits, windowMs, blocked, blockMs]) => ({
        totalHits,
        timeToExpire: secondsFrom(windowMs),
        isBlocked: blocked === 1,
        timeToBlockExpire: blocked === 1 ? secondsFrom(blockMs) : 0,
      }),
      (error: unknown) => this.inMemory(hit, error),
    );
  }

  blockedFor(key: string): Promise<number> {
    const check = () => Promise.resolve(this.fallback.blockedFor(key));
    if (this.state !== 'up') {
      return this.inMemory(check);
    }
    return this.client.pttl(blockKeyOf(key)).then(
      (blockMs) => (blockMs > 0 ? secondsFrom(blockMs) : 0),
      (error: unknown) => this.inMemory(check, error),
    );
  }

  /** After the requests in flight have finished (see the graceful shutdown). */
  onApplicationShutdown(): void {
    this.closing = true;
    clearInterval(this.probe);
    this.fallback.onModuleDestroy();
    this.client.disconnect();
  }

  private inMemory<T>(count: () => Promise<T>, error?: unknown): Promise<T> {
    this.uncounted.inc();
    if (error !== undefined) {
      this.markDown(error instanceof Error ? error.message : 'unexpected failure');
    }
    return count();
  }

  private markUp(): void {
    if (this.state === 'up' || this.closing) {
      return;
    }
    const recovered = this.state === 'down';
    this.state = 'up';
    this.upGauge.set(1);
    this.logger.log(
      recovered
        ? `Redis at ${this.location} is back: rate limits are counted again`
        : `Rate limits are counted in Redis at ${this.location}, shared by every instance using it`,
    );
  }

  private markDown(reason: string): void {
    if (this.state === 'down' || this.closing) {
      return;
    }
    this.state = 'down';
    this.upGauge.set(0);
    this.logger.warn(
      `Redis at ${this.location} is unreachable (${reason}): each instance counts rate limits in its own memory until it answers again`,
    );
  }

  /** A hung Redis keeps its connection: only a command that gets an answer tells it is back. */
  private probeWhileDown(): void {
    if (this.state === 'down' && this.client.status === 'ready') {
      this.client.ping().then(
        () => this.markUp(),
        () => undefined,
      );
    }
  }
}

function hitsKeyOf(key: string): string {
  return `${KEY_PREFIX}{${key}}`;
}

function blockKeyOf(key: string): string {
  return `${KEY_PREFIX}{${key}}:blocked`;
}

function withoutCredentials(url: string): string {
  const { protocol, host, pathname } = new URL(url);
  return `${protocol}//${host}${pathname}`;
}
