export type CircuitState = 'closed' | 'open' | 'half-open';

/** What `begin` hands an attempt, and the attempt hands back when it fails. */
export interface CircuitAttempt {
  /** Begun by a half-open circuit: the one attempt whose failure opens it again. */
  readonly trial: boolean;
}

export interface CircuitSettings {
  readonly failures: number;
  /** The first pause; each failed trial doubles it, up to `maxPauseMs`. */
  readonly pauseMs: number;
  readonly maxPauseMs: number;
}

/**
 * One subscriber's circuit breaker in this instance: docs/webhooks.md#one-subscriber-cannot-hold-up-another.
 * Each pause is randomised between half and all of it: instances that opened together do not retry together.
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

  /** Called as an attempt begins, after `room` made room for it. */
  begin(): CircuitAttempt {
    return { trial: this.state === 'half-open' };
  }

  get reopensAt(): number | undefined {
    return this.state === 'open' ? this.openUntil : undefined;
  }

  /** Answers whether that closed the circuit. */
  succeeded(): boolean {
    const wasOpen = this.openUntil !== undefined;
    this.failuresInRow = 0;
    this.openUntil = undefined;
    this.pauses = 0;
    return wasOpen;
  }

  /** Answers whether that opened a closed circuit. */
  failed(attempt: CircuitAttempt): boolean {
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
        // Only the trial tells whether the pause was long enough; an older attempt failing late does not.
        if (attempt.trial) {
          this.open();
        }
        return false;
    }
  }

  private open(): void {
    const pauseMs = jitteredBackoffMs(
      this.settings.pauseMs,
      this.settings.maxPauseMs,
      this.pauses,
      this.random,
    );
    this.pauses += 1;
    this.openUntil = this.now() + pauseMs;
  }
}

/**
 * The `failed`-th wait, doubling from `baseMs` up to `maxMs`, then a random half or more of it:
 * failing receivers, and instances backing off one, are not in step.
 */
export function jitteredBackoffMs(
  baseMs: number,
  maxMs: number,
  failed: number,
  random: () => number = Math.random,
): number {
  return Math.round(Math.min(maxMs, baseMs * 2 ** failed) * (0.5 + random() / 2));
}
