import { Counter, Gauge, type Registry } from 'prom-client';

import type { CircuitState } from './subscriber-circuit.js';

export const DELIVERY_OUTCOMES = ['delivered', 'failed', 'dead'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

export interface SubscriberLoad {
  readonly label: string;
  readonly inFlight: number;
  readonly state: CircuitState;
}

/**
 * Every series of a configured subscriber is served from the start, at 0: a series that appears with
 * its first increment shows Prometheus no increase, so the first delivery given up would raise no alert.
 */
export class WebhookDeliveryMetrics {
  private readonly attempts: Counter<'subscriber' | 'outcome'>;

  constructor(registry: Registry, subscribers: readonly string[], load: () => Iterable<SubscriberLoad>) {
    this.attempts = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts, by subscriber and outcome: delivered, failed (to be retried), dead (given up)',
      labelNames: ['subscriber', 'outcome'] as const,
      registers: [registry],
    });
    for (const subscriber of subscribers) {
      for (const outcome of DELIVERY_OUTCOMES) {
        this.attempts.inc({ subscriber, outcome }, 0);
      }
    }
    const loads = () => Array.from(load(), (subscriber) => [subscriber.label, subscriber] as const);
    subscriberGauge(
      registry,
      'webhook_subscriber_attempts_in_flight',
      'Webhook delivery attempts this instance is making to the subscriber now',
      loads,
      (subscriber) => subscriber.inFlight,
    );
    subscriberGauge(
      registry,
      'webhook_subscriber_circuit_open',
      "1 while this instance has the subscriber's circuit open (it failed, and is tried once per pause), else 0",
      loads,
      (subscriber) => (subscriber.state === 'closed' ? 0 : 1),
    );
  }

  count(subscriber: string, outcome: DeliveryOutcome): void {
    this.attempts.inc({ subscriber, outcome });
  }
}

/** A gauge by subscriber, set at each scrape from what `read` answers then: a subscriber left out has no series. */
export function subscriberGauge<T>(
  registry: Registry,
  name: string,
  help: string,
  read: () => Iterable<readonly [string, T]> | Promise<Iterable<readonly [string, T]>>,
  value: (entry: T) => number,
): Gauge<'subscriber'> {
  return new Gauge({
    name,
    help,
    labelNames: ['subscriber'] as const,
    registers: [registry],
    async collect() {
      const entries = await read();
      this.reset();
      for (const [subscriber, entry] of entries) {
        this.set({ subscriber }, value(entry));
      }
    },
  });
}
