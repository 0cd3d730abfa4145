import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The request headers passed on to the service; the others are the connection's own. */
const FORWARDED_REQUEST_HEADERS = [
  'authorization',
  'content-type',
  'if-match',
  'if-none-match',
  'x-request-id',
];

/** Response headers that describe the connection or the encoding, which fetch has already undone. */
const HOP_BY_HOP_RESPONSE_HEADERS = new Set([
  'connection',
  'content-encoding',
  'content-length',
  'keep-alive',
]);

/**
 * A proxy in front of the service, as a load balancer would be: it answers
 * the next `unavailable` requests itself with 503 and `Retry-After`, as one
 * does while no instance is ready, and passes every other on.
 */
export class UnavailableProxy {
  /** `METHOD /path` of each request received, whichever answered it. */
  readonly received: string[] = [];
  /** How many of the next requests to answer with 503. */
  unavailable = 0;
  /** The `Retry-After` of those 503s. */
  retryAfter: () => string = () => '1';

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(target: string): Promise<UnavailableProxy> {
    const server = createServer((request, response) => {
      proxy.received.push(`${request.method} ${request.url}`);
      if (proxy.unavailable > 0) {
        proxy.unavailable--;
        response
          .writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': proxy.retryAfter() })
          .end('{"error":503,"message":"No instance is ready; retry later"}');
        return;
      }
      forward(request, target).then(
        async (answer) => {
          const headers = [...answer.headers].filter(([name]) => !HOP_BY_HOP_RESPONSE_HEADERS.has(name));
          response.writeHead(answer.status, Object.fromEntries(headers));
          response.end(Buffer.from(await answer.arrayBuffer()));
        },
        () => response.writeHead(502).end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const proxy = new UnavailableProxy(server, `http://127.0.0.1:${port}`);
    return proxy;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function forward(request: IncomingMessage, target: string): Promise<Response> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    chunks.push(chunk as Buffer);
  }
  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') {
      headers.set(name, value);
    }
  }
  return fetch(`${target}${request.url}`, {
    method: request.method,
    headers,
    body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
  });
}
