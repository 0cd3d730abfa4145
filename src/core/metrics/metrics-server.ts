import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';

import { appConfig, type AppConfig } from '../config/app.config.js';
import { httpConfig, type HttpConfig } from '../config/http.config.js';
import { Metrics } from './metrics.js';

/**
 * With `METRICS_PORT`, `GET /metrics` is served on a port of its own, and the
 * API's port answers 404 for it: whatever routes the API's port to the world
 * (an ingress, a proxy) cannot expose the metrics, and only who may reach the
 * metrics port (Prometheus, by the NetworkPolicy) scrapes them. A bare
 * `node:http` server: one read-only route needs nothing of the API's stack.
 */
// Not an import: an ES module importing node:http evaluates every export it has, and loads Node's fetch
// (undici) for its WebSocket, which costs the start-up for nothing (docs/performance.md#start-up).
const { createServer } = process.getBuiltinModule('node:http');

@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: Server;

  constructor(
    private readonly metrics: Metrics,
    @Inject(httpConfig.KEY) private readonly http: HttpConfig,
    @Inject(appConfig.KEY) private readonly app: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.http.metricsEnabled) {
      return;
    }
    if (this.http.metricsPort === undefined) {
      if (!this.http.metricsOnApiPort) {
        // Production without a metrics port: closed, rather than open on the API's port.
        this.logger.warn(
          'Metrics are not served: with NODE_ENV=production, set METRICS_PORT, ' +
            'or METRICS_ON_API_PORT=true to serve /metrics on the API’s port',
        );
      }
      return;
    }
    const server = createServer((request, response) => this.answer(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.http.metricsPort, this.app.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    const { address, port } = server.address() as AddressInfo;
    this.logger.log(
      `Metrics are served on ${address.includes(':') ? `[${address}]` : address}:${port}/metrics`,
    );
  }

  /** Where it listens: undefined unless `METRICS_PORT` is set and the application has started. */
  address(): AddressInfo | undefined {
    return (this.server?.address() as AddressInfo | null) ?? undefined;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    const path = (request.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response
        .writeHead(404, { 'Content-Type': 'application/json; charset=utf-8' })
        .end(JSON.stringify({ error: 404, message: `Cannot ${request.method ?? 'GET'} ${path}` }));
      return;
    }
    this.metrics.registry.metrics().then(
      (text) =>
        response
          .writeHead(200, { 'Content-Type': this.metrics.registry.contentType })
          .end(request.method === 'HEAD' ? undefined : text),
      (error: unknown) => {
        this.logger.error(
          `Metrics could not be collected: ${error instanceof Error ? error.message : String(error)}`,
        );
        response
          .writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' })
          .end(JSON.stringify({ error: 500, message: 'Internal server error' }));
      },
    );
  }
}
