import type { Server } from 'node:http';

import type { HttpConfig } from '../config/http.config.js';

/**
 * Timeouts set on purpose rather than left to Node's defaults: a client that
 * trickles its headers or its body is cut off (408), and idle keep-alive
 * connections do not pile up. Node checks them every `connectionsCheckingInterval`
 * (30 s by default, too coarse for a 10 s header budget).
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
