import { setTimeout as sleep } from 'node:timers/promises';

import { TEST_TOKEN } from './environment.js';

export interface CreateResult {
  readonly id: number;
  readonly name: string;
  /** The HTTP status, or the client-side failure (ECONNREFUSED, a timeout, …). */
  readonly status: number | string;
  readonly retryAfter: string | null;
  readonly body: unknown;
  readonly startedAt: number;
  readonly ms: number;
}

export interface LoadOptions {
  readonly url: string | (() => string);
  readonly workers: number;
  /** The load stops when this resolves; every request in flight then finishes. */
  readonly until: Promise<unknown>;
  readonly firstId: number;
  /** A request that takes longer than this counts as hung. */
  readonly timeoutMs?: number;
  /** Pause between one worker's requests. */
  readonly pauseMs?: number;
}

/**
 * A bounded load of creates with known ids: each worker sends one create at a
 * time until `until` settles. Every answer is recorded, with its timing.
 */
export async function runCreateLoad(options: LoadOptions): Promise<CreateResult[]> {
  const results: CreateResult[] = [];
  let stopped = false;
  void options.until.finally(() => (stopped = true));
  let nextId = options.firstId;

  const worker = async () => {
    while (!stopped) {
      const id = nextId++;
      const name = `Load plant ${id}`;
      const startedAt = Date.now();
      const url = typeof options.url === 'function' ? options.url() : options.url;
      try {
        const response = await fetch(`${url}/plants`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ id, name }),
          signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
        });
        const text = await response.text();
        results.push({
          id,
          name,
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          body: JSON.parse(text) as unknown,
          startedAt,
          ms: Date.now() - startedAt,
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause;
        results.push({
          id,
          name,
          status: cause?.code ?? (error as Error).name,
          retryAfter: null,
          body: undefined,
          startedAt,
          ms: Date.now() - startedAt,
        });
        // A refused connection answers at once: do not spin.
        await sleep(20);
      }
      if (options.pauseMs) {
        await sleep(options.pauseMs);
      }
    }
  };
  await Promise.all(Array.from({ length: options.workers }, worker));
  return results;
}
