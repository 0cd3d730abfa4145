import { Registry } from 'prom-client';

import { type SubscriberLoad, WebhookDeliveryMetrics } from './webhook-delivery-metrics.js';

const SUBSCRIBERS = ['https://a.example.com/hooks', 'https://b.example.com/hooks'];

async function samples(registry: Registry, name: string): Promise<string[]> {
  const text = await registry.getSingleMetricAsString(name);
  return text.split('\n').filter((line) => !line.startsWith('#'));
}

describe('the webhook delivery metrics', () => {
  let registry: Registry;
  let load: SubscriberLoad[];
  let metrics: WebhookDeliveryMetrics;

  beforeEach(() => {
    registry = new Registry();
    load = SUBSCRIBERS.map((label) => ({ label, inFlight: 0, state: 'closed' as const }));
    metrics = new WebhookDeliveryMetrics(registry, SUBSCRIBERS, () => load);
  });

  it('serves every outcome of every subscriber at 0 before any attempt', async () => {
    await expect(samples(registry, 'webhook_deliveries_total')).resolves.toStrictEqual(
      SUBSCRIBERS.flatMap((subscriber) =>
        ['delivered', 'failed', 'dead'].map(
          (outcome) => `webhook_deliveries_total{subscriber="${subscriber}",outcome="${outcome}"} 0`,
        ),
      ),
    );
  });

  it('counts an outcome from 0 on, for its subscriber alone', async () => {
    metrics.count(SUBSCRIBERS[1], 'dead');

    const lines = await samples(registry, 'webhook_deliveries_total');
    expect(lines).toContain(`webhook_deliveries_total{subscriber="${SUBSCRIBERS[1]}",outcome="dead"} 1`);
    expect(lines).toContain(`webhook_deliveries_total{subscriber="${SUBSCRIBERS[0]}",outcome="dead"} 0`);
  });

  it("serves each subscriber's attempts in flight and whether its circuit is open, as they are at the scrape", async () => {
    load = [
      { label: SUBSCRIBERS[0], inFlight: 16, state: 'open' },
      { label: SUBSCRIBERS[1], inFlight: 3, state: 'closed' },
    ];

    await expect(samples(registry, 'webhook_subscriber_attempts_in_flight')).resolves.toStrictEqual([
      `webhook_subscriber_attempts_in_flight{subscriber="${SUBSCRIBERS[0]}"} 16`,
      `webhook_subscriber_attempts_in_flight{subscriber="${SUBSCRIBERS[1]}"} 3`,
    ]);
    await expect(samples(registry, 'webhook_subscriber_circuit_open')).resolves.toStrictEqual([
      `webhook_subscriber_circuit_open{subscriber="${SUBSCRIBERS[0]}"} 1`,
      `webhook_subscriber_circuit_open{subscriber="${SUBSCRIBERS[1]}"} 0`,
    ]);
  });
});
