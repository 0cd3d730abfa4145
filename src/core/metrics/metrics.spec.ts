import { Metrics } from './metrics.js';

describe('Metrics', () => {
  it('serves every webhook delivery outcome at 0 before any attempt', async () => {
    const metrics = new Metrics();

    const text = await metrics.registry.getSingleMetricAsString('webhook_deliveries_total');

    expect(text.split('\n').filter((line) => !line.startsWith('#'))).toStrictEqual([
      'webhook_deliveries_total{outcome="delivered"} 0',
      'webhook_deliveries_total{outcome="failed"} 0',
      'webhook_deliveries_total{outcome="dead"} 0',
    ]);
  });

  it('counts an outcome from 0 on', async () => {
    const metrics = new Metrics();

    metrics.webhookDeliveries.inc({ outcome: 'dead' });

    expect(await metrics.registry.getSingleMetricAsString('webhook_deliveries_total')).toContain(
      'webhook_deliveries_total{outcome="dead"} 1',
    );
  });
});
