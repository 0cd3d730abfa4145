import { context, type Context, type Link, trace, TraceFlags } from '@opentelemetry/api';

import { withinDeadline } from './deadline.js';
import { ServiceUnavailableError } from '../errors/domain-error.js';

export interface BatchLoaderOptions {
  /** Batches in flight at once: what arrives while all are out leaves together in the next one. */
  readonly inFlight: number;
  readonly maxBatchSize: number;
  /** Whether a failure means the database is unavailable: the keys still waiting then fail with it. */
  readonly unavailable: (error: unknown) => boolean;
  /** The span each batch runs under, linked to the span of every request it serves. */
  readonly span: string;
  /**
   * How long a batch may take before its keys, and those waiting, fail as if the database were
   * unavailable (`withinDeadline`): the batch itself ends in the background.
   */
  readonly deadlineMs: number;
}

/** Answers a batch's keys in order, with an `Error` for a key that failed alone; each key's caller's context beside it. */
export type BatchFunction<K, V> = (
  keys: readonly K[],
  contexts: readonly Context[],
) => Promise<ReadonlyArray<V | Error>>;

interface Waiting<K, V> {
  readonly key: K;
  readonly context: Context;
  readonly resolve: (value: V) => void;
  readonly reject: (error: unknown) => void;
}

const tracer = trace.getTracer('plant-store');

/**
 * DataLoader's idea without a timer, so that a request alone never waits: `load(key)` leaves at once
 * while fewer than `inFlight` batches are out; otherwise keys wait and the next batch takes them all.
 * Nothing is cached.
 */
export class BatchLoader<K, V> {
  private readonly queue: Array<Waiting<K, V>> = [];
  private out = 0;

  constructor(
    private readonly batch: BatchFunction<K, V>,
    private readonly options: BatchLoaderOptions,
  ) {}

  load(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      this.queue.push({ key, context: context.active(), resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0 && this.out < this.options.inFlight) {
      const batch = this.queue.splice(0, this.options.maxBatchSize);
      this.out++;
      void this.run(batch).finally(() => {
        this.out--;
        this.dispatch();
      });
    }
  }

  /** The span's parent is the first sampled caller, so the statement shows in any recorded trace. */
  private run(batch: ReadonlyArray<Waiting<K, V>>): Promise<void> {
    const links: Link[] = [];
    let parent = batch[0].context;
    let sampled = false;
    for (const { context: caller } of batch) {
      const span = trace.getSpanContext(caller);
      if (span) {
        links.push({ context: span });
        if (!sampled && span.traceFlags & TraceFlags.SAMPLED) {
          parent = caller;
          sampled = true;
        }
      }
    }
    return tracer.startActiveSpan(
      this.options.span,
      { links, attributes: { 'plant_store.batch.size': batch.length } },
      parent,
      async (span) => {
        try {
          const outcomes = await withinDeadline(
            this.batch(
              batch.map(({ key }) => key),
              batch.map(({ context: caller }) => caller),
            ),
            this.options.deadlineMs,
          );
          batch.forEach(({ resolve, reject }, index) => {
            const outcome = outcomes[index];
            if (outcome instanceof Error) {
              reject(outcome);
            } else {
              resolve(outcome);
            }
          });
        } catch (error) {
          const unavailable = error instanceof ServiceUnavailableError || this.options.unavailable(error);
          const failed = unavailable ? [...batch, ...this.queue.splice(0)] : batch;
          for (const { reject } of failed) {
            reject(error);
          }
        } finally {
          span.end();
        }
      },
    );
  }
}
