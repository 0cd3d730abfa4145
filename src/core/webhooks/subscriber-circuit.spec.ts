import { SubscriberCircuit } from './subscriber-circuit.js';

/** An attempt begun now that fails. */
const fail = (circuit: SubscriberCircuit) => circuit.failed(circuit.begin());

describe('a subscriber circuit', () => {
  let now: number;
  // Pauses at their longest (random() near 1), so that the times below are exact.
  const circuit = () =>
    new SubscriberCircuit(
      { failures: 3, pauseMs: 1_000, maxPauseMs: 4_000 },
      () => now,
      () => 0.999_999,
    );

  beforeEach(() => {
    now = 0;
  });

  it('lets attempts through up to the cap while closed', () => {
    const subscriber = circuit();

    expect(subscriber.state).toBe('closed');
    expect(subscriber.room(0, 8)).toBe(8);
    expect(subscriber.room(6, 8)).toBe(2);
    expect(subscriber.room(8, 8)).toBe(0);
  });

  it('opens after the failures in a row, and lets nothing through for the pause', () => {
    const subscriber = circuit();
    expect(fail(subscriber)).toBe(false);
    expect(fail(subscriber)).toBe(false);
    expect(subscriber.state).toBe('closed');

    expect(fail(subscriber)).toBe(true);

    expect(subscriber.state).toBe('open');
    expect(subscriber.room(0, 8)).toBe(0);
    expect(subscriber.reopensAt).toBe(1_000);
    now = 999;
    expect(subscriber.room(0, 8)).toBe(0);
  });

  it('counts failures in a row only: a success between them starts the count again', () => {
    const subscriber = circuit();
    fail(subscriber);
    fail(subscriber);
    subscriber.succeeded();
    fail(subscriber);
    fail(subscriber);

    expect(subscriber.state).toBe('closed');
  });

  it('after the pause, lets one trial through at a time; its success closes the circuit', () => {
    const subscriber = circuit();
    for (let failure = 0; failure < 3; failure++) fail(subscriber);
    now = 1_000;

    expect(subscriber.state).toBe('half-open');
    expect(subscriber.room(0, 8)).toBe(1);
    expect(subscriber.room(1, 8)).toBe(0);

    expect(subscriber.succeeded()).toBe(true);
    expect(subscriber.state).toBe('closed');
    expect(subscriber.room(0, 8)).toBe(8);
    expect(subscriber.succeeded()).toBe(false);
  });

  it('opens again for twice the pause when the trial fails, up to the longest pause', () => {
    const subscriber = circuit();
    for (let failure = 0; failure < 3; failure++) fail(subscriber);
    const reopenings: number[] = [];
    for (let trial = 0; trial < 4; trial++) {
      now = subscriber.reopensAt!;
      expect(fail(subscriber)).toBe(false);
      reopenings.push(subscriber.reopensAt! - now);
    }

    expect(reopenings).toStrictEqual([2_000, 4_000, 4_000, 4_000]);
  });

  it('takes no account of failures of attempts begun before it opened', () => {
    const subscriber = circuit();
    for (let failure = 0; failure < 3; failure++) fail(subscriber);
    now = 500;
    fail(subscriber);

    expect(subscriber.reopensAt).toBe(1_000);
  });

  it('while half-open, counts its own trial only: an attempt begun before it opened, failing late, changes nothing', () => {
    const subscriber = circuit();
    const begunWhileClosed = subscriber.begin();
    for (let failure = 0; failure < 3; failure++) fail(subscriber);
    now = 1_500;

    expect(subscriber.failed(begunWhileClosed)).toBe(false);

    expect(subscriber.state).toBe('half-open');
    expect(subscriber.room(0, 8)).toBe(1);
    // The trial's failure opens it for the second pause, not the third.
    expect(fail(subscriber)).toBe(false);
    expect(subscriber.reopensAt).toBe(1_500 + 2_000);
  });

  it('waits between half and all of each pause, at random', () => {
    const shortest = new SubscriberCircuit(
      { failures: 1, pauseMs: 1_000, maxPauseMs: 4_000 },
      () => 0,
      () => 0,
    );
    fail(shortest);

    expect(shortest.reopensAt).toBe(500);
  });
});
