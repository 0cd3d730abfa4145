import { NaturalBatch } from './natural-batch.js';

describe('NaturalBatch', () => {
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  function recording(concurrency = 1) {
    const calls: Array<{ keys: string[]; finish: () => void; fail: (error: Error) => void }> = [];
    const batch = new NaturalBatch<string, string>(
      (keys) =>
        new Promise((resolve, reject) =>
          calls.push({
            keys,
            finish: () =>
              resolve(new Map(keys.filter((key) => key !== 'missing').map((key) => [key, `value ${key}`]))),
            fail: reject,
          }),
        ),
      { concurrency, maxBatchSize: 3 },
    );
    return { batch, calls };
  }

  it('sends a lone lookup at once, by itself', async () => {
    const { batch, calls } = recording();
    const value = batch.load('a');

    expect(calls.map((call) => call.keys)).toStrictEqual([['a']]);
    calls[0].finish();
    await expect(value).resolves.toBe('value a');
  });

  it('gathers what arrives while a batch is in flight, once per key, at most maxBatchSize a batch', async () => {
    const { batch, calls } = recording();
    const first = batch.load('a');
    const rest = ['b', 'c', 'b', 'missing', 'd'].map((key) => batch.load(key));

    calls[0].finish();
    await tick();
    expect(calls.map((call) => call.keys)).toStrictEqual([['a'], ['b', 'c']]);
    calls[1].finish();
    await tick();
    expect(calls[2].keys).toStrictEqual(['missing', 'd']);
    calls[2].finish();

    await expect(Promise.all([first, ...rest])).resolves.toStrictEqual([
      'value a',
      'value b',
      'value c',
      'value b',
      undefined,
      'value d',
    ]);
  });

  it('fails every lookup of a failing batch, and goes on with the next', async () => {
    const { batch, calls } = recording();
    void batch.load('a');
    const failing = [batch.load('b'), batch.load('c')];
    calls[0].finish();
    await tick();

    calls[1].fail(new Error('connection lost'));
    await expect(Promise.allSettled(failing)).resolves.toStrictEqual([
      { status: 'rejected', reason: new Error('connection lost') },
      { status: 'rejected', reason: new Error('connection lost') },
    ]);
    const later = batch.load('d');
    await tick();
    calls[2].finish();
    await expect(later).resolves.toBe('value d');
  });

  it('keeps no more batches in flight than allowed', () => {
    const { batch, calls } = recording(2);
    for (const key of ['a', 'b', 'c', 'd']) {
      void batch.load(key);
    }

    expect(calls.map((call) => call.keys)).toStrictEqual([['a'], ['b']]);
  });
});
