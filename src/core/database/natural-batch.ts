export interface NaturalBatchOptions {
  /** Batches in flight at once; what arrives meanwhile waits and leaves together in the next one. */
  readonly concurrency: number;
  /** Keys in one batch at most. */
  readonly maxBatchSize: number;
}

interface Waiting<K, V> {
  readonly key: K;
  readonly resolve: (value: V | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Natural batching of lookups by key: a lookup that finds a free slot is sent
 * at once, alone (no timer, no added latency at low load); lookups that
 * arrive while every slot is busy wait, and leave together as one batch as
 * soon as a slot frees up. Under load, one statement answers many requests.
 *
 * `run` answers a batch's keys with a map; a key it leaves out is answered
 * `undefined`. A failing batch fails each of its lookups with its error.
 */
export class NaturalBatch<K, V> {
  private readonly queue: Array<Waiting<K, V>> = [];
  private inFlight = 0;

  constructor(
    private readonly run: (keys: K[]) => Promise<ReadonlyMap<K, V>>,
    private readonly options: NaturalBatchOptions,
  ) {}

  load(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ key, resolve, reject });
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

  private async answer(batch: Array<Waiting<K, V>>): Promise<void> {
    try {
      const found = await this.run([...new Set(batch.map(({ key }) => key))]);
      for (const { key, resolve } of batch) {
        resolve(found.get(key));
      }
    } catch (error) {
      for (const { reject } of batch) {
        reject(error);
      }
    }
  }
}
