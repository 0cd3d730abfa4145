import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface ReceivedWebhook {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly receivedAt: number;
}

/**
 * A webhook subscriber on loopback, as a client of the service would run
 * one: it records what it receives, and answers with the status `respond`
 * picks (200 by default).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  respond: (delivery: ReceivedWebhook, index: number) => number = () => 200;
  private server?: Server;

  constructor(readonly port: number) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks/plants`;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const delivery = { headers: request.headers, body, receivedAt: Date.now() };
        this.received.push(delivery);
        response.writeHead(this.respond(delivery, this.received.length - 1)).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}

/** The receiver's side of the signature, as the README shows it. */
export function verifySignature(secret: string, delivery: ReceivedWebhook): boolean {
  const timestamp = String(delivery.headers['webhook-timestamp']);
  const expected = Buffer.from(
    `v1=${createHmac('sha256', secret).update(`${timestamp}.${delivery.body}`).digest('hex')}`,
  );
  const given = Buffer.from(String(delivery.headers['webhook-signature']));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
