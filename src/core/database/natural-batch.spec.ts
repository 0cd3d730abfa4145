import { context, ROOT_CONTEXT, type Span, trace, TraceFlags } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  StackContextManager,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

import { ItemFailure, NaturalBatch, type NaturalBatchOptions } from './natural-batch.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

interface Call {
  readonly items: string[];
  /** Answers each item `value <item>`, or a failure of its own for `refused`. */
  readonly finish: () => void;
  readonly fail: (error: Error) => void;
}

function recording(options: Partial<NaturalBatchOptions> = {}) {
  const calls: Call[] = [];
  const batch = new NaturalBatch<string, string>(
    (items) =>
      new Promise((resolve, reject) =>
        calls.push({
          items,
          finish: () =>
            resolve(
              items.map((item) =>
                item === 'refused' ? new ItemFailure(new Error('refused')) : `value ${item}`,
              ),
            ),
          fail: reject,
        }),
      ),
    { concurrency: 1, maxBatchSize: 3, ...options },
  );
  return { batch, calls };
}

describe('NaturalBatch', () => {
  it('sends a lone item at once, by itself', async () => {
    const { batch, calls } = recording();
    const value = batch.submit('a');

    expect(calls.map((call) => call.items)).toStrictEqual([['a']]);
    calls[0].finish();
    await expect(value).resolves.toBe('value a');
  });

  it('gathers what arrives while a batch is in flight, at most maxBatchSize a batch, an outcome per item', async () => {
    const { batch, calls } = recording();
    const first = batch.submit('a');
    const rest = ['b', 'c', 'b', 'd', 'e'].map((item) => batch.submit(item));

    calls[0].finish();
    await tick();
    expect(calls.map((call) => call.items)).toStrictEqual([['a'], ['b', 'c', 'b']]);
    calls[1].finish();
    await tick();
    expect(calls[2].items).toStrictEqual(['d', 'e']);
    calls[2].finish();

    await expect(Promise.all([first, ...rest])).resolves.toStrictEqual([
      'value a',
      'value b',
      'value c',
      'value b',
      'value d',
      'value e',
    ]);
  });

  it('fails one item alone when its outcome is an ItemFailure', async () => {
    const { batch, calls } = recording();
    void batch.submit('a');
    const outcomes = Promise.allSettled(['b', 'refused', 'c'].map((item) => batch.submit(item)));
    calls[0].finish();
    await tick();
    calls[1].finish();

    await expect(outcomes).resolves.toStrictEqual([
      { status: 'fulfilled', value: 'value b' },
      { status: 'rejected', reason: new Error('refused') },
      { status: 'fulfilled', value: 'value c' },
    ]);
  });

  it('fails every item of a failing batch, and goes on with the next', async () => {
    const { batch, calls } = recording();
    void batch.submit('a');
    const failing = [batch.submit('b'), batch.submit('c')];
    calls[0].finish();
    await tick();

    calls[1].fail(new Error('connection lost'));
    await expect(Promise.allSettled(failing)).resolves.toStrictEqual([
      { status: 'rejected', reason: new Error('connection lost') },
      { status: 'rejected', reason: new Error('connection lost') },
    ]);
    const later = batch.submit('d');
    await tick();
    expect(calls.map((call) => call.items)).toStrictEqual([['a'], ['b', 'c'], ['d']]);
    calls[2].finish();
    await expect(later).resolves.toBe('value d');
  });

  it('runs the items of a failing batch again one by one when retryAlone says so, in the same slot', async () => {
    const { batch, calls } = recording({ retryAlone: (error) => (error as Error).message === 'bad row' });
    void batch.submit('a');
    const outcomes = Promise.allSettled(['b', 'c'].map((item) => batch.submit(item)));
    calls[0].finish();
    await tick();
    const waiting = batch.submit('d');

    calls[1].fail(new Error('bad row'));
    await tick();
    expect(calls.map((call) => call.items)).toStrictEqual([['a'], ['b', 'c'], ['b'], ['c']]);
    calls[2].fail(new Error('bad row'));
    calls[3].finish();
    await expect(outcomes).resolves.toStrictEqual([
      { status: 'rejected', reason: new Error('bad row') },
      { status: 'fulfilled', value: 'value c' },
    ]);
    // The slot was the failing batch's until its items were answered: d waited for it.
    await tick();
    expect(calls[4].items).toStrictEqual(['d']);
    calls[4].finish();
    await expect(waiting).resolves.toBe('value d');
  });

  it('does not split a failing batch when retryAlone refuses the error', async () => {
    const { batch, calls } = recording({ retryAlone: () => false });
    void batch.submit('a');
    const failing = Promise.allSettled([batch.submit('b'), batch.submit('c')]);
    calls[0].finish();
    await tick();

    calls[1].fail(new Error('database gone'));
    expect((await failing).map((outcome) => outcome.status)).toStrictEqual(['rejected', 'rejected']);
    expect(calls).toHaveLength(2);
  });

  it('keeps no more batches in flight than allowed', () => {
    const { batch, calls } = recording({ concurrency: 2 });
    for (const item of ['a', 'b', 'c', 'd']) {
      void batch.submit(item);
    }

    expect(calls.map((call) => call.items)).toStrictEqual([['a'], ['b']]);
  });

  describe('with a span per batch', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    // Callers' contexts are taken as they submit, synchronously: a stack is enough.
    const contextManager = new StackContextManager();
    const requestTracer = provider.getTracer('requests');

    beforeAll(() => {
      context.setGlobalContextManager(contextManager.enable());
      trace.setGlobalTracerProvider(provider);
    });

    afterAll(() => {
      trace.disable();
      context.disable();
    });

    beforeEach(() => exporter.reset());

    /** Submits the item inside a span of its own (a request's), sampled or not; answers the span. */
    function fromRequest(batch: NaturalBatch<string, string>, item: string, sampled: boolean) {
      const span = requestTracer.startSpan(`request ${item}`);
      const spanContext = span.spanContext();
      const caller: Span = sampled
        ? span
        : trace.wrapSpanContext({ ...spanContext, traceFlags: TraceFlags.NONE });
      const outcome = context.with(trace.setSpan(ROOT_CONTEXT, caller), () => batch.submit(item));
      return { outcome, spanContext: caller.spanContext() };
    }

    it('runs each batch under a span linked to every caller, child of the first sampled one', async () => {
      const { batch, calls } = recording({ span: 'things batch insert' });
      const first = fromRequest(batch, 'a', true);
      const unsampled = fromRequest(batch, 'b', false);
      const sampled = fromRequest(batch, 'c', true);
      calls[0].finish();
      await first.outcome;
      await tick();
      calls[1].finish();
      await Promise.all([unsampled.outcome, sampled.outcome]);

      const batches = exporter.getFinishedSpans().filter((span) => span.name === 'things batch insert');
      expect(
        batches.map((span) => ({
          parent: span.parentSpanContext?.spanId,
          links: span.links.map((link) => link.context.spanId),
          size: span.attributes['plant_store.batch.size'],
        })),
      ).toStrictEqual([
        { parent: first.spanContext.spanId, links: [first.spanContext.spanId], size: 1 },
        {
          parent: sampled.spanContext.spanId,
          links: [unsampled.spanContext.spanId, sampled.spanContext.spanId],
          size: 2,
        },
      ]);
    });

    it('gives each item run alone after a failure a span of its own, child of its caller', async () => {
      const { batch, calls } = recording({ span: 'things batch insert', retryAlone: () => true });
      void batch.submit('a');
      const callers = [fromRequest(batch, 'b', true), fromRequest(batch, 'c', true)];
      calls[0].finish();
      await tick();
      calls[1].fail(new Error('bad row'));
      await tick();
      calls[2].finish();
      calls[3].finish();
      await Promise.all(callers.map(({ outcome }) => outcome));

      const alone = exporter
        .getFinishedSpans()
        .filter(
          (span) => span.name === 'things batch insert' && span.attributes['plant_store.batch.size'] === 1,
        )
        .map((span) => span.parentSpanContext?.spanId);
      expect(alone).toStrictEqual(
        expect.arrayContaining(callers.map(({ spanContext }) => spanContext.spanId)),
      );
    });
  });
});
