import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import {
  createServer as createNetServer,
  type AddressInfo,
  type Server as NetServer,
  type Socket,
} from 'node:net';

import { Webhook } from 'standardwebhooks';

import { freePort } from './service-process.js';

export interface ReceivedWebhook {
  /** The request's path and query string. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly receivedAt: number;
}

/**
 * A subscriber on loopback, at `path`: on the port it is given, or given
 * none on a free one, known once it has started.
 */
abstract class LoopbackSubscriber {
  protected constructor(
    private listeningOn: number,
    private readonly path: string,
  ) {}

  get port(): number {
    return this.listeningOn;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}${this.path}`;
  }

  /** Listens with `server`, on the port given or a free one: `port` answers it from then on. */
  protected async listen(server: NetServer): Promise<void> {
    await new Promise<void>((resolve) => server.listen(this.listeningOn, '127.0.0.1', resolve));
    this.listeningOn = (server.address() as AddressInfo).port;
  }
}

/**
 * A webhook subscriber on loopback, as a client of the service would run
 * one: it records what it receives, and answers with the status `respond`
 * picks (200 by default).
 */
export class WebhookReceiver extends LoopbackSubscriber {
  readonly received: ReceivedWebhook[] = [];
  respond: (delivery: ReceivedWebhook, index: number) => number = () => 200;
  private server?: Server;

  constructor(port = 0) {
    super(port, '/hooks/plants');
  }

  /** The service's settings to deliver here, signed with `secret`, its outbox polled often. */
  serviceEnv(secret: string): Record<string, string> {
    return { WEBHOOK_URLS: this.url, WEBHOOK_SECRET: secret, WEBHOOK_POLL_INTERVAL_MS: '100' };
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const delivery = { path: request.url ?? '', headers: request.headers, body, receivedAt: Date.now() };
        this.received.push(delivery);
        response.writeHead(this.respond(delivery, this.received.length - 1)).end();
      });
    });
    await this.listen(this.server);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}

/**
 * The receiver's side of the signature, with the Standard Webhooks library as
 * any receiver may use it: answers the parsed body, or throws a
 * WebhookVerificationError. `headers` overrides some of the delivery's.
 */
export function verifyDelivery(
  secret: string,
  delivery: ReceivedWebhook,
  headers: Record<string, string> = {},
): unknown {
  const received = Object.fromEntries(
    Object.entries(delivery.headers).map(([name, value]) => [name, String(value)]),
  );
  return new Webhook(secret).verify(delivery.body, { ...received, ...headers });
}

/** A Standard Webhooks secret: `whsec_` and the base64 of a random 32-byte key. */
export function webhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Webhook settings with a subscriber where nothing listens and an outbox
 * polled once a minute: the events a test causes stay in the outbox, to be
 * looked at.
 */
export async function undeliveredWebhookEnv(): Promise<Record<string, string>> {
  return {
    WEBHOOK_URLS: new WebhookReceiver(await freePort()).url,
    WEBHOOK_SECRET: webhookSecret(),
    WEBHOOK_POLL_INTERVAL_MS: '60000',
  };
}

/**
 * A subscriber that accepts connections and reads what is sent, but never
 * answers: every attempt to it lasts until the service's timeout.
 */
export class StalledReceiver extends LoopbackSubscriber {
  private readonly sockets = new Set<Socket>();
  private server?: NetServer;

  constructor(port = 0) {
    super(port, '/hooks/stalled');
  }

  /** Connections it holds open now. */
  get connections(): number {
    return this.sockets.size;
  }

  async start(): Promise<void> {
    this.server = createNetServer((socket) => {
      this.sockets.add(socket);
      socket.on('data', () => undefined);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await this.listen(this.server);
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) {
      socket.destroy();
    }
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}
