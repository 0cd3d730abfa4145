import type { IncomingMessage, Server, ServerResponse } from 'node:http';

import type { HttpConfig } from '../config/http.config.js';
import { JSON_BODY_LIMIT_BYTES } from './json-body.parser.js';

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
  // Node answers `Expect: 100-continue` at once; a body the service refuses unread (413) is not asked for.
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    if (!(Number(request.headers['content-length']) > JSON_BODY_LIMIT_BYTES)) {
      response.writeContinue();
    }
    server.emit('request', request, response);
  });
}
