import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

import type { ClaimedDelivery } from './webhook-deliveries.repository.js';
import { sendWebhook } from './webhook-sender.js';
import { parseSubscriber } from './webhook-subscribers.js';

const PASSWORD = 'pa55-in-the-url';
const QUERY_SECRET = 'token-in-the-query';

const delivery: ClaimedDelivery = {
  id: '1',
  eventId: '5f0c8a9e-2d1b-4c8e-9a51-0f6f3f2b7c11',
  eventType: 'plant.created',
  subscriber: 'unused here',
  payload: '{"id":1,"name":"Fern"}',
  attempts: 1,
  traceparent: null,
};

/** What an exporter sends of a span. */
function exported(span: ReadableSpan): string {
  const { name, attributes, status, events, links } = span;
  return JSON.stringify({ name, attributes, status, events, links });
}

describe('a webhook attempt to a subscriber with credentials in its URL', () => {
  const spans = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
  const received: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  let server: Server;
  let entry: string;

  beforeAll(async () => {
    trace.setGlobalTracerProvider(provider);
    server = createServer((request, response) => {
      received.push({ url: request.url ?? '', headers: request.headers });
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    entry = `http://hooks:${PASSWORD}@127.0.0.1:${port}/hooks?token=${QUERY_SECRET}`;
  });

  afterAll(async () => {
    trace.disable();
    await provider.shutdown();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    spans.reset();
    received.length = 0;
  });

  function attempt(url: string, authorization?: string) {
    return {
      url,
      authorization,
      label: parseSubscriber(url).key,
      signingKeys: [Buffer.alloc(32)],
      timeoutMs: 2_000,
    };
  }

  it('sends them as Basic authorization, with the query string, and traces neither', async () => {
    const { url, authorization } = parseSubscriber(entry);

    await expect(sendWebhook(delivery, attempt(url, authorization))).resolves.toBeUndefined();

    expect(received).toHaveLength(1);
    expect(received[0].url).toBe(`/hooks?token=${QUERY_SECRET}`);
    expect(received[0].headers.authorization).toBe(
      `Basic ${Buffer.from(`hooks:${PASSWORD}`).toString('base64')}`,
    );
    const [span] = spans.getFinishedSpans();
    expect(span.attributes['url.full']).toBe(parseSubscriber(entry).key);
    expect(exported(span)).not.toMatch(new RegExp(`${PASSWORD}|${QUERY_SECRET}`));
  });

  it('keeps a URL out of the failure it answers, which is stored, logged and traced', async () => {
    // A URL that still has its credentials: fetch refuses it, naming it in its message.
    const failure = await sendWebhook(delivery, attempt(entry));

    expect(failure).toMatch(/includes credentials/);
    expect(failure).toContain(parseSubscriber(entry).key);
    expect(received).toHaveLength(0);
    const [span] = spans.getFinishedSpans();
    expect(span.attributes['error.type']).toBe(failure);
    expect(`${failure} ${exported(span)}`).not.toMatch(new RegExp(`${PASSWORD}|${QUERY_SECRET}`));
  });
});
