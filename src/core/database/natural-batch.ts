import { context, type Context, type Link, trace, TraceFlags } from '@opentelemetry/api';

import { tracer } from '../tracing/tracer.js';

export interface NaturalBatchOptions {
  /** Batches in flight at once; what arrives meanwhile waits and leaves together in the next one. */
  readonly concurrency: number;
  /** Items in one batch at most. */
  readonly maxBatchSize: number;
  /**
   * Whether a batch of several items that failed with this error is run
   * again item by item, each alone, so that one item the database refuses
   * does not fail the others. Not for an error that would fail them all
   * again (the database gone). Unset: a failing batch fails all its items.
   */
  readonly retryAlone?: (error: unknown) => boolean;
  /**
   * The name of a span each batch runs under, linked to the span of every
   * caller it serves, since one statement does the work of many requests.
   * Unset: no span, and no caller's context is kept.
   */
  readonly span?: string;
}

/** An item's own failure, among the outcomes of a batch whose other items succeed. */
export class ItemFailure {
  constructor(readonly error: unknown) {}
}

interface Waiting<I, O> {
  readonly item: I;
  readonly resolve: (outcome: O) => void;
  readonly reject: (error: unknown) => void;
  /** The trace context of the caller, for the batch's span (undefined without one). */
  readonly context: Context | undefined;
}

/**
 * Natural batching: an item that finds a free slot is sent at once, alone
 * (no timer, no added latency at low load); items that arrive while every
 * slot is busy wait, and leave together as one batch as soon as a slot
 * frees up. Under load, one statement answers many requests.
 *
 * `run` answers a batch's items with one outcome each, in their order (an
 * `ItemFailure` fails that item alone); when it throws, every item of the
 * batch fails with its error, or is run again alone (`retryAlone`). It is
 * given the callers' trace contexts too, in the same order (with `span`;
 * else none), for work that carries each one's context further.
 */
export class NaturalBatch<I, O> {
  private readonly queue: Array<Waiting<I, O>> = [];
  private inFlight = 0;

  constructor(
    private readonly run: (
      items: I[],
      contexts: ReadonlyArray<Context | undefined>,
    ) => Promise<ArrayLike<O | ItemFailure>>,
    private readonly options: NaturalBatchOptions,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({
        item,
        resolve,
        reject,
        context: this.options.span === undefined ? undefined : context.active(),
      });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0 && this.inFlight < this.options.concurrency) {
      const batch = this.queue.splice(0, this.options.maxBatchSize);
      this.inFlight++;
      void this.answer(batch).finally(() => {
        this.inFlight--;
        this.dispatch();
      });
    }
  }

  private answer(batch: Array<Waiting<I, O>>): Promise<void> {
    return this.options.span === undefined ? this.settle(batch) : this.traced(this.options.span, batch);
  }

  /**
   * Runs a batch under a span of its own, linked to the span of each caller;
   * its parent is the first of them whose trace is sampled (so that the
   * statement shows in a recorded trace when any of them is), or else the
   * first.
   */
  private traced(name: string, batch: Array<Waiting<I, O>>): Promise<void> {
    const links: Link[] = [];
    let parent = batch[0].context ?? context.active();
    let sampled = false;
    for (const waiting of batch) {
      const caller = waiting.context;
      const spanContext = caller && trace.getSpanContext(caller);
      if (caller && spanContext) {
        links.push({ context: spanContext });
        if (!sampled && spanContext.traceFlags & TraceFlags.SAMPLED) {
          parent = caller;
          sampled = true;
        }
      }
    }
    return tracer.startActiveSpan(
      name,
      { links, attributes: { 'plant_store.batch.size': batch.length } },
      parent,
      (span) => this.settle(batch).finally(() => span.end()),
    );
  }

  private async settle(batch: Array<Waiting<I, O>>): Promise<void> {
    let outcomes: ArrayLike<O | ItemFailure>;
    try {
      outcomes = await this.run(
        batch.map(({ item }) => item),
        batch.map(({ context: caller }) => caller),
      );
    } catch (error) {
      if (batch.length > 1 && this.options.retryAlone?.(error)) {
        await Promise.all(batch.map((waiting) => this.answer([waiting])));
      } else {
        for (const { reject } of batch) {
          reject(error);
        }
      }
      return;
    }
    for (let index = 0; index < batch.length; index++) {
      const outcome = outcomes[index];
      if (outcome instanceof ItemFailure) {
        batch[index].reject(outcome.error);
      } else {
        batch[index].resolve(outcome);
      }
    }
  }
}
