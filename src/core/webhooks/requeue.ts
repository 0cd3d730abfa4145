import 'reflect-metadata';

import { DataSource } from 'typeorm';

import { appConfig } from '../config/app.config.js';
import { databaseConfig } from '../config/database.config.js';
import { InvalidConfigurationError } from '../config/configuration-error.js';
import { buildDataSourceOptions } from '../database/data-source-options.js';
import { DatabaseServer } from '../database/database-server.js';
import {
  describeRequeue,
  parseRequeueArguments,
  REQUEUE_USAGE,
  requeueEvents,
  RequeueUsageError,
} from './dead-event-requeue.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { WebhookSubscriberLease } from './webhook-subscriber-lease.entity.js';

/**
 * `npm run webhooks:requeue -- --all | --id <event id> | --unsubscribed <URL>`:
 * turns dead webhook deliveries, or those of a subscriber marked unsubscribed,
 * back to pending on the database the service uses (`DATABASE_URL`, or the
 * embedded one), for the running instances to deliver; then exits 0, or 1 when
 * it could not do all it was asked.
 */
async function requeue(args: readonly string[]): Promise<number> {
  const selection = parseRequeueArguments(args);
  const database = databaseConfig();
  const server = await DatabaseServer.resolve(database, appConfig());
  const dataSource = new DataSource(
    buildDataSourceOptions({
      url: server.url,
      poolSize: 1,
      migrations: [],
      entities: [WebhookDelivery, WebhookSubscriberLease],
      connectTimeoutMs: database.connectTimeoutMs,
      statementTimeoutMs: database.statementTimeoutMs,
    }),
  );
  try {
    await dataSource.initialize();
    const deliveries = new WebhookDeliveriesRepository(dataSource.getRepository(WebhookDelivery));
    const result = await requeueEvents(deliveries, selection);
    process.stdout.write(`${describeRequeue(result).join('\n')}\n`);
    return result.notDead.length > 0 ? 1 : 0;
  } finally {
    if (dataSource.isInitialized) {
      await dataSource.destroy();
    }
    await server.stop();
  }
}

requeue(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message =
      error instanceof RequeueUsageError
        ? `${error.message}\n${REQUEUE_USAGE}`
        : error instanceof InvalidConfigurationError
          ? error.message
          : error instanceof Error
            ? error.stack
            : String(error);
    process.stderr.write(`Re-queueing failed: ${message}\n`);
    process.exitCode = 1;
  },
);
