export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitSettings {
  /** Failed attempts in a row that open the circuit. */
  readonly failures: number;
  /** The first pause; each failed trial doubles it, up to `maxPauseMs`. */
  readonly pauseMs: number;
  readonly maxPauseMs: number;
}

/**
 * One subscriber's circuit breaker, in this instance. Closed, attempts flow
 * up to the subscriber's cap. After `failures` failed attempts in a row it
 * opens: nothing more is claimed for the subscriber, so its events wait in
 * the outbox without spending their attempts, and the instance's other
 * subscribers are not held up. After the pause, one trial attempt at a time
 * (half-open): an answer that takes the event closes the circuit; a failure
 * opens it again for twice the pause, up to the maximum. Each pause is
 * randomised between half and all of it, so that instances that opened
 * together do not try again together.
 */
export class SubscriberCircuit {
  private failuresInRow = 0;
  private openUntil?: number;
  private pauses = 0;

  constructor(
    private readonly settings: CircuitSettings,
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {}

  get state(): CircuitState {
    if (this.openUntil === undefined) {
      return 'closed';
    }
    return this.now() < this.openUntil ? 'open' : 'half-open';
  }

  /** How many more attempts may start now, with `inFlight` running, under a cap of `cap`. */
  room(inFlight: number, cap: number): number {
    switch (this.state) {
      case 'closed':
        return Math.max(0, cap - inFlight);
      case 'open':
        return 0;
      case 'half-open':
        return inFlight === 0 ? 1 : 0;
    }
  }

  /** When an open circuit lets a trial through; undefined unless open. */
  get reopensAt(): number | undefined {
    return this.state === 'open' ? this.openUntil : undefined;
  }

  /** The subscriber took an event: whatever came before, it answers again. Answers whether that closed the circuit. */
  succeeded(): boolean {
    const wasOpen = this.openUntil !== undefined;
    this.failuresInRow = 0;
    this.openUntil = undefined;
    this.pauses = 0;
    return wasOpen;
  }

  /** An attempt failed. Answers whether that opened a closed circuit. */
  failed(): boolean {
    switch (this.state) {
      case 'closed':
        this.failuresInRow += 1;
        if (this.failuresInRow < this.settings.failures) {
          return false;
        }
        this.open();
        return true;
      case 'open':
        // An attempt begun before the circuit opened: it tells nothing new.
        return false;
      case 'half-open':
        this.open();
        return false;
    }
  }

  private open(): void {
    const ceiling = Math.min(this.settings.maxPauseMs, this.settings.pauseMs * 2 ** this.pauses);
    this.pauses += 1;
    this.openUntil = this.now() + Math.round(ceiling * (0.5 + this.random() / 2));
  }
}
