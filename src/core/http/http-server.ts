import type { Server } from 'node:http';

import type { HttpConfig } from '../config/http.config.js';

/**
 * A client that trickles its headers or body is cut off (408), and idle keep-alive connections do not
 * pile up. Node's default `connectionsCheckingInterval` is too coarse for the header timeout.
 */
export function configureHttpServer(server: Server, config: HttpConfig): void {
  server.headersTimeout = config.headersTimeoutMs;
  server.requestTimeout = config.requestTimeoutMs;
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  // Public since Node 18.8; @types/node 20 does not declare it.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    1_000,
    config.headersTimeoutMs,
  );
}
