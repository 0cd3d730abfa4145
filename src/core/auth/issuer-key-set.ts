import { Logger } from '@nestjs/common';
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWK, type JWTVerifyGetKey } from 'jose';

export interface KeySetSettings {
  readonly url: URL;
  readonly timeoutMs: number;
  readonly cacheMaxAgeMs: number;
  readonly maxStaleMs: number;
  readonly cooldownMs: number;
}

/** The key set could not be had: no verdict on the token, which is answered 503. */
export class KeySetUnavailableError extends Error {
  override readonly name = 'KeySetUnavailableError';
}

/** A real key set holds a few keys: a few kilobytes. More is refused unread. */
export const MAX_KEY_SET_BYTES = 64 * 1024;
/** With no usable key set, the pause after a failed fetch; it doubles per failure in a row, to the cooldown. */
const FIRST_RETRY_PAUSE_MS = 1_000;

type LocalKeySet = ReturnType<typeof createLocalJWKSet>;

/**
 * jose's key lookup, kept through the issuer's outages: jose's own remote key set serves nothing past
 * its cache age, so every token would wait for a fetch, and get 503 while the issuer is down. Here a
 * stale set serves while one fetch refreshes it, for `maxStaleMs` more; a flood of unknown `kid`s
 * reaches the issuer once per `cooldownMs`; failures back off (docs/api.md#authentication). Only
 * asymmetric keys are kept: an `oct` key in a set anyone may read could sign for anyone.
 */
export class IssuerKeySet {
  private readonly logger = new Logger('Auth');
  private local?: LocalKeySet;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private attemptedAt = Number.NEGATIVE_INFINITY;
  private failedAt = Number.NEGATIVE_INFINITY;
  /** Fetches failed in a row. */
  private failures = 0;
  private pending?: Promise<void>;

  constructor(
    private readonly settings: KeySetSettings,
    private readonly fetchKeySet: typeof fetch = fetch,
    private readonly now: () => number = Date.now,
  ) {}

  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    if (!this.isUsable()) {
      await this.usableKeySet();
    } else if (this.now() - this.fetchedAt >= this.settings.cacheMaxAgeMs && this.mayFetch()) {
      this.refresh().catch(() => undefined);
    }
    try {
      return await this.local!(header, token);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey && this.mayFetch()) {
        await this.refresh();
        return this.local!(header, token);
      }
      throw error;
    }
  };

  /** Until a retry pause has passed since a failed fetch, there is no key set to use, and no fetch. */
  private async usableKeySet(): Promise<void> {
    if (!this.pending && this.now() - this.failedAt < this.retryPauseMs()) {
      throw new KeySetUnavailableError("the token issuer's key set could not be fetched just now");
    }
    await this.refresh();
  }

  private retryPauseMs(): number {
    return Math.min(FIRST_RETRY_PAUSE_MS * 2 ** Math.max(this.failures - 1, 0), this.settings.cooldownMs);
  }

  private isUsable(): boolean {
    return (
      this.local !== undefined &&
      this.now() - this.fetchedAt < this.settings.cacheMaxAgeMs + this.settings.maxStaleMs
    );
  }

  private mayFetch(): boolean {
    return !this.pending && this.now() - this.attemptedAt >= this.settings.cooldownMs;
  }

  /** One fetch at a time; every caller waits for the one in flight. */
  private refresh(): Promise<void> {
    this.pending ??= this.fetchOnce().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async fetchOnce(): Promise<void> {
    this.attemptedAt = this.now();
    try {
      this.local = createLocalJWKSet(await this.download());
      this.fetchedAt = this.now();
      this.failures = 0;
    } catch (error) {
      this.failedAt = this.now();
      this.failures++;
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn(
        this.isUsable()
          ? `The token issuer's key set could not be refreshed (${reason}); the copy fetched ${Math.round((this.now() - this.fetchedAt) / 1000)} s ago serves meanwhile`
          : `The token issuer's key set could not be fetched (${reason}); JWTs are answered 503 until it can, and it is tried again in ${Math.round(this.retryPauseMs() / 1000)} s at the earliest`,
      );
      throw error instanceof KeySetUnavailableError || error instanceof errors.JWKSTimeout
        ? error
        : new KeySetUnavailableError(reason, { cause: error });
    }
  }

  private async download(): Promise<JSONWebKeySet> {
    const response = await this.fetchKeySet(this.settings.url, {
      redirect: 'manual',
      signal: AbortSignal.timeout(this.settings.timeoutMs),
      headers: { accept: 'application/jwk-set+json, application/json' },
    }).catch((error: unknown) => {
      throw error instanceof Error && error.name === 'TimeoutError'
        ? new errors.JWKSTimeout(undefined, { cause: error })
        : error;
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new KeySetUnavailableError(`the issuer answered ${response.status}`);
    }
    const set: unknown = JSON.parse(await readAtMost(response, MAX_KEY_SET_BYTES));
    const keys = (set as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(keys)) {
      throw new KeySetUnavailableError('the issuer answered no key set');
    }
    return {
      keys: (keys as unknown[]).filter(
        (key): key is JWK => typeof key === 'object' && key !== null && (key as JWK).kty !== 'oct',
      ),
    };
  }
}

/** Refused once past `limit` bytes, declared or read. */
async function readAtMost(response: Response, limit: number): Promise<string> {
  const tooLarge = () => new KeySetUnavailableError(`the key set is larger than ${limit} bytes`);
  if (Number(response.headers.get('content-length') ?? 0) > limit) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader: ReadableStreamDefaultReader<Uint8Array> | undefined = response.body?.getReader();
  for (let read = await reader?.read(); read && !read.done; read = await reader!.read()) {
    size += read.value.byteLength;
    if (size > limit) {
      await reader!.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
